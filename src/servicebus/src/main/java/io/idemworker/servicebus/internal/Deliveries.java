package io.idemworker.servicebus.internal;

import com.azure.core.amqp.models.AmqpMessageBodyType;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import io.idemworker.core.DeliveryLock;
import io.idemworker.core.DeliveryOrigin;
import io.idemworker.core.IdempotentConsumer;
import io.idemworker.core.IncomingMessage;
import io.idemworker.core.Outcome;
import io.idemworker.servicebus.sending.ProducerStamps;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Predicate;

/** Converts deliveries to the pattern's view and computes retry back-offs. */
public final class Deliveries {
  private static final Duration BASE_BACKOFF = Duration.ofMillis(100);
  private static final Duration LOCK_SAFETY_MARGIN = Duration.ofSeconds(2);

  /** How often one delivery may wait out another attempt's lease and run the flow again. */
  public static final int MAX_REHANDLES = 10;

  private Deliveries() {}

  /**
   * Runs the flow for one delivery under its lock. A copy that meets another attempt's live lease
   * waits it out while the lock is renewed, and runs the flow again in the same delivery (at most
   * {@link #MAX_REHANDLES} times), so contested copies do not spend their delivery count.
   *
   * @param consumer the flow
   * @param message the delivery as the flow sees it
   * @param received the delivery as the SDK gave it
   * @param lock the delivery's lock fence
   * @param renewedPast whether the lock is renewed past an instant
   * @param clock the worker's clock
   * @param sleeper waits out the other attempt's lease
   * @return the last outcome
   */
  public static Outcome run(
      IdempotentConsumer consumer,
      IncomingMessage message,
      ServiceBusReceivedMessage received,
      DeliveryLock lock,
      Predicate<Instant> renewedPast,
      Clock clock,
      Sleeper sleeper) {
    Outcome outcome = consumer.handle(message, origin(received), lock);
    for (int again = 0; again < MAX_REHANDLES; again++) {
      Optional<Duration> wait = leaseMeeting(outcome);
      if (wait.isEmpty() || !renewedPast.test(clock.instant().plus(wait.get()))) {
        break;
      }
      try {
        sleeper.sleep(wait.get());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
      outcome = consumer.handle(message, origin(received), lock);
    }
    return outcome;
  }

  /**
   * The wait a flow asked for when it met another attempt's live lease; empty otherwise.
   *
   * @param outcome the flow's outcome
   * @return the wait
   */
  public static Optional<Duration> leaseMeeting(Outcome outcome) {
    return outcome instanceof Outcome.Retry retry && retry.cause() == Outcome.RetryCause.NOT_YET
        ? retry.retryAfter()
        : Optional.empty();
  }

  public static IncomingMessage toIncoming(ServiceBusReceivedMessage message) {
    byte[] body =
        message.getRawAmqpMessage().getBody().getBodyType() == AmqpMessageBodyType.DATA
            ? message.getBody().toBytes()
            : new byte[0];
    return new IncomingMessage(
        Optional.ofNullable(message.getMessageId()),
        Optional.ofNullable(message.getCorrelationId()),
        Optional.ofNullable(message.getSubject()),
        Optional.ofNullable(message.getContentType()),
        message.getApplicationProperties(),
        body,
        message.getDeliveryCount());
  }

  /**
   * The delivery's broker identity, for the writer's stamp and the duplicate's source: sequence
   * number, enqueue time, lock end as received (both by the broker's clock), delivery count, and
   * how the copy was enqueued (a resubmission stamps {@link
   * DeadLetterCopies#FIRST_ENQUEUED_PROPERTY}, the relay {@link ProducerStamps#ORIGIN}; a
   * resubmission wins, as it keeps the original's properties), with the producer's attempt when
   * stamped.
   */
  public static Optional<DeliveryOrigin> origin(ServiceBusReceivedMessage message) {
    OffsetDateTime enqueued = message.getEnqueuedTime();
    if (enqueued == null) {
      return Optional.empty();
    }
    Map<String, Object> properties = message.getApplicationProperties();
    DeliveryOrigin.Via via =
        properties.containsKey(DeadLetterCopies.FIRST_ENQUEUED_PROPERTY)
            ? DeliveryOrigin.Via.RESUBMIT
            : ProducerStamps.RELAY.equals(String.valueOf(properties.get(ProducerStamps.ORIGIN)))
                ? DeliveryOrigin.Via.RELAY
                : DeliveryOrigin.Via.SEND;
    return Optional.of(
        new DeliveryOrigin(
            message.getSequenceNumber(),
            enqueued.toInstant(),
            Optional.ofNullable(message.getLockedUntil())
                .map(OffsetDateTime::toInstant)
                .orElse(enqueued.toInstant()),
            Math.max(0, message.getDeliveryCount()),
            via,
            producerAttempt(properties.get(ProducerStamps.SEND_ATTEMPT))));
  }

  public static int producerAttempt(Object stamped) {
    if (stamped instanceof Number number && number.longValue() > 0) {
      return (int) Math.min(number.longValue(), Integer.MAX_VALUE);
    }
    if (stamped instanceof String text && text.matches("[1-9][0-9]{0,8}")) {
      return Integer.parseInt(text);
    }
    return 0;
  }

  /**
   * Exponential back-off with jitter by delivery count, capped by {@code max} and by the time left
   * on the lock (less a safety margin), so that the abandon always happens while we hold the lock.
   */
  public static Duration backoff(
      long deliveryCount, OffsetDateTime lockedUntil, Instant now, Duration max) {
    return backoff(deliveryCount, lockedUntil, now, max, java.util.Optional.empty());
  }

  /**
   * As {@link #backoff(long, OffsetDateTime, Instant, Duration)}, but no shorter than the time left
   * {@code retryAfter} when the flow named one (a lease held by another attempt): that wait may
   * exceed {@code max}, never the lock.
   */
  public static Duration backoff(
      long deliveryCount,
      OffsetDateTime lockedUntil,
      Instant now,
      Duration max,
      java.util.Optional<Duration> retryAfter) {
    long exponent = Math.min(Math.max(deliveryCount, 0), 10);
    long millis = BASE_BACKOFF.toMillis() << exponent;
    double jitter = 0.5 + ThreadLocalRandom.current().nextDouble() * 0.5;
    Duration wanted = Duration.ofMillis((long) (Math.min(millis, max.toMillis()) * jitter));
    if (retryAfter.isPresent() && retryAfter.get().compareTo(wanted) > 0) {
      wanted = retryAfter.get();
    }
    if (lockedUntil == null) {
      return wanted;
    }
    Duration lockLeft = Duration.between(now, lockedUntil.toInstant()).minus(LOCK_SAFETY_MARGIN);
    if (lockLeft.isNegative()) {
      return Duration.ZERO;
    }
    return wanted.compareTo(lockLeft) < 0 ? wanted : lockLeft;
  }
}
