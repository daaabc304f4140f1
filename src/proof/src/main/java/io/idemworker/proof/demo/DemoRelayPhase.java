package io.idemworker.proof.demo;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.models.CosmosPatchOperations;
import com.azure.cosmos.models.PartitionKey;
import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.fasterxml.jackson.databind.JsonNode;
import io.idemworker.app.ConsumerWorkers;
import io.idemworker.app.Wiring;
import io.idemworker.consumers.CustomerConsumers;
import io.idemworker.core.DeliveryObserver;
import io.idemworker.core.IncomingMessage;
import io.idemworker.core.Outcome;
import io.idemworker.cosmos.StoreCallListener;
import io.idemworker.emulator.servicebus.ServiceBusEmulator;
import io.idemworker.proof.emulators.AdjustableClock;
import io.idemworker.proof.emulators.EventTopic;
import io.idemworker.relay.OutboxRelay;
import io.idemworker.relay.RelayListener;
import io.idemworker.relay.RelaySettings;
import io.idemworker.servicebus.ProcessorSettings;
import io.idemworker.servicebus.ServiceBusConnection;
import io.idemworker.servicebus.processor.ServiceBusWorker;
import java.io.PrintStream;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * Phase 6 of the demo: the outbox relay publishes every outbox event of the orders container to the
 * topic {@code order-events}, the {@code loyalty} and {@code customer-stats} consumers apply the
 * {@code OrderAccepted} events to the {@code customers} container, and the relay re-publishes a few
 * events as after a crash between send and checkpoint: inside the topic's duplicate-detection
 * window (the broker drops them) and past it (the consumers take them as duplicates).
 *
 * <p>Not thread-safe; one phase per demo run.
 */
final class DemoRelayPhase {
  static final String ORDER_ACCEPTED = CustomerConsumers.ORDER_ACCEPTED;

  /** How many events are re-sent inside the window, and how many past it. */
  static final int RESENDS = 3;

  private final PrintStream out;
  private final Duration timeout;
  private final int concurrency;

  DemoRelayPhase(PrintStream out, Duration timeout, int concurrency) {
    this.out = out;
    this.timeout = timeout;
    this.concurrency = concurrency;
  }

  /**
   * The topic's duplicate-detection window for a phase whose waits are bounded by {@code timeout}:
   * longer than everything the phase waits for between an event's first send and its re-send inside
   * the window (the relay catching up, both consumers, the re-send's catch-up), so that re-send
   * falls inside it however slow the machine is; a phase that overruns its waits fails its own
   * check instead. The queue's window is shorter: its repeats are sent back to back.
   */
  static Duration topicWindow(Duration timeout) {
    return timeout.multipliedBy(4).plus(DemoCommand.DUPLICATE_WINDOW);
  }

  /** What the phase did, for the summary and the audit. */
  record Result(
      boolean settled,
      long published,
      long relayRepublished,
      List<String> resentInsideWindow,
      List<String> resentPastWindow,
      Map<CustomerConsumers.Role, Counts> consumers,
      CosmosContainer customers) {}

  /** A consumer's outcomes. Thread-safe. */
  static final class Counts implements DeliveryObserver {
    final AtomicLong processed = new AtomicLong();
    final AtomicLong duplicates = new AtomicLong();
    final AtomicLong other = new AtomicLong();

    @Override
    public Observation start(IncomingMessage message) {
      return (outcome, elapsed, settled) -> {
        if (outcome instanceof Outcome.Processed) {
          processed.incrementAndGet();
        } else if (outcome instanceof Outcome.Duplicate) {
          duplicates.incrementAndGet();
        } else {
          other.incrementAndGet();
        }
        synchronized (this) {
          notifyAll();
        }
      };
    }

    synchronized boolean await(Predicate<Counts> done, Duration timeout)
        throws InterruptedException {
      long deadline = System.nanoTime() + timeout.toNanos();
      while (!done.test(this)) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        TimeUnit.NANOSECONDS.timedWait(this, left);
      }
      return true;
    }

    @Override
    public String toString() {
      return processed + " processed, " + duplicates + " duplicates, " + other + " other";
    }
  }

  /**
   * Runs the phase: consumers and relay start, the relay catches up, then the re-sends.
   *
   * @param outbox the outbox events of the orders container, as the audit reads them
   */
  Result run(
      ServiceBusEmulator serviceBus,
      AdjustableClock brokerClock,
      CosmosClient cosmosClient,
      CosmosContainer orders,
      List<JsonNode> outbox)
      throws InterruptedException {
    out.printf(
        "phase 6: outbox relay to topic %s, consumers %s and %s on their subscriptions, re-sends inside and past the window%n",
        EventTopic.NAME, EventTopic.ROLES.get(0).roleName(), EventTopic.ROLES.get(1).roleName());
    CosmosContainer customers = ConsumerWorkers.customers(cosmosClient, "idemworker");
    Map<CustomerConsumers.Role, Counts> counts = new EnumMap<>(CustomerConsumers.Role.class);
    List<ServiceBusWorker> workers = new ArrayList<>();
    for (CustomerConsumers.Role role : EventTopic.ROLES) {
      Counts observer = new Counts();
      counts.put(role, observer);
      workers.add(
          ConsumerWorkers.worker(
              role,
              new ServiceBusConnection.ConnectionString(serviceBus.connectionString()),
              ProcessorSettings.defaults(
                      new ProcessorSettings.Subscription(EventTopic.NAME, role.roleName()))
                  .withMaxConcurrentCalls(concurrency)
                  .withMaxRetryBackoff(Duration.ofMillis(200)),
              customers,
              Optional.of(DemoCommand.MARKER_TTL),
              DemoCommand.MAX_DELIVERY_COUNT,
              StoreCallListener.none(),
              observer,
              Clock.systemUTC()));
    }
    AtomicLong published = new AtomicLong();
    AtomicLong republished = new AtomicLong();
    RelayListener listener =
        new RelayListener() {
          @Override
          public void published(String eventType, int count, int again) {
            published.addAndGet(count);
            republished.addAndGet(again);
          }

          @Override
          public void publishFailed(String reason, int count) {}
        };
    List<String> accepted =
        outbox.stream()
            .filter(e -> ORDER_ACCEPTED.equals(e.path("eventType").asText()))
            .map(e -> e.path("id").asText())
            .toList();
    List<JsonNode> acceptedEvents =
        outbox.stream().filter(e -> ORDER_ACCEPTED.equals(e.path("eventType").asText())).toList();
    List<JsonNode> insideWindow = acceptedEvents.subList(0, Math.min(RESENDS, accepted.size()));
    List<JsonNode> pastWindow =
        acceptedEvents.subList(insideWindow.size(), Math.min(2 * RESENDS, accepted.size()));
    ScheduledExecutorService executor = Wiring.relayExecutor();
    boolean settled;
    try (OutboxRelay relay =
        OutboxRelay.create(
            orders,
            new ServiceBusClientBuilder()
                .connectionString(serviceBus.connectionString())
                .sender()
                .topicName(EventTopic.NAME)
                .buildClient(),
            new RelaySettings(
                EventTopic.NAME,
                "demo-relay",
                Duration.ofSeconds(30),
                Duration.ofDays(1),
                100,
                Duration.ofMillis(250)),
            listener,
            Clock.systemUTC(),
            executor)) {
      workers.forEach(ServiceBusWorker::start);
      relay.start();
      settled = relay.awaitCaughtUp(timeout);
      settled &= awaitConsumers(counts, c -> c.processed.get() >= accepted.size());

      // A crash between send and checkpoint, inside the window: the relay sends again, the broker
      // drops.
      markPending(orders, insideWindow);
      settled &= relay.awaitCaughtUp(timeout);

      Duration window = topicWindow(timeout);
      out.printf(
          "phase 6b: %s later (past the topic's window): %d more events sent again as if the checkpoint had not moved, re-published%n",
          window, pastWindow.size());
      brokerClock.advance(window.plusSeconds(1));
      serviceBus.evaluateExpiries();
      markPending(orders, pastWindow);
      settled &= relay.awaitCaughtUp(timeout);
      settled &= awaitConsumers(counts, c -> c.duplicates.get() >= pastWindow.size());
    } finally {
      workers.forEach(worker -> worker.shutdown(Duration.ofSeconds(10)));
      executor.shutdownNow();
    }
    return new Result(
        settled,
        published.get(),
        republished.get(),
        ids(insideWindow),
        ids(pastWindow),
        counts,
        customers);
  }

  private boolean awaitConsumers(Map<CustomerConsumers.Role, Counts> counts, Predicate<Counts> done)
      throws InterruptedException {
    boolean settled = true;
    for (Counts c : counts.values()) {
      settled &= c.await(done, timeout);
    }
    return settled;
  }

  /**
   * What a relay that crashed after the send and before the checkpoint leaves behind: the events
   * come back through the change feed (any change to an event does).
   */
  private static void markPending(CosmosContainer orders, List<JsonNode> events) {
    for (JsonNode event : events) {
      orders.patchItem(
          event.path("id").asText(),
          new PartitionKey(event.path("orderId").asText()),
          CosmosPatchOperations.create().set("/status", "pending"),
          JsonNode.class);
    }
  }

  private static List<String> ids(List<JsonNode> events) {
    return events.stream().map(e -> e.path("id").asText()).toList();
  }

  /** The summary lines of the phase. */
  void summary(Result result) {
    out.println();
    out.println("Outbox relay and topic consumers");
    out.printf(
        "  relay published %d events to %s (%d re-sent as after a crash between send and checkpoint: %d inside the window, %d past it)%n",
        result.published(),
        EventTopic.NAME,
        result.resentInsideWindow().size() + result.resentPastWindow().size(),
        result.resentInsideWindow().size(),
        result.resentPastWindow().size());
    result.consumers().forEach((role, c) -> out.printf("  %-15s %s%n", role.roleName(), c));
  }
}
