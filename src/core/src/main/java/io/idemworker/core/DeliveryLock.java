package io.idemworker.core;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.Optional;

/**
 * The broker's lock on one delivery, as its handler sees it: when the lock ends (as received, moved
 * by every renewal) and whether it is gone. The flow consults it before every store write and
 * before a call that cannot join the transaction ({@link ExternalCall}), so a handler whose lock is
 * gone stops before its next side effect instead of racing the copy the broker hands to someone
 * else.
 *
 * <p>Implementations must be thread-safe (renewals happen on another thread) and must never throw.
 */
@FunctionalInterface
public interface DeliveryLock {

  /**
   * A lock that never ends, for deliveries that hold none (an HTTP request, a test): nothing is
   * fenced, and a two-phase lease is its configured ceiling.
   */
  DeliveryLock NONE = needed -> Optional.of(ChronoUnit.FOREVER.getDuration());

  /**
   * What is left of the lock, once it has at least {@code needed} left. When it has less, an
   * implementation that expects a renewal (the processor renews ahead of the end) waits for it, at
   * most until the lock ends; so a healthy lock answers after at most that wait, and a lock whose
   * renewal was refused or whose link is gone answers empty.
   *
   * @param needed how much of the lock the next step needs; zero asks only whether it is still held
   * @return what is left, measured by the implementation's clock (a duration, not an instant, so
   *     that the flow's clock and the lock's need not agree); empty when the lock is gone or ends
   *     before {@code needed} has passed
   */
  Optional<Duration> holdFor(Duration needed);
}
