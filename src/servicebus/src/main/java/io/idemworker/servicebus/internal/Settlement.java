package io.idemworker.servicebus.internal;

import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusReceivedMessageContext;
import com.azure.messaging.servicebus.ServiceBusReceiverClient;
import com.azure.messaging.servicebus.models.DeadLetterOptions;
import io.idemworker.core.DeadLetterReason;
import io.idemworker.core.IdempotencyKey;
import io.idemworker.core.Outcome;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Settles a delivery by its {@link Outcome}, the one place that maps outcomes to the broker:
 * processed, duplicate and stale → complete; dead-lettered → dead-letter with the reason code and
 * description; retry → abandon after a back-off inside the lock; a lost lock → nothing (the broker
 * would refuse it; the message comes back when the lock ends). It tells the {@link WorkerLifecycle}
 * how the store did on the way (a misconfiguration pauses at once, transient failures in a row
 * pause). Both hosts use it: the processor through the SDK's message context, a held session
 * through its session receiver ({@link Target}).
 *
 * <p>A settlement that fails (lock lost, connection dropped) is logged at INFO and left to the
 * broker: the redelivery takes the duplicate path. Thread-safe.
 */
public final class Settlement {
  private static final Logger LOG = LoggerFactory.getLogger(Settlement.class);

  /** Service Bus clients refuse longer dead-letter descriptions; keep well inside. */
  public static final int MAX_DESCRIPTION_LENGTH = 4000;

  private final WorkerLifecycle lifecycle;
  private final Clock clock;
  private final Duration maxRetryBackoff;
  private final Sleeper sleeper;

  public Settlement(
      WorkerLifecycle lifecycle, Clock clock, Duration maxRetryBackoff, Sleeper sleeper) {
    this.lifecycle = Objects.requireNonNull(lifecycle, "lifecycle");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.maxRetryBackoff = Objects.requireNonNull(maxRetryBackoff, "maxRetryBackoff");
    this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
  }

  /** The SDK calls that settle one delivery, as its receiver offers them. */
  public interface Target {
    /** The delivery. */
    ServiceBusReceivedMessage message();

    /** Completes it. */
    void complete();

    /** Abandons it, so the broker redelivers it. */
    void abandon();

    /**
     * Dead-letters it.
     *
     * @param options the reason and description
     */
    void deadLetter(DeadLetterOptions options);

    /**
     * Where it was received, for logs: empty for the processor, {@code " in session X"} else.
     *
     * @return the text
     */
    String where();
  }

  /**
   * A delivery of the processor (plain or session processor).
   *
   * @param context the SDK's message context
   * @return the target
   */
  public static Target of(ServiceBusReceivedMessageContext context) {
    return new Target() {
      @Override
      public ServiceBusReceivedMessage message() {
        return context.getMessage();
      }

      @Override
      public void complete() {
        context.complete();
      }

      @Override
      public void abandon() {
        context.abandon();
      }

      @Override
      public void deadLetter(DeadLetterOptions options) {
        context.deadLetter(options);
      }

      @Override
      public String where() {
        return "";
      }
    };
  }

  /**
   * A delivery received through a session receiver, which must settle it as the lock holder.
   *
   * @param receiver the session's receiver
   * @param message the delivery
   * @param sessionId the session, for logs
   * @return the target
   */
  public static Target of(
      ServiceBusReceiverClient receiver, ServiceBusReceivedMessage message, String sessionId) {
    return new Target() {
      @Override
      public ServiceBusReceivedMessage message() {
        return message;
      }

      @Override
      public void complete() {
        receiver.complete(message);
      }

      @Override
      public void abandon() {
        receiver.abandon(message);
      }

      @Override
      public void deadLetter(DeadLetterOptions options) {
        receiver.deadLetter(message, options);
      }

      @Override
      public String where() {
        return " in session " + sessionId;
      }
    };
  }

  /**
   * Settles a delivery by its outcome.
   *
   * @param target the delivery and its receiver
   * @param outcome the flow's outcome
   * @return true when the broker took the settlement; false when it failed or, for a lost lock, was
   *     not attempted
   */
  public boolean settle(Target target, Outcome outcome) {
    ServiceBusReceivedMessage received = target.message();
    if (outcome instanceof Outcome.Retry retry && retry.cause() == Outcome.RetryCause.LOCK_LOST) {
      // The broker would refuse any settlement; the message comes back when the lock ends.
      LOG.warn(
          "message {}{} (key {}, delivery count {}): lock lost before the handler finished (locked"
              + " until {}); it stopped before its next write or call and settles nothing",
          received.getMessageId(),
          target.where(),
          retry.knownKey().map(IdempotencyKey::value).orElse("unknown"),
          received.getDeliveryCount(),
          received.getLockedUntil());
      return false;
    }
    try {
      outcome.fold(
          processed -> complete(target),
          duplicate -> complete(target),
          stale -> complete(target),
          deadLettered -> {
            lifecycle.storeAnswered();
            target.deadLetter(options(deadLettered.reason(), deadLettered.description()));
            return null;
          },
          retry -> abandonAfterBackoff(target, retry));
      return true;
    } catch (RuntimeException e) {
      LOG.info(
          "settlement of message {}{} failed ({}); the broker will redeliver it",
          received.getMessageId(),
          target.where(),
          e.getClass().getSimpleName());
      return false;
    }
  }

  /**
   * Dead-letters a delivery the flow never saw (unreadable, or dropped by session mode's own
   * bounds), logging at WARN; a failed dead-lettering is left to the broker.
   *
   * @param target the delivery and its receiver
   * @param reason the reason code
   * @param description names the rule, never a value
   */
  public static void deadLetter(Target target, DeadLetterReason reason, String description) {
    String messageId = target.message().getMessageId();
    LOG.warn("message {}{} dead-lettered: {}", messageId, target.where(), reason);
    try {
      target.deadLetter(options(reason, description));
    } catch (RuntimeException e) {
      LOG.info("dead-lettering message {} failed; the broker will redeliver it", messageId);
    }
  }

  private Void complete(Target target) {
    lifecycle.storeAnswered();
    target.complete();
    return null;
  }

  /**
   * Tells the lifecycle how the store did, then waits out a back-off that ends before the lock does
   * and abandons.
   */
  private Void abandonAfterBackoff(Target target, Outcome.Retry retry) {
    switch (retry.cause()) {
      case MISCONFIGURATION -> lifecycle.misconfigured(retry.description());
      case NOT_YET -> lifecycle.storeAnswered(); // the store answered: it is healthy
      case TRANSIENT -> lifecycle.transientFailure(retry.description());
      case LOCK_LOST -> {
        return null; // settled nothing: handled before the fold
      }
    }
    ServiceBusReceivedMessage received = target.message();
    sleep(
        Deliveries.backoff(
            received.getDeliveryCount(),
            received.getLockedUntil(),
            clock.instant(),
            maxRetryBackoff,
            retry.retryAfter()));
    target.abandon();
    return null;
  }

  private void sleep(Duration wait) {
    if (wait.isZero() || wait.isNegative()) {
      return;
    }
    try {
      sleeper.sleep(wait);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  public static DeadLetterOptions options(DeadLetterReason reason, String description) {
    return new DeadLetterOptions()
        .setDeadLetterReason(reason.code())
        .setDeadLetterErrorDescription(truncate(description));
  }

  public static String truncate(String description) {
    if (description.length() <= MAX_DESCRIPTION_LENGTH) {
      return description;
    }
    return description.substring(0, MAX_DESCRIPTION_LENGTH - 1) + "…";
  }
}
