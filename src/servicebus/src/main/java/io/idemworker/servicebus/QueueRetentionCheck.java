package io.idemworker.servicebus;

import com.azure.core.http.policy.FixedDelayOptions;
import com.azure.core.http.policy.RetryOptions;
import com.azure.messaging.servicebus.administration.ServiceBusAdministrationClient;
import com.azure.messaging.servicebus.administration.ServiceBusAdministrationClientBuilder;
import com.azure.messaging.servicebus.administration.models.QueueProperties;
import io.idemworker.core.MarkerRetention;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/**
 * Compares the queue values the worker was configured with (which bound how late a copy of a
 * message can come back) with the queue's real properties, when the credential may read them and
 * the administration API answers. Reading them needs the Manage right, which a least-privilege
 * worker identity lacks: then the check says it could not look, and the configured values (best
 * filled by the deployment from the same parameters it gives the queue) stand. On a connection
 * string it is tried too (a namespace's SAS key with Manage answers; an emulator's connection
 * string reaches no administration endpoint unless one is given, {@link
 * #check(ServiceBusConnection, String, MarkerRetention, Duration, UnaryOperator)}).
 */
public final class QueueRetentionCheck {
  private QueueRetentionCheck() {}

  /** What the check found. */
  public sealed interface Result {}

  /** The queue's properties agree with the configuration. */
  public record Agrees() implements Result {}

  /**
   * The queue's properties differ from the configuration. An application that reads the values from
   * settings of its own words its refusal from {@link #found()}, naming its settings.
   *
   * @param found each value that differs, the configured and the queue's
   */
  public record Differs(List<Difference> found) implements Result {
    /**
     * Copies the list.
     *
     * @param found each value that differs
     */
    public Differs {
      found = List.copyOf(found);
    }

    /**
     * The differences in the library's words.
     *
     * @return each names the {@link MarkerRetention} component, the configured and the real value
     */
    public List<String> differences() {
      return found.stream().map(Difference::describe).toList();
    }
  }

  /** A queue property compared with the configured {@link MarkerRetention}. */
  public enum Property {
    /** {@link MarkerRetention#lockDuration()}: must equal the queue's lock duration. */
    LOCK_DURATION,
    /** {@link MarkerRetention#maxDeliveryCount()}: must equal the queue's. */
    MAX_DELIVERY_COUNT,
    /**
     * {@link MarkerRetention#messageTimeToLive()}: must not be shorter than the queue's default
     * message time to live.
     */
    MESSAGE_TIME_TO_LIVE
  }

  /**
   * One value that differs.
   *
   * @param property which value
   * @param configured the configured value (an ISO 8601 duration or a count)
   * @param actual the queue's value
   */
  public record Difference(Property property, String configured, String actual) {
    /**
     * Checks the parts.
     *
     * @param property which value
     * @param configured the configured value
     * @param actual the queue's value
     */
    public Difference {
      Objects.requireNonNull(property, "property");
      Objects.requireNonNull(configured, "configured");
      Objects.requireNonNull(actual, "actual");
    }

    /**
     * The difference after the name of the setting that holds the configured value, e.g. {@code "
     * is PT1M, the queue's lock duration PT30S"}: an application puts its own name in front.
     *
     * @return the text after the setting's name
     */
    public String after() {
      return switch (property) {
        case LOCK_DURATION -> " is " + configured + ", the queue's lock duration " + actual;
        case MAX_DELIVERY_COUNT -> " is " + configured + ", the queue's " + actual;
        case MESSAGE_TIME_TO_LIVE ->
            " is "
                + configured
                + ", shorter than the queue's default message time to live "
                + actual;
      };
    }

    /**
     * The difference naming the {@link MarkerRetention} component.
     *
     * @return e.g. {@code "MarkerRetention.lockDuration is PT1M, the queue's lock duration PT30S"}
     */
    public String describe() {
      String component =
          switch (property) {
            case LOCK_DURATION -> "lockDuration";
            case MAX_DELIVERY_COUNT -> "maxDeliveryCount";
            case MESSAGE_TIME_TO_LIVE -> "messageTimeToLive";
          };
      return "MarkerRetention." + component + after();
    }
  }

  /**
   * The properties could not be read.
   *
   * @param why the reason, e.g. the status of a refused request
   */
  public record NotChecked(String why) implements Result {}

  /**
   * Reads the queue's properties and compares them.
   *
   * @param connection the namespace
   * @param queueName the queue
   * @param configured the configured values
   * @param timeout how long to wait for the namespace's answer
   * @return the result; never throws
   */
  public static Result check(
      ServiceBusConnection connection,
      String queueName,
      MarkerRetention configured,
      Duration timeout) {
    return check(connection, queueName, configured, timeout, UnaryOperator.identity());
  }

  /**
   * Reads the queue's properties and compares them, with a client adjusted by {@code adjust}.
   *
   * <p>On a connection string the administration client goes where the SDK sends it (HTTPS, port
   * 443 of the connection string's host; the port of an emulator's connection string is dropped),
   * once, without retries: an endpoint that does not answer (an emulator without the administration
   * API) costs no start-up time, and the check says it could not look.
   *
   * @param connection the namespace
   * @param queueName the queue
   * @param configured the configured values
   * @param timeout how long to wait for the namespace's answer
   * @param adjust changes the client builder before it is built, e.g. to reach an emulator's
   *     administration port (its HTTP client and port); identity for the service
   * @return the result; never throws
   */
  public static Result check(
      ServiceBusConnection connection,
      String queueName,
      MarkerRetention configured,
      Duration timeout,
      UnaryOperator<ServiceBusAdministrationClientBuilder> adjust) {
    try {
      ServiceBusAdministrationClientBuilder builder = new ServiceBusAdministrationClientBuilder();
      if (connection instanceof ServiceBusConnection.Namespace namespace) {
        builder.credential(namespace.fullyQualifiedNamespace(), namespace.credential());
      } else {
        builder
            .connectionString(
                ((ServiceBusConnection.ConnectionString) connection).connectionString())
            .retryOptions(new RetryOptions(new FixedDelayOptions(0, Duration.ofMillis(1))));
      }
      ServiceBusAdministrationClient admin = adjust.apply(builder).buildClient();
      QueueProperties queue =
          CompletableFuture.supplyAsync(() -> admin.getQueue(queueName))
              .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      return compare(queue, configured);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new NotChecked("interrupted");
    } catch (Exception e) {
      Throwable cause = Optional.ofNullable(e.getCause()).orElse(e);
      return new NotChecked(
          "the queue's properties could not be read ("
              + cause.getClass().getSimpleName()
              + (connection instanceof ServiceBusConnection.ConnectionString
                  ? "; on a connection string the administration API is asked at the"
                      + " connection string's host, port 443"
                  : "")
              + "; reading them needs the Manage right)");
    }
  }

  static Result compare(QueueProperties queue, MarkerRetention configured) {
    List<Difference> differences = new ArrayList<>();
    if (!queue.getLockDuration().equals(configured.lockDuration())) {
      differences.add(
          new Difference(
              Property.LOCK_DURATION,
              configured.lockDuration().toString(),
              queue.getLockDuration().toString()));
    }
    if (queue.getMaxDeliveryCount() != configured.maxDeliveryCount()) {
      differences.add(
          new Difference(
              Property.MAX_DELIVERY_COUNT,
              Integer.toString(configured.maxDeliveryCount()),
              Integer.toString(queue.getMaxDeliveryCount())));
    }
    if (queue.getDefaultMessageTimeToLive().compareTo(configured.messageTimeToLive()) > 0) {
      differences.add(
          new Difference(
              Property.MESSAGE_TIME_TO_LIVE,
              configured.messageTimeToLive().toString(),
              queue.getDefaultMessageTimeToLive().toString()));
    }
    return differences.isEmpty() ? new Agrees() : new Differs(differences);
  }
}
