package io.idemworker.simulation;

import io.idemworker.core.DeliveryLock;
import java.time.Duration;
import java.util.Optional;

/**
 * The lock as one more clock: a delivery's lock ends one lock duration after it was received (by
 * the virtual clock; the handler's clock is fixed there), and is gone once the broker let it expire
 * under the working handler ({@link World.Delivery#lockLost()}). A live lock is renewed by the
 * processor, so it never runs out on its own here; it ends by a lock-expiry step or a crash.
 *
 * <p>The flow asks the lock before each write and before the provider call, and the handler is
 * re-run from the start at every step: a question asked while replaying a call the handler already
 * made is answered "held" (it was, or the call would not have been made), and only the question
 * before the pending call sees the lock as it is now. So a lost lock stops the handler exactly
 * before its next write or call, and the run stays deterministic.
 */
final class SimulatedLock implements DeliveryLock {
  private final Duration left;
  private final boolean lost;
  private final ScheduledStore calls;

  /**
   * The lock of one run.
   *
   * @param left what is left by the handler's clock (fixed at receipt): the lock duration
   * @param lost whether the broker let it expire under the handler
   * @param calls the run's store, which tells whether a question comes while replaying
   */
  SimulatedLock(Duration left, boolean lost, ScheduledStore calls) {
    this.left = left;
    this.lost = lost;
    this.calls = calls;
  }

  @Override
  public Optional<Duration> holdFor(Duration needed) {
    if (lost && !calls.replaying()) {
      return Optional.empty();
    }
    return Optional.of(left);
  }
}
