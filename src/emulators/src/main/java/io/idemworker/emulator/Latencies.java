package io.idemworker.emulator;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;

/**
 * The emulators' injected latencies: how long each one lasts (a mean and a spread around it) and
 * waits that end when it is over, not up to a millisecond later.
 *
 * <p><b>Spread.</b> A latency with mean {@code m} and spread {@code s} (0 to 1) lasts a time drawn
 * uniformly between {@code m × (1 − s)} and {@code m × (1 + s)} for each request, so its mean stays
 * {@code m} and a rate bound computed from the means holds (as long as the draws exceed the
 * emulator's own time to serve a request, which a Cosmos DB answer cannot beat: with a spread near
 * 1 the shortest draws are cut up to it and the real mean is slightly higher). Spread 0 is a
 * constant latency. A service's response times vary from request to request; a constant one does
 * not, and it keeps concurrent callers in step: calls that start together wait exactly as long,
 * come back together and queue for the same cores again, which a varying latency breaks up
 * (docs/benchmarks.md §6). A uniform draw has no slow tail, unlike a service's latencies.
 *
 * <p><b>Waits.</b> {@code Thread.sleep(millis, nanos)} and {@code TimeUnit.NANOSECONDS.sleep} on
 * JDK 17 round a wait with a sub-millisecond part <em>up</em> to the next whole millisecond: a 7.3
 * ms wait took 8.1 ms on average on the 2-core benchmark machine (7.4 ms with {@link
 * LockSupport#parkNanos}), so an emulator holding an answer "8 ms after it arrived" held it about
 * 0.5 ms longer than asked, and latency-bound figures measured against the injected latency came
 * out lower than they are. These waits park for the nanoseconds left and end once the deadline has
 * passed (plus the scheduler's wake-up, typically 0.1 ms).
 */
public final class Latencies {
  private Latencies() {}

  /**
   * Checks a spread.
   *
   * @param spread the spread, 0 (constant) to 1 (anything from zero to twice the mean)
   * @return the spread
   * @throws IllegalArgumentException if it is outside 0 to 1 or not a number
   */
  public static double requireSpread(double spread) {
    if (!(spread >= 0 && spread <= 1)) {
      throw new IllegalArgumentException("spread must be between 0 and 1 but was " + spread);
    }
    return spread;
  }

  /**
   * Draws one latency: uniform between {@code mean × (1 − spread)} and {@code mean × (1 + spread)}.
   *
   * @param mean the mean, zero or positive
   * @param spread 0 to 1 (see {@link #requireSpread})
   * @return the latency in nanoseconds; exactly the mean when the spread is 0
   * @throws IllegalArgumentException if the mean is negative or the spread outside 0 to 1
   */
  public static long drawNanos(Duration mean, double spread) {
    Objects.requireNonNull(mean, "mean");
    if (mean.isNegative()) {
      throw new IllegalArgumentException("mean must not be negative but was " + mean);
    }
    requireSpread(spread);
    long m = mean.toNanos();
    if (spread == 0 || m == 0) {
      return m;
    }
    double factor = 1 - spread + 2 * spread * ThreadLocalRandom.current().nextDouble();
    return Math.round(m * factor);
  }

  /**
   * Waits until {@link System#nanoTime()} has reached {@code deadlineNanos}; returns at once when
   * it already has.
   *
   * @param deadlineNanos the instant to wait for, on the {@link System#nanoTime()} scale
   * @throws InterruptedException if the thread is interrupted while waiting (its flag is cleared,
   *     as {@code Thread.sleep} does)
   */
  public static void awaitNanoTime(long deadlineNanos) throws InterruptedException {
    for (long left = deadlineNanos - System.nanoTime();
        left > 0;
        left = deadlineNanos - System.nanoTime()) {
      LockSupport.parkNanos(left);
      if (Thread.interrupted()) {
        throw new InterruptedException("interrupted while waiting out an injected latency");
      }
    }
  }

  /**
   * Waits for {@code duration} from now; returns at once for zero or negative.
   *
   * @param duration how long to wait
   * @throws InterruptedException if the thread is interrupted while waiting
   */
  public static void await(Duration duration) throws InterruptedException {
    if (duration.isZero() || duration.isNegative()) {
      return;
    }
    awaitNanoTime(System.nanoTime() + duration.toNanos());
  }
}
