package io.idemworker.proof;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The system clock plus an offset that can only grow: lets the demo jump past the broker's
 * duplicate-detection window without waiting for it. Thread-safe.
 */
final class AdjustableClock extends Clock {
  private final AtomicReference<Duration> offset = new AtomicReference<>(Duration.ZERO);

  void advance(Duration by) {
    offset.accumulateAndGet(by, Duration::plus);
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    throw new UnsupportedOperationException("the demo clock is UTC only");
  }

  @Override
  public Instant instant() {
    return Instant.now().plus(offset.get());
  }
}
