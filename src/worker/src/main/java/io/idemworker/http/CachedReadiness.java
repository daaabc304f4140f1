package io.idemworker.http;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * A readiness check that may block (a store round trip), answered without blocking: the probe gets
 * the last result at once and, when that is older than the refresh interval, starts one check in
 * the background. A check that has not completed for the stale limit makes the api not ready, so a
 * store that hangs is reported rather than hidden behind an old success. The first check runs in
 * the constructor. Thread-safe.
 */
final class CachedReadiness implements Supplier<Optional<String>>, AutoCloseable {
  private final Supplier<Optional<String>> check;
  private final long refreshNanos;
  private final long staleNanos;
  private final LongSupplier nanoTime;
  private final ExecutorService checker =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread thread = new Thread(r, "api-readiness");
            thread.setDaemon(true);
            return thread;
          });
  private final AtomicBoolean checking = new AtomicBoolean();
  private volatile Optional<String> last;
  private volatile long checkedAt;

  /**
   * Runs the first check.
   *
   * @param check empty when ready, else why not; may block
   * @param refresh how old a result may be before a probe starts a new check
   * @param stale how old a result may be before the api is reported not ready
   * @param nanoTime the clock, {@link System#nanoTime} outside tests
   */
  CachedReadiness(
      Supplier<Optional<String>> check, Duration refresh, Duration stale, LongSupplier nanoTime) {
    this.check = Objects.requireNonNull(check, "check");
    this.refreshNanos = refresh.toNanos();
    this.staleNanos = stale.toNanos();
    this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
    this.last = run();
    this.checkedAt = nanoTime.getAsLong();
  }

  @Override
  public Optional<String> get() {
    long age = nanoTime.getAsLong() - checkedAt;
    if (age >= refreshNanos && checking.compareAndSet(false, true)) {
      try {
        checker.execute(
            () -> {
              try {
                last = run();
                checkedAt = nanoTime.getAsLong();
              } finally {
                checking.set(false);
              }
            });
      } catch (RejectedExecutionException closed) {
        checking.set(false);
      }
    }
    if (age >= staleNanos) {
      return Optional.of(
          "the readiness check has not completed for " + staleNanos / 1_000_000_000L + " s");
    }
    return last;
  }

  private Optional<String> run() {
    try {
      return check.get();
    } catch (RuntimeException e) {
      return Optional.of("readiness check failed: " + e.getClass().getSimpleName());
    }
  }

  @Override
  public void close() {
    checker.shutdownNow();
  }
}
