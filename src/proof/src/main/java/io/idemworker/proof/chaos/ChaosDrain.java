package io.idemworker.proof.chaos;

import io.idemworker.core.IdempotencyKey;
import io.idemworker.orders.OrderDocumentIds;
import io.idemworker.proof.emulators.EventTopic;
import io.idemworker.proof.producer.DemoScenario;
import io.idemworker.servicebus.deadletter.DeadLetterReader;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The chaos run's waits on the workers: the producer's back-pressure ({@link #awaitBacklog}) and
 * the drain before the audit ({@link #drain}).
 *
 * <p>The drain waits for every expected outbox event (each order's {@code OrderAccepted}, each
 * payment request's {@code PaymentCaptured}/{@code PaymentDeclined}) to reach the topic. An event
 * whose message was dead-lettered for a reason of its own (not {@code IdempotencyConflict}, which a
 * reused key's copy gets while the original still takes effect) will never come: once the queue and
 * the subscriptions are empty, the drain reads the queue's dead-letter queue and stops waiting for
 * those events, and says how many. That hides nothing: the audit compares the stores with what the
 * producer sent, so a payment request or an order that did not take effect is still counted lost
 * and its dead-letter wrong.
 *
 * <p>Not thread-safe: the chaos loop's thread drives it.
 */
final class ChaosDrain {
  /** How far a peek counts for the progress line (the emulator's count is exact). */
  private static final int PRINTED = 1000;

  /** Between two reads of the dead-letter queue while only dead-lettered events are missing. */
  private static final long DLQ_READ_NANOS = 5_000_000_000L;

  private final ChaosBroker broker;
  private final WorkerFleet fleet;
  private final PrintStream log;
  private final Map<String, String> eventOfMessage;
  private final Set<String> released = new LinkedHashSet<>();

  /**
   * Waits on the run's broker and workers for what {@code scenario} expects.
   *
   * @param broker the run's broker (the emulator's unsettled counts, or peeks)
   * @param fleet the worker processes (one that exits by itself ends a wait)
   * @param scenario what the producer sends: the expected events
   * @param log where progress goes
   */
  ChaosDrain(ChaosBroker broker, WorkerFleet fleet, DemoScenario scenario, PrintStream log) {
    this.broker = broker;
    this.fleet = fleet;
    this.log = log;
    this.eventOfMessage = eventOfMessage(scenario);
  }

  /** The id of each expected outbox event, by the message id whose effect writes it. */
  static Map<String, String> eventOfMessage(DemoScenario scenario) {
    Map<String, String> ids = new LinkedHashMap<>();
    scenario
        .orders
        .keySet()
        .forEach(id -> ids.put(id, OrderDocumentIds.outboxEvent(new IdempotencyKey(id))));
    scenario.payments.requests.forEach(r -> ids.put(r.paymentRequestId(), r.eventId()));
    return ids;
  }

  /** Expected events the drain stopped waiting for: their message was dead-lettered. */
  Set<String> released() {
    return Set.copyOf(released);
  }

  /**
   * Waits until the queue holds at most {@code limit} unsettled messages, so that the producer
   * stays ahead of the workers by about one wave.
   *
   * @return false when the deadline passed or a worker exited by itself
   */
  boolean awaitBacklog(int limit, long deadline) throws InterruptedException {
    while (broker.unsettled(ChaosCommand.QUEUE, limit) > limit) {
      if (System.nanoTime() > deadline || !alive()) {
        return false;
      }
      Thread.sleep(broker.pollMillis());
    }
    return true;
  }

  /**
   * Waits until the queue and the consumers' subscriptions are empty and every expected event not
   * released (see the class comment) has reached the audit subscription, three times in a row, 300
   * ms apart.
   *
   * @param events what the topic's audit subscription received
   * @param deadLetters reads the queue's dead-letter queue
   * @return false when the deadline passed or a worker exited by itself
   */
  boolean drain(
      EventTap events, Supplier<List<DeadLetterReader.DeadLetter>> deadLetters, long deadline)
      throws InterruptedException {
    Set<String> expected = new LinkedHashSet<>(eventOfMessage.values());
    int quiet = 0;
    long lastPrint = System.nanoTime();
    long lastDlqRead = 0;
    while (quiet < 3) {
      if (System.nanoTime() > deadline || !alive()) {
        return false;
      }
      boolean print = System.nanoTime() - lastPrint > 5_000_000_000L;
      // A peek counts only as far as asked: whether anything is left, or the printed figure.
      int bound = print ? PRINTED : 0;
      long queue = broker.unsettled(ChaosCommand.QUEUE, bound);
      long consumers = 0;
      for (String role : EventTopic.CONSUMERS) {
        consumers += broker.unsettled(EventTopic.NAME + "/Subscriptions/" + role, bound);
      }
      long missing = events.missing(expected);
      if (queue == 0
          && consumers == 0
          && missing > 0
          && System.nanoTime() - lastDlqRead > DLQ_READ_NANOS) {
        lastDlqRead = System.nanoTime();
        if (release(deadLetters.get(), expected)) {
          missing = events.missing(expected);
        }
      }
      quiet = queue == 0 && consumers == 0 && missing == 0 ? quiet + 1 : 0;
      if (print) {
        lastPrint = System.nanoTime();
        log.printf(
            "  draining: queue %d, consumer subscriptions %d, events not yet on the topic %d%s%n",
            queue,
            consumers,
            missing,
            released.isEmpty()
                ? ""
                : " (" + released.size() + " no longer awaited: their message was dead-lettered)");
      }
      Thread.sleep(Math.max(300, broker.pollMillis()));
    }
    return true;
  }

  /** Stops waiting for the events of messages dead-lettered for a reason of their own. */
  private boolean release(List<DeadLetterReader.DeadLetter> deadLetters, Set<String> expected) {
    boolean any = false;
    for (DeadLetterReader.DeadLetter d : deadLetters) {
      if (d.reason().equals("IdempotencyConflict") || d.messageId().isEmpty()) {
        continue;
      }
      String event = eventOfMessage.get(d.messageId().get());
      if (event != null && expected.remove(event)) {
        released.add(event);
        any = true;
      }
    }
    return any;
  }

  private boolean alive() {
    List<String> dead = fleet.dead();
    if (!dead.isEmpty()) {
      log.println("worker processes exited by themselves: " + dead + "; see " + fleet.logDir());
      return false;
    }
    return true;
  }
}
