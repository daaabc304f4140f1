package io.idemworker.proof.emulators;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The system clock plus an offset that can only grow: lets the demo and the chaos run jump past the
 * broker's duplicate-detection window, or an api's leases, without waiting for them. UTC only.
 * Thread-safe.
 */
public final class AdjustableClock extends Clock {
  private final AtomicReference<Duration> offset = new AtomicReference<>(Duration.ZERO);

  /** A clock at the system's time, until it is {@link #advance}d. */
  public AdjustableClock() {}

  /**
   * Moves the clock forward; what it adds stays added.
   *
   * @param by how far, not negative
   */
  public void advance(Duration by) {
    offset.accumulateAndGet(by, Duration::plus);
  }

  /** UTC. */
  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  /**
   * Refused: the clock is UTC only.
   *
   * @throws UnsupportedOperationException always
   */
  @Override
  public Clock withZone(ZoneId zone) {
    throw new UnsupportedOperationException("the demo clock is UTC only");
  }

  /** The system's instant plus every advance so far. */
  @Override
  public Instant instant() {
    return Instant.now().plus(offset.get());
  }
}
