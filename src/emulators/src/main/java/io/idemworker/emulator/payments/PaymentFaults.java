package io.idemworker.emulator.payments;

import io.idemworker.emulator.FaultOwner;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The fault-injection switchboard of one {@link PaymentProviderEmulator}. Thread-safe; a fault
 * armed here applies to executions that start after the call returns.
 *
 * <p>Faults act on <em>executions</em>: capture requests that were authorised, valid, and claimed a
 * new idempotency key. Replays, conflicts and rejected requests are never faulted, and every fault
 * acts while the key is claimed (in flight), so a second request with the key meanwhile gets 409.
 * At one execution, in this order: every firing {@link #latency} delay is added up and waited;
 * every firing {@link #pauseBeforeApply pause} holds the request until released; then {@link
 * #failBeforeApply} (500, nothing recorded, the key released) or else {@link
 * #applyThenDropConnection} (executed and stored, connection closed without an answer). When both
 * would fire, the first wins and the second's trigger is not used up.
 *
 * <p>A fault armed while a {@link FaultOwner} is open on the thread (the JUnit extension opens one
 * per test) is disarmed when that owner closes (a pause is released), and no other is.
 */
public final class PaymentFaults {
  private final List<Armed<Duration>> latencies = new CopyOnWriteArrayList<>();
  private final List<Armed<Pause>> pauses = new CopyOnWriteArrayList<>();
  private final List<Trigger> failures = new CopyOnWriteArrayList<>();
  private final List<Trigger> drops = new CopyOnWriteArrayList<>();

  PaymentFaults() {}

  /**
   * Answers 500 {@code api_error} before anything is executed: no capture, no stored answer, the
   * key is free again, so a retry with it executes normally.
   */
  public PaymentFaults failBeforeApply(Trigger when) {
    return arm(failures, Objects.requireNonNull(when, "when"));
  }

  /**
   * Executes the capture and stores its answer, then closes the connection without sending it: the
   * caller cannot know whether it happened. A retry with the same key gets the stored answer.
   */
  public PaymentFaults applyThenDropConnection(Trigger when) {
    return arm(drops, Objects.requireNonNull(when, "when"));
  }

  /** Delays executions by {@code delay} of wall-clock time while their key is in flight. */
  public PaymentFaults latency(Duration delay, Trigger when) {
    Objects.requireNonNull(delay, "delay");
    if (delay.isNegative()) {
      throw new IllegalArgumentException("delay must not be negative, got " + delay);
    }
    return arm(latencies, new Armed<>(delay, Objects.requireNonNull(when, "when")));
  }

  private <T> PaymentFaults arm(List<T> list, T fault) {
    list.add(fault);
    FaultOwner.register(() -> list.remove(fault));
    return this;
  }

  /**
   * Holds executions with their key in flight until {@link Pause#release()}: the latch tests use to
   * catch a request mid-execution without sleeping.
   */
  public Pause pauseBeforeApply(Trigger when) {
    Pause pause = new Pause();
    Armed<Pause> armed = new Armed<>(pause, Objects.requireNonNull(when, "when"));
    pauses.add(armed);
    FaultOwner.register(
        () -> {
          pauses.remove(armed);
          pause.release();
        });
    return pause;
  }

  /** Disarms every fault and releases every held request. */
  public PaymentFaults clear() {
    latencies.clear();
    failures.clear();
    drops.clear();
    List<Armed<Pause>> held = new ArrayList<>(pauses);
    pauses.clear();
    held.forEach(armed -> armed.value().release());
    return this;
  }

  /** What happens to the execution about to start. */
  enum Failure {
    NONE,
    FAIL_BEFORE_APPLY,
    APPLY_THEN_DROP
  }

  /** Decided once per execution: the delay, the pauses to pass, and the failure if any. */
  record Plan(Duration latency, List<Pause> pauses, Failure failure) {}

  Plan onExecution() {
    Duration latency = Duration.ZERO;
    for (Armed<Duration> armed : latencies) {
      if (armed.when().fires()) {
        latency = latency.plus(armed.value());
      }
    }
    List<Pause> firing = new ArrayList<>();
    for (Armed<Pause> armed : pauses) {
      if (armed.when().fires()) {
        firing.add(armed.value());
      }
    }
    Failure failure = Failure.NONE;
    if (failures.stream().anyMatch(Trigger::fires)) {
      failure = Failure.FAIL_BEFORE_APPLY;
    } else if (drops.stream().anyMatch(Trigger::fires)) {
      failure = Failure.APPLY_THEN_DROP;
    }
    return new Plan(latency, List.copyOf(firing), failure);
  }

  private record Armed<T>(T value, Trigger when) {}

  /**
   * When a fault fires: {@link #always()}, on the {@link #next(int) next n} executions, or with a
   * {@link #probability(double, long) seeded probability}. Thread-safe; a trigger belongs to one
   * fault.
   */
  public abstract static class Trigger {
    private Trigger() {}

    /** Fires on every execution until {@link PaymentFaults#clear()}. */
    public static Trigger always() {
      return new Trigger() {
        @Override
        boolean fires() {
          return true;
        }

        @Override
        public String toString() {
          return "always";
        }
      };
    }

    /** Fires on the next {@code n} executions (n ≥ 1), then never. */
    public static Trigger next(int n) {
      if (n < 1) {
        throw new IllegalArgumentException("n must be >= 1, got " + n);
      }
      AtomicInteger remaining = new AtomicInteger(n);
      return new Trigger() {
        @Override
        boolean fires() {
          return remaining.getAndUpdate(r -> r > 0 ? r - 1 : 0) > 0;
        }

        @Override
        public String toString() {
          return "next " + remaining.get() + " of " + n;
        }
      };
    }

    /**
     * Fires on each execution with probability {@code p} (0 to 1), drawn from a {@link Random}
     * seeded with {@code seed}: the same sequence of executions sees the same faults.
     */
    public static Trigger probability(double p, long seed) {
      if (!(p >= 0 && p <= 1)) {
        throw new IllegalArgumentException("p must be in 0..1, got " + p);
      }
      Random random = new Random(seed);
      return new Trigger() {
        @Override
        boolean fires() {
          synchronized (random) {
            return random.nextDouble() < p;
          }
        }

        @Override
        public String toString() {
          return "probability " + p + " seed " + seed;
        }
      };
    }

    abstract boolean fires();
  }

  /**
   * A gate that holds executions in flight until released. Thread-safe. Released also by {@link
   * PaymentFaults#clear()} and by closing the emulator.
   */
  public static final class Pause {
    private final CountDownLatch arrived = new CountDownLatch(1);
    private final CountDownLatch released = new CountDownLatch(1);
    private final AtomicInteger held = new AtomicInteger();

    private Pause() {}

    /**
     * Waits until an execution is held here.
     *
     * @return true once one is held (it stays held until {@link #release()}), false on timeout
     */
    public boolean awaitHeld(Duration timeout) throws InterruptedException {
      return arrived.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** How many executions have reached this pause so far. */
    public int heldCount() {
      return held.get();
    }

    /** Lets every held execution go on, and every later one pass. Idempotent. */
    public void release() {
      released.countDown();
    }

    void hold() throws InterruptedException {
      held.incrementAndGet();
      arrived.countDown();
      released.await();
    }
  }
}
