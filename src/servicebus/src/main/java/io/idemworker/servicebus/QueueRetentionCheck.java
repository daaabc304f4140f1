package io.idemworker.servicebus;

import com.azure.messaging.servicebus.administration.ServiceBusAdministrationClient;
import com.azure.messaging.servicebus.administration.ServiceBusAdministrationClientBuilder;
import com.azure.messaging.servicebus.administration.models.QueueProperties;
import io.idemworker.core.MarkerRetention;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Compares the queue values the worker was configured with (which bound how late a copy of a
 * message can come back) with the queue's real properties, when the credential may read them.
 * Reading them needs the Manage right, which a least-privilege worker identity lacks: then the
 * check says it could not look, and the configured values (filled by Bicep from the same parameters
 * it gives the queue) stand.
 */
public final class QueueRetentionCheck {
  private QueueRetentionCheck() {}

  /** What the check found. */
  public sealed interface Result {}

  /** The queue's properties agree with the configuration. */
  public record Agrees() implements Result {}

  /**
   * The queue's properties differ from the configuration.
   *
   * @param differences each names the configuration variable, the configured and the real value
   */
  public record Differs(List<String> differences) implements Result {}

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
    if (!(connection instanceof ServiceBusConnection.Namespace namespace)) {
      return new NotChecked(
          "a connection string is configured (emulators): the management API is not used");
    }
    try {
      ServiceBusAdministrationClient admin =
          new ServiceBusAdministrationClientBuilder()
              .credential(namespace.fullyQualifiedNamespace(), namespace.credential())
              .buildClient();
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
              + "; reading them needs the Manage right)");
    }
  }

  static Result compare(QueueProperties queue, MarkerRetention configured) {
    List<String> differences = new ArrayList<>();
    if (!queue.getLockDuration().equals(configured.lockDuration())) {
      differences.add(
          "SERVICEBUS_LOCK_DURATION is "
              + configured.lockDuration()
              + ", the queue's lock duration "
              + queue.getLockDuration());
    }
    if (queue.getMaxDeliveryCount() != configured.maxDeliveryCount()) {
      differences.add(
          "SERVICEBUS_MAX_DELIVERY_COUNT is "
              + configured.maxDeliveryCount()
              + ", the queue's "
              + queue.getMaxDeliveryCount());
    }
    if (queue.getDefaultMessageTimeToLive().compareTo(configured.messageTimeToLive()) > 0) {
      differences.add(
          "SERVICEBUS_MESSAGE_TTL is "
              + configured.messageTimeToLive()
              + ", shorter than the queue's default message time to live "
              + queue.getDefaultMessageTimeToLive());
    }
    return differences.isEmpty() ? new Agrees() : new Differs(differences);
  }
}
