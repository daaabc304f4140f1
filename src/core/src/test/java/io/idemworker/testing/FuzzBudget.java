package io.idemworker.testing;

import java.time.Duration;

/**
 * How long and from which seed the socket fuzzers run: {@code -Dfuzz.seconds} (default {@value
 * #DEFAULT_SECONDS} s each in the default build; the {@code fuzz} Maven profile sets more) and
 * {@code -Dfuzz.seed} (default fixed, so a default build is reproducible). Each fuzzer also stops
 * after {@code maxCases}, so a fast machine does not run longer than a slow one would.
 *
 * @param seed the random seed
 * @param time the time budget
 * @param maxCases the most cases to run within it
 */
public record FuzzBudget(long seed, Duration time, int maxCases) {
  /** Seconds per fuzzer in the default build. */
  public static final int DEFAULT_SECONDS = 6;

  /** The default seed: fixed, so that every default build runs the same cases. */
  public static final long DEFAULT_SEED = 20261130L;

  /**
   * Reads the budget from system properties.
   *
   * @param defaultMaxCases the case cap for the default build; scaled up with the time budget
   * @return the budget
   */
  public static FuzzBudget fromSystemProperties(int defaultMaxCases) {
    long seconds = Long.getLong("fuzz.seconds", DEFAULT_SECONDS);
    long seed = Long.getLong("fuzz.seed", DEFAULT_SEED);
    long cases = Math.max(1, defaultMaxCases * Math.max(1, seconds / DEFAULT_SECONDS));
    return new FuzzBudget(seed, Duration.ofSeconds(seconds), (int) Math.min(cases, 10_000_000));
  }

  /** Whether another case fits, given when the run started and how many ran. */
  public boolean allows(long startNanos, int casesRun) {
    return casesRun < maxCases && System.nanoTime() - startNanos < time.toNanos();
  }
}
