package io.idemworker.proof.demo;

import io.idemworker.core.DeliveryObserver;
import io.idemworker.core.IncomingMessage;
import io.idemworker.core.Outcome;
import io.idemworker.cosmos.StoreCallListener;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * Records every delivery of the demo, with the store round trips and request units it cost: the
 * observer and the store listener run on the same processing thread, so a thread-local attributes
 * each Cosmos DB call to the delivery being handled.
 */
final class DemoTally {

  /** One finished delivery. */
  record Delivery(
      String instance,
      IncomingMessage message,
      Outcome outcome,
      boolean settled,
      int roundTrips,
      double requestCharge,
      long startedNanos,
      long finishedNanos) {}

  private static final class Cost {
    int roundTrips;
    double requestCharge;
  }

  private final ThreadLocal<Cost> current = new ThreadLocal<>();
  private final List<Delivery> deliveries = new ArrayList<>();
  private int inFlight;

  DeliveryObserver observer(String instance) {
    return message -> {
      long started = System.nanoTime();
      Cost cost = new Cost();
      current.set(cost);
      synchronized (deliveries) {
        inFlight++;
      }
      return (outcome, elapsed, settled) -> {
        current.remove();
        synchronized (deliveries) {
          inFlight--;
          deliveries.add(
              new Delivery(
                  instance,
                  message,
                  outcome,
                  settled,
                  cost.roundTrips,
                  cost.requestCharge,
                  started,
                  System.nanoTime()));
          deliveries.notifyAll();
        }
      };
    };
  }

  StoreCallListener storeListener() {
    return (operation, statusCode, requestCharge, latency) -> {
      Cost cost = current.get();
      if (cost != null) {
        cost.roundTrips++;
        cost.requestCharge += requestCharge;
      }
    };
  }

  List<Delivery> deliveries() {
    synchronized (deliveries) {
      return List.copyOf(deliveries);
    }
  }

  long count(Predicate<Delivery> matching) {
    synchronized (deliveries) {
      return deliveries.stream().filter(matching).count();
    }
  }

  /**
   * Waits until the condition holds over the deliveries and nothing is in flight.
   *
   * @return true if it held before the timeout
   */
  boolean awaitQuiet(Predicate<List<Delivery>> condition, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (deliveries) {
      while (!(inFlight == 0 && condition.test(deliveries))) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        java.util.concurrent.TimeUnit.NANOSECONDS.timedWait(
            deliveries, Math.min(left, 200_000_000L));
      }
      return true;
    }
  }
}
