package io.idemworker.emulator.cosmos;

import io.idemworker.emulator.Latencies;
import java.time.Duration;
import java.util.Objects;

/**
 * An immutable description of a fault to inject: an error status (with sub-status and, for 429, a
 * retry-after delay), added latency, or both, limited to a number of occurrences or unlimited.
 *
 * <p>Examples: {@code Fault.status(429).retryAfter(Duration.ofMillis(10)).times(3)}, {@code
 * Fault.status(403)} (until {@link Faults#clear()}), {@code Fault.latency(Duration.ofMillis(50))}.
 */
public final class Fault {
  /** Marks a fault with no occurrence limit. */
  static final int UNLIMITED = -1;

  private final int status;
  private final int subStatus;
  private final Duration retryAfter;
  private final Duration latency;
  private final double spread;
  private final int times;

  private Fault(
      int status, int subStatus, Duration retryAfter, Duration latency, double spread, int times) {
    this.status = status;
    this.subStatus = subStatus;
    this.retryAfter = retryAfter;
    this.latency = latency;
    this.spread = spread;
    this.times = times;
  }

  /**
   * A fault answering with {@code status} (400 to 599) and the service's error code for it. A 429
   * gets sub-status 3200 and {@code x-ms-retry-after-ms: 10} unless changed.
   *
   * @throws IllegalArgumentException if status is not in 400..599
   */
  public static Fault status(int status) {
    if (status < 400 || status > 599) {
      throw new IllegalArgumentException("status must be in 400..599, got " + status);
    }
    boolean throttle = status == 429;
    return new Fault(
        status,
        throttle ? 3200 : 0,
        throttle ? Duration.ofMillis(10) : null,
        Duration.ZERO,
        0,
        UNLIMITED);
  }

  /**
   * A fault that only delays the answer: the request is served normally and its answer held until
   * {@code latency} after it arrived.
   */
  public static Fault latency(Duration latency) {
    return latency(latency, 0);
  }

  /**
   * A fault that only delays the answer, by a latency drawn for each request uniformly between
   * {@code mean × (1 − spread)} and {@code mean × (1 + spread)} ({@link Latencies}): the request is
   * served normally and its answer held until that long after it arrived.
   *
   * @param mean the mean latency, zero or positive
   * @param spread 0 (constant) to 1
   * @throws IllegalArgumentException if the mean is negative or the spread outside 0 to 1
   */
  public static Fault latency(Duration mean, double spread) {
    requireNonNegative(mean, "latency");
    return new Fault(0, 0, null, mean, Latencies.requireSpread(spread), UNLIMITED);
  }

  /** This fault with {@code x-ms-substatus} set to {@code subStatus}. */
  public Fault subStatus(int subStatus) {
    requireStatus("subStatus");
    return new Fault(status, subStatus, retryAfter, latency, spread, times);
  }

  /** This fault with {@code x-ms-retry-after-ms} set (meaningful for 429 and 449). */
  public Fault retryAfter(Duration retryAfter) {
    requireStatus("retryAfter");
    requireNonNegative(retryAfter, "retryAfter");
    return new Fault(status, subStatus, retryAfter, latency, spread, times);
  }

  /**
   * This fault with its latency replaced by a constant {@code latency} before the answer (any
   * spread is dropped; {@link #latency(Duration, double)} gives a latency-only fault a spread).
   */
  public Fault withLatency(Duration latency) {
    requireNonNegative(latency, "latency");
    return new Fault(status, subStatus, retryAfter, latency, 0, times);
  }

  /**
   * This fault limited to {@code n} occurrences (n ≥ 1); without it the fault stays until cleared.
   */
  public Fault times(int n) {
    if (n < 1) {
      throw new IllegalArgumentException("times must be >= 1, got " + n);
    }
    return new Fault(status, subStatus, retryAfter, latency, spread, n);
  }

  int statusCode() {
    return status;
  }

  int subStatusCode() {
    return subStatus;
  }

  Duration retryAfterDelay() {
    return retryAfter;
  }

  /** The latency this occurrence adds: the mean, or a draw around it when there is a spread. */
  Duration addedLatency() {
    return spread == 0 ? latency : Duration.ofNanos(Latencies.drawNanos(latency, spread));
  }

  int occurrences() {
    return times;
  }

  boolean failsRequest() {
    return status != 0;
  }

  private void requireStatus(String what) {
    if (status == 0) {
      throw new IllegalStateException(what + " needs a status fault, not a latency-only one");
    }
  }

  private static void requireNonNegative(Duration d, String name) {
    Objects.requireNonNull(d, name);
    if (d.isNegative()) {
      throw new IllegalArgumentException(name + " must not be negative, got " + d);
    }
  }

  @Override
  public String toString() {
    return "Fault[status="
        + status
        + ", subStatus="
        + subStatus
        + ", retryAfter="
        + retryAfter
        + ", latency="
        + latency
        + (spread == 0 ? "" : " ± " + Math.round(spread * 100) + " %")
        + ", times="
        + (times == UNLIMITED ? "unlimited" : times)
        + "]";
  }
}
