package io.idemworker.proof.chaos;

import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusMessageBatch;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import com.azure.messaging.servicebus.models.CreateMessageBatchOptions;
import io.idemworker.orders.OrderMessageTypes;
import io.idemworker.proof.producer.DemoLifecycle;
import io.idemworker.proof.producer.DemoPayments;
import io.idemworker.proof.producer.DemoScenario;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * The chaos run's producer: sends a {@link DemoScenario} (the demo's seeded producer ledger:
 * orders, credits, status changes, payment requests, poison, key reuse) in waves, so that the
 * messages of an order follow it as it lands, with a duplicate from every source the producer
 * controls. Each message sent is counted by kind and by duplicate source for the report; the
 * scenario itself is the audit's expectation.
 *
 * <p>A step sends, for wave {@code s}: its orders (some twice at once: a producer retry inside the
 * broker's window), the credits, status version 3 and payment requests of the orders of wave {@code
 * s-2} (the first copy of each concurrent pair last); then the broker's clock moves past the
 * duplicate-detection window and the step sends the second copies of the concurrent pairs (two
 * copies a worker each may take at the same time), the orders of wave {@code s-1} again (past the
 * window), and, for older waves, credits again, status version 2 (after 3: out of order), the
 * reused order ids (another body) and reused payment keys (another amount).
 *
 * <p>Another source (an HTTP client that retries, a webhook sender) is one more {@link Source} and
 * one more list in {@link #step}; its sends are counted the same way.
 *
 * <p>Not thread-safe: one thread drives it; the counters may be read from any thread.
 */
final class ChaosProducer {

  /** Where a copy of a message comes from. */
  enum Source {
    ORIGINAL("first copy"),
    PRODUCER_RETRY("producer retry inside the duplicate-detection window (broker drops it)"),
    SEND_RETRY("producer re-send after a failed send (connection dropped)"),
    PAST_WINDOW("producer re-send past the duplicate-detection window"),
    CONCURRENT("concurrent copy (second copy past the window, sent back to back)"),
    HTTP_AND_QUEUE("queue copy of an order also posted over HTTP (one order either way)"),
    DLQ_RESUBMIT(
        "refused copy resubmitted from the dead-letter queue after the drain (must be refused"
            + " again)"),
    KEY_REUSE("key reused with another body (must dead-letter IdempotencyConflict)"),
    POISON("poison (must dead-letter with its reason)");

    final String label;

    Source(String label) {
      this.label = label;
    }
  }

  /** Lag, in waves, of the messages that need their order (or their first copy) to have landed. */
  private static final int LIFECYCLE_LAG = 2;

  private static final int LATE_LAG = 3;
  private static final int REUSE_LAG = 4;

  private final DemoScenario scenario;
  private final int waves;
  private final Map<String, Integer> waveOf = new HashMap<>();
  private final Set<String> producerRetries;

  /** Orders of the first wave posted over HTTP (one in {@link #HTTP_EVERY}), with their hazard. */
  private final Map<String, ChaosHttp.Hazard> http = new HashMap<>();

  /** Of these, the ones also sent on the queue. */
  private final Set<String> httpAndQueue = new java.util.HashSet<>();

  static final int HTTP_EVERY = 14;
  private final Map<String, AtomicLong> byKind = new LinkedHashMap<>();
  private final Map<Source, AtomicLong> bySource = new LinkedHashMap<>();
  private final AtomicLong sent = new AtomicLong();

  ChaosProducer(DemoScenario scenario, int waves) {
    this.scenario = scenario;
    this.waves = waves;
    this.producerRetries = Set.copyOf(scenario.producerRetries);
    List<String> first = scenario.firstWave;
    for (int i = 0; i < first.size(); i++) {
      waveOf.put(first.get(i), (int) ((long) i * waves / first.size()));
    }
    ChaosHttp.Hazard[] hazards = ChaosHttp.Hazard.values();
    for (int i = 3, j = 0; i < first.size(); i += HTTP_EVERY, j++) {
      http.put(first.get(i), hazards[j % hazards.length]);
      if (j % 3 == 1) {
        httpAndQueue.add(first.get(i));
      }
    }
    List<String> pairs = scenario.concurrentCopies;
    for (int i = 0; i < pairs.size(); i++) {
      waveOf.put(pairs.get(i), (int) ((long) i * waves / pairs.size()));
    }
    for (String kind :
        List.of(
            OrderMessageTypes.SUBJECTS.get(0),
            OrderMessageTypes.ORDER_CREDITED,
            OrderMessageTypes.ORDER_STATUS_CHANGED,
            OrderMessageTypes.PAYMENT_CAPTURE_REQUESTED,
            "poison")) {
      byKind.put(kind, new AtomicLong());
    }
    for (Source source : Source.values()) {
      bySource.put(source, new AtomicLong());
    }
  }

  /** Orders the run posts over HTTP. */
  int httpOrders() {
    return http.size();
  }

  /** Steps in all: the waves, then the lagged messages of the last waves. */
  int steps() {
    return waves + REUSE_LAG + 1;
  }

  /**
   * What one step sends before and after the broker's clock moves past the window, the orders it
   * posts over HTTP (with the first list), and the orders posted over HTTP in earlier steps whose
   * answers must have come before this step sends anything: those of wave {@code s-2}, whose
   * credits, statuses and payments this step sends (and whose reused ids and payment keys later
   * steps send). Sent before the order exists, a dependent spends its deliveries as {@code NOT_YET}
   * and a reused id becomes the order: the run's expectation would no longer hold.
   */
  record Step(
      List<Tagged> beforeAdvance,
      List<Tagged> afterAdvance,
      List<ChaosHttp.Order> http,
      List<String> httpAnsweredFirst) {}

  /** A message with its kind and source. */
  record Tagged(String kind, Source source, ServiceBusMessage message) {}

  Step step(int s) {
    List<Tagged> before = new ArrayList<>();
    List<Tagged> after = new ArrayList<>();
    List<ChaosHttp.Order> posts = new ArrayList<>();
    String orderPlaced = OrderMessageTypes.SUBJECTS.get(0);
    for (String orderId : inWave(scenario.firstWave, s)) {
      ChaosHttp.Hazard hazard = http.get(orderId);
      if (hazard != null) {
        posts.add(new ChaosHttp.Order(orderId, scenario.orders.get(orderId), hazard));
        if (httpAndQueue.contains(orderId)) {
          before.add(new Tagged(orderPlaced, Source.HTTP_AND_QUEUE, scenario.message(orderId)));
        }
        continue;
      }
      before.add(new Tagged(orderPlaced, Source.ORIGINAL, scenario.message(orderId)));
      if (producerRetries.contains(orderId)) {
        before.add(new Tagged(orderPlaced, Source.PRODUCER_RETRY, scenario.message(orderId)));
      }
    }
    for (String orderId : inWave(scenario.concurrentCopies, s)) {
      before.add(new Tagged(orderPlaced, Source.ORIGINAL, scenario.message(orderId)));
      after.add(new Tagged(orderPlaced, Source.CONCURRENT, scenario.message(orderId)));
    }
    if (s == waves / 2) {
      scenario.poisons.forEach(p -> before.add(new Tagged("poison", Source.POISON, p.message())));
    }
    if (s == 0) {
      before.add(
          new Tagged(
              OrderMessageTypes.ORDER_STATUS_CHANGED,
              Source.ORIGINAL,
              DemoLifecycle.status(scenario.lifecycle.neverPlaced, 1, "Confirmed")));
    }
    lifecycle(s - LIFECYCLE_LAG, before, after);
    for (String orderId : inWave(scenario.lateResends, s - 1)) {
      after.add(new Tagged(orderPlaced, Source.PAST_WINDOW, scenario.message(orderId)));
    }
    for (String orderId : inWave(scenario.conflicts, s - REUSE_LAG)) {
      after.add(new Tagged(orderPlaced, Source.KEY_REUSE, scenario.conflicting(orderId)));
    }
    String credited = OrderMessageTypes.ORDER_CREDITED;
    String status = OrderMessageTypes.ORDER_STATUS_CHANGED;
    for (DemoLifecycle.Credit c : scenario.lifecycle.credits) {
      if (c.source() == DemoLifecycle.Source.LATE_RESEND && waveOf(c.orderId()) == s - LATE_LAG) {
        after.add(new Tagged(credited, Source.PAST_WINDOW, DemoLifecycle.credit(c)));
      }
    }
    for (String orderId : inWave(scenario.lifecycle.statusOrders, s - LATE_LAG)) {
      after.add(new Tagged(status, Source.ORIGINAL, DemoLifecycle.status(orderId, 2, "Packed")));
    }
    for (DemoPayments.Request r : scenario.payments.reusedKeys) {
      if (waveOf(r.orderId()) == s - REUSE_LAG) {
        after.add(
            new Tagged(
                OrderMessageTypes.PAYMENT_CAPTURE_REQUESTED,
                Source.KEY_REUSE,
                DemoPayments.message(r)));
      }
    }
    List<String> answeredFirst =
        inWave(scenario.firstWave, s - LIFECYCLE_LAG).stream().filter(http::containsKey).toList();
    return new Step(before, after, posts, answeredFirst);
  }

  /** Credits, wrong currencies, status 3 and payments of the orders of wave {@code w}. */
  private void lifecycle(int w, List<Tagged> before, List<Tagged> after) {
    String credited = OrderMessageTypes.ORDER_CREDITED;
    String payment = OrderMessageTypes.PAYMENT_CAPTURE_REQUESTED;
    List<Tagged> pairsFirst = new ArrayList<>();
    for (DemoLifecycle.Credit c : scenario.lifecycle.credits) {
      if (waveOf(c.orderId()) != w) {
        continue;
      }
      if (c.source() == DemoLifecycle.Source.CONCURRENT) {
        pairsFirst.add(new Tagged(credited, Source.ORIGINAL, DemoLifecycle.credit(c)));
        after.add(new Tagged(credited, Source.CONCURRENT, DemoLifecycle.credit(c)));
        continue;
      }
      before.add(new Tagged(credited, Source.ORIGINAL, DemoLifecycle.credit(c)));
      if (c.source() == DemoLifecycle.Source.PRODUCER_RETRY) {
        before.add(new Tagged(credited, Source.PRODUCER_RETRY, DemoLifecycle.credit(c)));
      }
    }
    for (DemoLifecycle.Credit c : scenario.lifecycle.wrongCurrency) {
      if (waveOf(c.orderId()) == w) {
        before.add(new Tagged(credited, Source.POISON, DemoLifecycle.credit(c)));
      }
    }
    for (String orderId : inWave(scenario.lifecycle.statusOrders, w)) {
      before.add(
          new Tagged(
              OrderMessageTypes.ORDER_STATUS_CHANGED,
              Source.ORIGINAL,
              DemoLifecycle.status(orderId, 3, "Shipped")));
    }
    for (DemoPayments.Request r : scenario.payments.requests) {
      if (waveOf(r.orderId()) != w) {
        continue;
      }
      Tagged first = new Tagged(payment, Source.ORIGINAL, DemoPayments.message(r));
      if (r.hazard() == DemoPayments.Hazard.CONCURRENT) {
        pairsFirst.add(first);
        after.add(new Tagged(payment, Source.CONCURRENT, DemoPayments.message(r)));
      } else {
        before.add(first);
      }
    }
    before.addAll(pairsFirst);
  }

  private List<String> inWave(List<String> orderIds, int w) {
    if (w < 0 || w >= waves) {
      return List.of();
    }
    return orderIds.stream().filter(id -> waveOf(id) == w).toList();
  }

  private int waveOf(String orderId) {
    return waveOf.getOrDefault(orderId, -1);
  }

  /**
   * Sends messages in as few batches as fit, re-sending a batch whose send failed (same message
   * ids: inside the window the broker drops a copy that had arrived).
   *
   * @param sender the queue's sender
   * @param messages what to send, in order
   * @param retryFor how long a failing send is retried
   * @throws IllegalStateException when a batch could not be sent within {@code retryFor}
   */
  void send(ServiceBusSenderClient sender, List<Tagged> messages, Duration retryFor)
      throws InterruptedException {
    int from = 0;
    while (from < messages.size()) {
      int to = from;
      ServiceBusMessageBatch batch = batch(sender, retryFor);
      while (to < messages.size()
          && to - from < 200
          && batch.tryAddMessage(messages.get(to).message())) {
        to++;
      }
      if (to == from) {
        throw new IllegalStateException("a message does not fit an empty batch");
      }
      sendBatch(sender, messages.subList(from, to), retryFor);
      for (Tagged t : messages.subList(from, to)) {
        byKind.get(t.kind()).incrementAndGet();
        bySource.get(t.source()).incrementAndGet();
        sent.incrementAndGet();
      }
      from = to;
    }
  }

  private ServiceBusMessageBatch batch(ServiceBusSenderClient sender, Duration retryFor)
      throws InterruptedException {
    return retrying(() -> sender.createMessageBatch(new CreateMessageBatchOptions()), retryFor);
  }

  private void sendBatch(ServiceBusSenderClient sender, List<Tagged> messages, Duration retryFor)
      throws InterruptedException {
    retrying(
        () -> {
          ServiceBusMessageBatch batch = sender.createMessageBatch();
          for (Tagged t : messages) {
            batch.tryAddMessage(t.message());
          }
          sender.sendMessages(batch);
          return messages.size();
        },
        retryFor,
        "the producer could not send for " + retryFor,
        () -> {
          // The same message ids go again: a producer re-send after a failed send.
          bySource.get(Source.SEND_RETRY).addAndGet(messages.size());
          sent.addAndGet(messages.size());
        });
  }

  private static <T> T retrying(java.util.function.Supplier<T> call, Duration retryFor)
      throws InterruptedException {
    return retrying(call, retryFor, "the producer could not reach the broker", () -> {});
  }

  /** Calls until it succeeds, pausing 200 ms after each failure (told to {@code onRetry}). */
  private static <T> T retrying(
      java.util.function.Supplier<T> call, Duration retryFor, String giveUp, Runnable onRetry)
      throws InterruptedException {
    long deadline = System.nanoTime() + retryFor.toNanos();
    while (true) {
      try {
        return call.get();
      } catch (RuntimeException e) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(giveUp, e);
        }
        onRetry.run();
        Thread.sleep(200);
      }
    }
  }

  /** Counts messages another part of the run sent on the queue (dead-letter resubmission). */
  void count(Source source, long n) {
    bySource.get(source).addAndGet(n);
    sent.addAndGet(n);
  }

  long sent() {
    return sent.get();
  }

  Map<String, Long> byKind() {
    return snapshot(byKind, Function.identity());
  }

  Map<String, Long> bySource() {
    return snapshot(bySource, Source::name);
  }

  private static <K> Map<String, Long> snapshot(
      Map<K, AtomicLong> counts, Function<K, String> name) {
    Map<String, Long> out = new LinkedHashMap<>();
    counts.forEach((k, v) -> out.put(name.apply(k), v.get()));
    return out;
  }
}
