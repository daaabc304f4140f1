package io.idemworker.testing;

import io.idemworker.core.DeliveryObserver;
import io.idemworker.core.IncomingMessage;
import io.idemworker.core.Outcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/** Records every finished delivery and lets tests wait for outcomes with a bound, not a sleep. */
public final class RecordingObserver implements DeliveryObserver {

  /**
   * One finished delivery.
   *
   * @param message the delivery
   * @param outcome how it ended
   * @param settled whether its settlement succeeded
   */
  public record Finished(IncomingMessage message, Outcome outcome, boolean settled) {}

  private final List<Finished> finished = new ArrayList<>();

  @Override
  public Observation start(IncomingMessage message) {
    return (outcome, elapsed, settled) -> {
      synchronized (finished) {
        finished.add(new Finished(message, outcome, settled));
        finished.notifyAll();
      }
    };
  }

  /**
   * A copy of everything finished so far.
   *
   * @return the finished deliveries, in order
   */
  public List<Finished> finished() {
    synchronized (finished) {
      return List.copyOf(finished);
    }
  }

  /**
   * Waits until at least {@code count} finished deliveries match.
   *
   * @param count how many
   * @param matching which
   * @param timeout the bound
   * @return the matching deliveries
   * @throws AssertionError when the bound passes first
   */
  public List<Finished> await(int count, Predicate<Finished> matching, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (finished) {
      while (true) {
        List<Finished> matches = new ArrayList<>();
        for (Finished f : finished) {
          if (matching.test(f)) {
            matches.add(f);
          }
        }
        if (matches.size() >= count) {
          return matches;
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new AssertionError(
              "expected " + count + " matching deliveries within " + timeout + ", saw " + finished);
        }
        try {
          TimeUnit.NANOSECONDS.timedWait(finished, left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new AssertionError("interrupted", e);
        }
      }
    }
  }

  /**
   * Matches an outcome type.
   *
   * @param type the outcome class
   * @return the predicate
   */
  public static Predicate<Finished> is(Class<? extends Outcome> type) {
    return f -> type.isInstance(f.outcome());
  }
}
