package io.idemworker.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.atomic.AtomicReference;

/** A clock that tests move by hand, so expiry is tested without sleeping. Thread-safe. */
public final class MutableClock extends Clock {
  private final AtomicReference<Instant> now;

  /** Starts at the real time, so SDK clients see plausible timestamps. */
  public MutableClock() {
    this(Instant.now().truncatedTo(ChronoUnit.MILLIS));
  }

  /**
   * Starts at a given instant.
   *
   * @param start the first instant
   */
  public MutableClock(Instant start) {
    this.now = new AtomicReference<>(start);
  }

  /**
   * Moves the clock forward.
   *
   * @param by how far
   */
  public void advance(Duration by) {
    now.updateAndGet(t -> t.plus(by));
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
