package io.idemworker.proof.bench;

import io.idemworker.core.DeliveryObserver;
import io.idemworker.core.Outcome;
import io.idemworker.cosmos.StoreCallListener;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Collectors;

/**
 * Counts one bench run: every delivery with the store round trips and request units it cost (the
 * observer and the store listener run on the same processing thread, so a thread-local attributes
 * each Cosmos DB call to the delivery being handled, as the demo's tally does), and a latch that
 * opens when the expected number of deliveries has been settled with a final outcome.
 *
 * <p>Thread-safe; the hot path takes no lock.
 */
final class BenchTally {

  /** One finished delivery. */
  record Delivery(
      String messageId,
      long arrival,
      Outcome outcome,
      boolean settled,
      int roundTrips,
      double requestCharge,
      long finishedNanos) {

    boolean isFinal() {
      return settled && !(outcome instanceof Outcome.Retry);
    }
  }

  /** Round trips and request units of a kind of delivery. */
  record Costs(int deliveries, double roundTripsEach, double requestChargeEach) {
    static Costs of(List<Delivery> deliveries) {
      int trips = 0;
      double charge = 0;
      for (Delivery d : deliveries) {
        trips += d.roundTrips();
        charge += d.requestCharge();
      }
      int n = deliveries.size();
      return new Costs(
          n, n == 0 ? Double.NaN : (double) trips / n, n == 0 ? Double.NaN : charge / n);
    }
  }

  private static final class Cost {
    int roundTrips;
    double requestCharge;
  }

  private final ThreadLocal<Cost> current = new ThreadLocal<>();
  private final ConcurrentLinkedQueue<Delivery> deliveries = new ConcurrentLinkedQueue<>();
  private final AtomicLong arrivals = new AtomicLong();
  private final int expected;
  private final CountDownLatch done;
  private final ConcurrentHashMap<String, LongAdder[]> calls = new ConcurrentHashMap<>();

  BenchTally(int expectedDeliveries) {
    this.expected = expectedDeliveries;
    this.done = new CountDownLatch(expectedDeliveries);
  }

  DeliveryObserver observer() {
    return message -> {
      long arrival = arrivals.incrementAndGet();
      Cost cost = new Cost();
      current.set(cost);
      return (outcome, elapsed, settled) -> {
        current.remove();
        Delivery delivery =
            new Delivery(
                message.messageId().orElse(""),
                arrival,
                outcome,
                settled,
                cost.roundTrips,
                cost.requestCharge,
                System.nanoTime());
        deliveries.add(delivery);
        if (delivery.isFinal()) {
          done.countDown();
        }
      };
    };
  }

  StoreCallListener storeListener() {
    return (operation, statusCode, requestCharge, latency) -> {
      LongAdder[] call =
          calls.computeIfAbsent(
              operation + "/" + statusCode,
              k -> new LongAdder[] {new LongAdder(), new LongAdder()});
      call[0].increment();
      call[1].add(latency.toNanos());
      Cost cost = current.get();
      if (cost != null) {
        cost.roundTrips++;
        cost.requestCharge += requestCharge;
      }
    };
  }

  /**
   * The store calls by operation and status, with their count and mean latency, for reading where
   * the time went.
   *
   * @return e.g. {@code batch/200 2000 x 3.1 ms}
   */
  String storeCalls() {
    return new TreeMap<>(calls)
        .entrySet().stream()
            .map(
                e ->
                    String.format(
                        Locale.ROOT,
                        "%s %d x %.2f ms",
                        e.getKey(),
                        e.getValue()[0].sum(),
                        e.getValue()[1].sum() / 1e6 / Math.max(1, e.getValue()[0].sum())))
            .collect(Collectors.joining(", "));
  }

  /** How many of the expected deliveries have been settled with a final outcome so far. */
  long finished() {
    return expected - done.getCount();
  }

  boolean await(Duration timeout) throws InterruptedException {
    return done.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
  }

  List<Delivery> deliveries() {
    return List.copyOf(deliveries);
  }

  /** When the last final delivery finished. */
  long lastFinishedNanos() {
    return deliveries.stream()
        .filter(Delivery::isFinal)
        .mapToLong(Delivery::finishedNanos)
        .max()
        .orElse(System.nanoTime());
  }

  /**
   * Splits the final deliveries into first copies and later copies of a message id, in the order
   * they arrived at the consumer: how the naive consumer's deliveries are classified, since it
   * cannot tell them apart itself.
   *
   * @return the first copies, then the later copies
   */
  List<List<Delivery>> byCopy() {
    List<Delivery> sorted = new ArrayList<>(deliveries());
    sorted.removeIf(d -> !d.isFinal());
    sorted.sort(Comparator.comparingLong(Delivery::arrival));
    Set<String> seen = new HashSet<>();
    List<Delivery> first = new ArrayList<>();
    List<Delivery> later = new ArrayList<>();
    for (Delivery d : sorted) {
      (seen.add(d.messageId()) ? first : later).add(d);
    }
    return List.of(first, later);
  }
}
