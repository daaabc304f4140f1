package io.idemworker.servicebus.processor;

import static org.assertj.core.api.Assertions.assertThat;

import io.idemworker.servicebus.internal.Sleeper;
import io.idemworker.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The lock a delivery's handler sees, on an injected clock: waits for a due renewal, ends when the
 * renewal never comes or the link is gone. (The SDK's side is {@code ProcessorModeContractTest}.)
 */
class ProcessorLockTest {
  private static final Instant T0 = Instant.parse("2026-12-02T09:00:00Z");
  private final MutableClock clock = new MutableClock(T0);
  private final AtomicReference<OffsetDateTime> lockedUntil =
      new AtomicReference<>(OffsetDateTime.ofInstant(T0.plusSeconds(60), ZoneOffset.UTC));
  private final AtomicLong linkLosses = new AtomicLong();

  private ProcessorLock lock(Sleeper sleeper) {
    return new ProcessorLock(
        lockedUntil::get, T0.plus(Duration.ofMinutes(5)), linkLosses::get, clock, sleeper);
  }

  private Sleeper clockOnly() {
    return clock::advance;
  }

  @Test
  void lockWithEnoughLeft_answersItsEndAtOnce() {
    ProcessorLock lock =
        lock(
            wait -> {
              throw new AssertionError("no wait expected");
            });

    assertThat(lock.holdFor(Duration.ofSeconds(12))).contains(Duration.ofSeconds(60));
  }

  @Test
  void lockShortOfWhatIsNeeded_waitsForTheRenewal_andAnswersTheNewEnd() {
    // given a lock with 9 s left, and a renewal the processor makes 1 s later
    clock.advance(Duration.ofSeconds(51));
    ProcessorLock lock =
        lock(
            wait -> {
              clock.advance(wait);
              if (!clock.instant().isBefore(T0.plusSeconds(52))) {
                lockedUntil.set(OffsetDateTime.ofInstant(T0.plusSeconds(112), ZoneOffset.UTC));
              }
            });

    // when 12 s are needed, then it waits for the renewal and answers what the new end leaves
    Duration left = lock.holdFor(Duration.ofSeconds(12)).orElseThrow();
    assertThat(clock.instant()).isBetween(T0.plusSeconds(52), T0.plusSeconds(53));
    assertThat(clock.instant().plus(left)).isEqualTo(T0.plusSeconds(112));
  }

  @Test
  void renewalThatNeverComes_endsTheLockWhenItsEndPasses() {
    // given a lock whose renewal is refused: its end never moves
    clock.advance(Duration.ofSeconds(55));
    ProcessorLock lock = lock(clockOnly());

    // then asking for more than is left waits until the end, and answers that it is gone
    assertThat(lock.holdFor(Duration.ofSeconds(12))).isEmpty();
    assertThat(clock.instant()).isAfterOrEqualTo(T0.plusSeconds(60));
    assertThat(lock.holdFor(Duration.ZERO)).isEmpty();
  }

  @Test
  void linkReportedGone_endsEveryLockTakenBefore() {
    ProcessorLock before = lock(clockOnly());

    linkLosses.incrementAndGet();

    assertThat(before.holdFor(Duration.ZERO)).isEmpty();
    assertThat(before.renewedPast(T0.plusSeconds(1))).isFalse();
    assertThat(lock(clockOnly()).holdFor(Duration.ZERO)).contains(Duration.ofSeconds(60));
  }

  @Test
  void renewalsAtTheirLimit_doNotWait() {
    // given renewals that stop before the lock could reach what is needed
    ProcessorLock lock =
        new ProcessorLock(
            lockedUntil::get,
            T0.plusSeconds(30),
            linkLosses::get,
            clock,
            wait -> {
              throw new AssertionError("no renewal is due: no wait expected");
            });
    clock.advance(Duration.ofSeconds(50));

    assertThat(lock.holdFor(Duration.ofSeconds(12))).isEmpty();
    assertThat(lock.renewedPast(T0.plusSeconds(60))).isFalse();
  }

  @Test
  void noLockAtAll_receiveAndDelete_neverEnds() {
    lockedUntil.set(null);

    assertThat(lock(clockOnly()).holdFor(Duration.ofMinutes(10)))
        .hasValueSatisfying(left -> assertThat(left).isGreaterThan(Duration.ofDays(365)));
  }
}
