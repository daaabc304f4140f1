package io.idemworker.servicebus;

import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusReceiverAsyncClient;
import com.azure.messaging.servicebus.ServiceBusSessionReceiverAsyncClient;
import com.azure.messaging.servicebus.models.ServiceBusReceiveMode;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;

/**
 * Checks at start-up that the queue or the topic subscription requires sessions exactly when the
 * worker runs in session mode, by asking the broker as the worker will: a session receiver on an
 * entity without sessions, and a plain receiver on one that requires them, are both refused by
 * Service Bus when the receive link attaches. Neither probe takes a message: the session probe
 * releases the session it may get at once, and the plain probe grants no credit.
 */
public final class SessionRequirementCheck {
  private SessionRequirementCheck() {}

  /** What the check found. */
  public sealed interface Result {}

  /** The entity agrees with the configuration, or refused nothing within the bound. */
  public record Agrees() implements Result {}

  /**
   * The entity disagrees. An application that configures session mode by a setting of its own words
   * its refusal from the two values (naming its setting and the allowed values); {@link #problem()}
   * says it in the library's words.
   *
   * @param source the queue or subscription
   * @param sessions whether the worker runs in session mode: true, and the entity does not require
   *     sessions; false, and the entity requires them
   */
  public record Differs(ProcessorSettings.Source source, boolean sessions) implements Result {
    /**
     * Checks the parts.
     *
     * @param source the queue or subscription
     * @param sessions whether the worker runs in session mode
     */
    public Differs {
      Objects.requireNonNull(source, "source");
    }

    /**
     * The problem: session mode, the entity and what to change.
     *
     * @return the problem
     */
    public String problem() {
      return sessions
          ? "session mode is on, but "
              + source.describe()
              + " does not require sessions: create it with requiresSession, or turn session mode"
              + " off"
          : "session mode is off, but "
              + source.describe()
              + " requires sessions, so Service Bus refuses the worker's receiver: turn session"
              + " mode on ("
              + whoSetsSessionIds()
              + ")";
    }

    /**
     * Who sets {@code SessionId} on what the entity receives, for a hint to turn session mode on.
     *
     * @return for a subscription the relay (on every event), for a queue the producers
     */
    public String whoSetsSessionIds() {
      return source instanceof ProcessorSettings.Subscription
          ? "the relay sets SessionId on every event"
          : "producers set SessionId on every message";
    }
  }

  /**
   * The broker could not be asked.
   *
   * @param why the reason
   */
  public record NotChecked(String why) implements Result {}

  /**
   * Asks the broker.
   *
   * @param connection the namespace
   * @param source the queue or subscription; the problem names it ({@code queue inbound}, {@code
   *     subscription events/audit})
   * @param sessions whether the worker runs in session mode
   * @param timeout how long to wait for a refusal
   * @return the result; never throws
   */
  public static Result check(
      ServiceBusConnection connection,
      ProcessorSettings.Source source,
      boolean sessions,
      Duration timeout) {
    try {
      Optional<Throwable> refusal =
          sessions
              ? sessionProbe(connection, source, timeout)
              : plainProbe(connection, source, timeout);
      if (refusal.isEmpty()) {
        return new Agrees();
      }
      Optional<Differs> differs = differs(refusal.get(), source, sessions);
      if (differs.isPresent()) {
        return differs.get();
      }
      return new NotChecked("the probe failed: " + refusal.get().getClass().getSimpleName());
    } catch (RuntimeException e) {
      return new NotChecked("the probe failed: " + e.getClass().getSimpleName());
    }
  }

  /**
   * Whether an error the broker answered a receiver with says that the entity's sessions disagree
   * with the worker's session mode: the probe's answer, or the running processor's error when the
   * probe answered nothing within its bound (a slow start).
   *
   * @param error the receiver's error
   * @param source the queue or subscription
   * @param sessions whether the worker runs in session mode
   * @return the disagreement; empty for any other error
   */
  public static Optional<Differs> differs(
      Throwable error, ProcessorSettings.Source source, boolean sessions) {
    String text = describe(error).toLowerCase(Locale.ROOT);
    if (sessions
        && (text.contains("does not require sessions")
            || error instanceof UnsupportedOperationException)) {
      return Optional.of(new Differs(source, true));
    }
    if (!sessions && text.contains("requires sessions")) {
      return Optional.of(new Differs(source, false));
    }
    return Optional.empty();
  }

  private static String describe(Throwable error) {
    StringBuilder text = new StringBuilder();
    for (Throwable t = error; t != null && text.length() < 4000; t = t.getCause()) {
      text.append(t.getClass().getSimpleName()).append(": ").append(t.getMessage()).append(' ');
      if (t.getCause() == t) {
        break;
      }
    }
    return text.toString();
  }

  private static Optional<Throwable> sessionProbe(
      ServiceBusConnection connection, ProcessorSettings.Source source, Duration timeout) {
    ServiceBusClientBuilder.ServiceBusSessionReceiverClientBuilder builder =
        connection.builder().sessionReceiver().receiveMode(ServiceBusReceiveMode.PEEK_LOCK);
    if (source instanceof ProcessorSettings.Subscription s) {
      builder.topicName(s.topic()).subscriptionName(s.subscription());
    } else {
      builder.queueName(((ProcessorSettings.Queue) source).name());
    }
    try (ServiceBusSessionReceiverAsyncClient client = builder.buildAsyncClient()) {
      CompletableFuture<ServiceBusReceiverAsyncClient> accepted =
          client.acceptNextSession().toFuture();
      try {
        accepted.get(timeout.toMillis(), TimeUnit.MILLISECONDS).close();
        return Optional.empty();
      } catch (TimeoutException e) {
        accepted.cancel(true);
        return Optional.empty();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return Optional.of(e);
      } catch (java.util.concurrent.ExecutionException e) {
        return Optional.of(Optional.ofNullable(e.getCause()).orElse(e));
      }
    }
  }

  private static Optional<Throwable> plainProbe(
      ServiceBusConnection connection, ProcessorSettings.Source source, Duration timeout) {
    ServiceBusClientBuilder.ServiceBusReceiverClientBuilder builder =
        connection
            .builder()
            .receiver()
            .receiveMode(ServiceBusReceiveMode.PEEK_LOCK)
            .prefetchCount(0);
    if (source instanceof ProcessorSettings.Subscription s) {
      builder.topicName(s.topic()).subscriptionName(s.subscription());
    } else {
      builder.queueName(((ProcessorSettings.Queue) source).name());
    }
    CompletableFuture<Throwable> refused = new CompletableFuture<>();
    try (ServiceBusReceiverAsyncClient client = builder.buildAsyncClient()) {
      BaseSubscriber<ServiceBusReceivedMessage> noCredit =
          new BaseSubscriber<>() {
            @Override
            protected void hookOnSubscribe(Subscription subscription) {
              // No request: the link attaches, but no message is ever granted.
            }

            @Override
            protected void hookOnError(Throwable error) {
              refused.complete(error);
            }
          };
      client.receiveMessages().subscribe(noCredit);
      try {
        return Optional.of(refused.get(timeout.toMillis(), TimeUnit.MILLISECONDS));
      } catch (TimeoutException e) {
        return Optional.empty();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return Optional.of(e);
      } catch (java.util.concurrent.ExecutionException e) {
        return Optional.of(e);
      } finally {
        noCredit.dispose();
      }
    }
  }
}
