package io.idemworker.servicebus;

import com.azure.core.amqp.models.AmqpMessageBodyType;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import io.idemworker.core.IncomingMessage;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/** Converts deliveries to the pattern's view and computes retry back-offs. */
final class Deliveries {
  private static final Duration BASE_BACKOFF = Duration.ofMillis(100);
  private static final Duration LOCK_SAFETY_MARGIN = Duration.ofSeconds(2);

  private Deliveries() {}

  static IncomingMessage toIncoming(ServiceBusReceivedMessage message) {
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
   * Exponential back-off with jitter by delivery count, capped by {@code max} and by the time left
   * on the lock (less a safety margin), so that the abandon always happens while we hold the lock.
   */
  static Duration backoff(
      long deliveryCount, OffsetDateTime lockedUntil, Instant now, Duration max) {
    return backoff(deliveryCount, lockedUntil, now, max, java.util.Optional.empty());
  }

  /**
   * As {@link #backoff(long, OffsetDateTime, Instant, Duration)}, but no shorter than the time left
   * {@code retryAfter} when the flow named one (a lease held by another attempt): that wait may
   * exceed {@code max}, never the lock.
   */
  static Duration backoff(
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
