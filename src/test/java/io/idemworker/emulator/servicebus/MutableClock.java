package io.idemworker.emulator.servicebus;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;

/** A clock tests move by hand; starts at the real time so the SDK sees plausible timestamps. */
final class MutableClock extends Clock {
  private final AtomicReference<Instant> now =
      new AtomicReference<>(Instant.now().truncatedTo(java.time.temporal.ChronoUnit.MILLIS));

  void advance(Duration d) {
    now.updateAndGet(t -> t.plus(d));
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }

  @Override
  public Instant instant() {
    return now.get();
  }
}
