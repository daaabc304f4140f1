package io.idemworker.servicebus.processor;

import io.idemworker.core.DeliveryLock;
import io.idemworker.servicebus.internal.Sleeper;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.Optional;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * A delivery's lock as the Service Bus processor keeps it. The processor renews the lock of a
 * message in flight on its own (until {@code maxAutoLockRenewDuration}), once most of the lock has
 * passed: the Java SDK (7.17) schedules each renewal at the lock's end less half of what is left,
 * at most 10 s, and writes the new end into the message ({@code getLockedUntil}). A refused renewal
 * is only logged by the SDK, never reported to the handler, so it shows here as a lock end that
 * stops moving: the lock is gone once that end has passed. When the processor reports its receive
 * link or connection gone ({@link ServiceBusWorker}'s error handler counts those reports), it has
 * closed the client that took the delivery: on the service the lock outlives the link until its
 * end, but nothing renews it any more and the message can no longer be settled through that client,
 * so the handler treats it as gone at once.
 *
 * <p>{@link #holdFor} waits, polling the message's lock end, when the lock has less left than asked
 * for but a renewal is still due; it waits at most until the lock ends. Thread-safe.
 */
final class ProcessorLock implements DeliveryLock {
  /** How often a waiting handler looks for the renewal. */
  static final Duration POLL = Duration.ofMillis(100);

  private final Supplier<OffsetDateTime> lockedUntil;
  private final Instant renewalsEnd;
  private final LongSupplier linkLosses;
  private final long linkLossesAtReceipt;
  private final Clock clock;
  private final Sleeper sleeper;

  /**
   * The lock of one delivery.
   *
   * @param lockedUntil the message's lock end, read afresh each time (the SDK moves it on renewal);
   *     null in receive-and-delete mode, where there is no lock to lose
   * @param renewalsEnd when the processor stops renewing (receipt + {@code
   *     maxAutoLockRenewDuration})
   * @param linkLosses how many times the processor reported its receive link or connection gone
   * @param clock the worker's clock (the lock end is the broker's: {@link
   *     io.idemworker.core.Change.TwoPhase#CALL_MARGIN} absorbs the difference)
   * @param sleeper waits between looks
   */
  ProcessorLock(
      Supplier<OffsetDateTime> lockedUntil,
      Instant renewalsEnd,
      LongSupplier linkLosses,
      Clock clock,
      Sleeper sleeper) {
    this.lockedUntil = lockedUntil;
    this.renewalsEnd = renewalsEnd;
    this.linkLosses = linkLosses;
    this.linkLossesAtReceipt = linkLosses.getAsLong();
    this.clock = clock;
    this.sleeper = sleeper;
  }

  @Override
  public Optional<Duration> holdFor(Duration needed) {
    Instant end = end();
    if (end.equals(Instant.MAX)) {
      return Optional.of(ChronoUnit.FOREVER.getDuration());
    }
    long looks = Math.max(0, Duration.between(clock.instant(), end).toMillis()) / POLL.toMillis();
    for (long look = 0; look <= looks + 1; look++) {
      if (linkLosses.getAsLong() != linkLossesAtReceipt) {
        return Optional.empty();
      }
      end = end();
      Instant now = clock.instant();
      if (!now.isBefore(end)) {
        return Optional.empty();
      }
      if (!now.plus(needed).isAfter(end)) {
        return Optional.of(Duration.between(now, end));
      }
      if (!renewalsEnd.isAfter(end)) {
        // It ends before `needed` has passed, and the processor renews it no more.
        return Optional.empty();
      }
      try {
        sleeper.sleep(POLL);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return Optional.empty();
      }
    }
    return Optional.empty();
  }

  /**
   * Whether the processor still renews this lock at {@code instant}: the renewals have not reached
   * their limit by then and the link is still there. A wait that ends before then keeps the lock.
   *
   * @param instant by the worker's clock
   * @return true when the lock is renewed past it
   */
  boolean renewedPast(Instant instant) {
    return renewalsEnd.isAfter(instant) && linkLosses.getAsLong() == linkLossesAtReceipt;
  }

  private Instant end() {
    OffsetDateTime until = lockedUntil.get();
    return until == null ? Instant.MAX : until.toInstant();
  }
}
