package io.idemworker.servicebus.sessions;

import static org.assertj.core.api.Assertions.assertThat;

import io.idemworker.servicebus.internal.Sleeper;
import io.idemworker.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The session lock's arithmetic on an injected clock and a scheduler driven by it: when it renews,
 * what it answers, and when it is gone. (The SDK's side is {@code SessionModeContractTest}.)
 */
class SessionLockTest {
  private static final Instant T0 = Instant.parse("2026-12-02T09:00:00Z");
  private static final Duration LOCK = Duration.ofSeconds(60);

  private final MutableClock clock = new MutableClock(T0);
  private final ManualScheduler scheduler = new ManualScheduler(clock);
  private final List<Instant> renewedAt = new ArrayList<>();

  /** What the next renewal does; by default the service grants another LockDuration. */
  private Supplier<OffsetDateTime> service = () -> at(clock.instant().plus(LOCK));

  private final Sleeper sleeper =
      wait -> {
        clock.advance(wait);
        scheduler.runDue();
      };

  private SessionLock lock(Duration maxRenewal) {
    return new SessionLock(
        "ord-1",
        () -> {
          renewedAt.add(clock.instant());
          return service.get();
        },
        maxRenewal,
        clock,
        scheduler,
        sleeper);
  }

  private SessionLock started() {
    SessionLock lock = lock(Duration.ofMinutes(5));
    lock.start();
    scheduler.runDue();
    return lock;
  }

  private static OffsetDateTime at(Instant instant) {
    return OffsetDateTime.ofInstant(instant, ZoneOffset.UTC);
  }

  @Test
  void acceptedSession_isRenewedAtOnce_andAnswersTheEndItGot() {
    SessionLock lock = started();

    assertThat(renewedAt).containsExactly(T0);
    assertThat(lock.holdFor(Duration.ofSeconds(12))).contains(LOCK);
    assertThat(lock.lost()).isFalse();
  }

  @Test
  void renewals_comeTenSecondsBeforeTheEnd_andMoveIt() {
    SessionLock lock = started();

    clock.advance(Duration.ofSeconds(49));
    scheduler.runDue();
    assertThat(renewedAt).hasSize(1);
    clock.advance(Duration.ofSeconds(1));
    scheduler.runDue();

    assertThat(renewedAt).containsExactly(T0, T0.plusSeconds(50));
    assertThat(lock.holdFor(Duration.ZERO)).contains(LOCK);
  }

  @Test
  void shortLock_isRenewedAtHalfOfWhatIsLeft() {
    service = () -> at(clock.instant().plusSeconds(6));
    started();

    clock.advance(Duration.ofSeconds(3));
    scheduler.runDue();

    assertThat(renewedAt).containsExactly(T0, T0.plusSeconds(3));
  }

  @Test
  void stepThatNeedsMoreThanIsLeft_asksForTheRenewalAtOnce_andGetsTheNewEnd() {
    // given a lock with 5 s left, its next renewal due in 5 s less its lead
    SessionLock lock = started();
    clock.advance(Duration.ofSeconds(55));

    // when a step needs 12 s
    Optional<Duration> left = lock.holdFor(Duration.ofSeconds(12));

    // then it renewed at once (not at its turn) and answers what the new end leaves
    assertThat(renewedAt).hasSize(2);
    Instant renewal = renewedAt.get(1);
    assertThat(renewal).isBetween(T0.plusSeconds(55), T0.plusSeconds(55).plus(SessionLock.POLL));
    assertThat(left)
        .hasValueSatisfying(d -> assertThat(clock.instant().plus(d)).isAfter(T0.plusSeconds(110)));
  }

  @Test
  void refusedRenewal_endsTheLockAtOnce_andNothingIsRenewedAfter() {
    SessionLock lock = started();
    service =
        () -> {
          throw new SessionLock.Refused("SESSION_LOCK_LOST");
        };

    clock.advance(Duration.ofSeconds(50));
    scheduler.runDue();

    Instant refusedAt = clock.instant();
    assertThat(lock.holdFor(Duration.ZERO)).isEmpty();
    assertThat(lock.lost()).isTrue();
    assertThat(clock.instant()).as("no wait").isEqualTo(refusedAt);
    assertThat(scheduler.pending()).isZero();
  }

  @Test
  void failedRenewal_isTriedAgain_andTheLockEndsWhenItsEndPasses() {
    // given renewals that fail (a timeout, not a refusal) from the second on
    SessionLock lock = started();
    service =
        () -> {
          throw new IllegalStateException("timed out");
        };

    // when a step needs more than is left, then it waits until the end that never moved
    clock.advance(Duration.ofSeconds(50));
    scheduler.runDue();
    assertThat(lock.holdFor(Duration.ofSeconds(12))).isEmpty();
    assertThat(clock.instant()).isAfterOrEqualTo(T0.plus(LOCK));
    assertThat(lock.lost()).isTrue();
    assertThat(renewedAt.size()).as("tried again, about once a second").isBetween(8, 14);
  }

  @Test
  void failedRenewalThatPasses_keepsTheLock() {
    SessionLock lock = started();
    List<RuntimeException> failures = new ArrayList<>(List.of(new IllegalStateException("once")));
    service =
        () -> {
          if (!failures.isEmpty()) {
            throw failures.remove(0);
          }
          return at(clock.instant().plus(LOCK));
        };

    clock.advance(Duration.ofSeconds(50));
    scheduler.runDue();
    clock.advance(SessionLock.RETRY);
    scheduler.runDue();

    assertThat(renewedAt).containsExactly(T0, T0.plusSeconds(50), T0.plusSeconds(51));
    assertThat(lock.holdFor(Duration.ZERO)).contains(LOCK);
  }

  @Test
  void renewalsStopAtTheMaximumRenewal_andTheLockThenEndsWithoutWaiting() {
    // given renewals for 30 s after acceptance only
    SessionLock lock = lock(Duration.ofSeconds(30));
    lock.start();
    scheduler.runDue();

    // then the renewal due at 50 s is never scheduled, and a step that needs more than is left
    // answers at once that the lock will not last
    assertThat(scheduler.pending()).isZero();
    clock.advance(Duration.ofSeconds(50));
    assertThat(lock.holdFor(Duration.ofSeconds(12))).isEmpty();
    assertThat(clock.instant()).isEqualTo(T0.plusSeconds(50));
    assertThat(lock.holdFor(Duration.ofSeconds(5))).contains(Duration.ofSeconds(10));
    assertThat(renewedAt).containsExactly(T0);
  }

  @Test
  void noRenewalAtAll_takesTheEndTheMessagesShow() {
    SessionLock lock = lock(Duration.ZERO);
    lock.start();
    scheduler.runDue();
    assertThat(lock.holdFor(Duration.ZERO)).as("no end known yet").isEmpty();

    lock.observe(at(T0.plusSeconds(30)));

    assertThat(renewedAt).isEmpty();
    assertThat(lock.holdFor(Duration.ofSeconds(12))).contains(Duration.ofSeconds(30));
  }

  @Test
  void renewalsOn_ignoreTheEndsTheMessagesShow() {
    SessionLock lock = started();

    lock.observe(at(T0.plus(Duration.ofHours(1))));

    assertThat(lock.holdFor(Duration.ZERO)).contains(LOCK);
  }

  @Test
  void firstAnswerStillOnItsWay_isWaitedFor() {
    SessionLock lock = lock(Duration.ofMinutes(5));
    lock.start();
    // the first renewal runs 300 ms later (the session's state is being read meanwhile)
    scheduler.delayAll(Duration.ofMillis(300));

    assertThat(lock.holdFor(Duration.ofSeconds(12))).isPresent();
    assertThat(renewedAt).hasSize(1);
  }

  @Test
  void renewedPast_holdsWhileRenewalsGoOn_andNotOnceLost() {
    SessionLock lock = lock(Duration.ofSeconds(30));
    lock.start();
    scheduler.runDue();

    assertThat(lock.renewedPast(T0.plusSeconds(29))).isTrue();
    assertThat(lock.renewedPast(T0.plusSeconds(31))).as("past the maximum renewal").isFalse();
    assertThat(lock(Duration.ZERO).renewedPast(T0)).as("no renewals at all").isFalse();

    clock.advance(LOCK);
    assertThat(lock.renewedPast(clock.instant())).as("its end passed").isFalse();
  }

  @Test
  void closedLock_isGone_andItsRenewalIsCancelled() {
    SessionLock lock = started();

    lock.close();

    assertThat(lock.holdFor(Duration.ZERO)).isEmpty();
    assertThat(scheduler.pending()).isZero();
  }

  /** A scheduler whose time is the test's clock: tasks run in {@link #runDue}, on this thread. */
  private static final class ManualScheduler extends AbstractExecutorService
      implements ScheduledExecutorService {
    private final MutableClock clock;
    private final List<Task> tasks = new ArrayList<>();

    ManualScheduler(MutableClock clock) {
      this.clock = clock;
    }

    void runDue() {
      while (true) {
        Optional<Task> due =
            tasks.stream()
                .filter(t -> !t.isDone() && !t.due.isAfter(clock.instant()))
                .min(Comparator.comparing(t -> t.due));
        if (due.isEmpty()) {
          return;
        }
        due.get().done = true;
        due.get().task.run();
      }
    }

    long pending() {
      return tasks.stream().filter(t -> !t.isDone()).count();
    }

    void delayAll(Duration by) {
      tasks.forEach(t -> t.due = t.due.plus(by));
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
      Task task = new Task(command, clock.instant().plusNanos(unit.toNanos(delay)));
      tasks.add(task);
      return task;
    }

    @Override
    public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
      throw new UnsupportedOperationException();
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(
        Runnable command, long initialDelay, long period, TimeUnit unit) {
      throw new UnsupportedOperationException();
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(
        Runnable command, long initialDelay, long delay, TimeUnit unit) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void execute(Runnable command) {
      schedule(command, 0, TimeUnit.NANOSECONDS);
    }

    @Override
    public void shutdown() {}

    @Override
    public List<Runnable> shutdownNow() {
      return List.of();
    }

    @Override
    public boolean isShutdown() {
      return false;
    }

    @Override
    public boolean isTerminated() {
      return false;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
      return true;
    }

    private final class Task implements ScheduledFuture<Object> {
      private final Runnable task;
      private Instant due;
      private boolean done;
      private boolean cancelled;

      Task(Runnable task, Instant due) {
        this.task = task;
        this.due = due;
      }

      @Override
      public long getDelay(TimeUnit unit) {
        return unit.convert(Duration.between(clock.instant(), due).toNanos(), TimeUnit.NANOSECONDS);
      }

      @Override
      public int compareTo(Delayed other) {
        return Long.compare(getDelay(TimeUnit.NANOSECONDS), other.getDelay(TimeUnit.NANOSECONDS));
      }

      @Override
      public boolean cancel(boolean mayInterruptIfRunning) {
        if (done) {
          return false;
        }
        cancelled = true;
        return true;
      }

      @Override
      public boolean isCancelled() {
        return cancelled;
      }

      @Override
      public boolean isDone() {
        return done || cancelled;
      }

      @Override
      public Object get() {
        return null;
      }

      @Override
      public Object get(long timeout, TimeUnit unit) {
        return null;
      }
    }
  }
}
