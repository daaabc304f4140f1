package io.idemworker.proof.chaos;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosException;
import com.azure.cosmos.models.PartitionKey;
import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.cosmos.CosmosContainers;
import io.idemworker.emulator.cosmos.CosmosEmulator;
import io.idemworker.emulator.servicebus.QueueSettings;
import io.idemworker.emulator.servicebus.ServiceBusEmulator;
import io.idemworker.orders.OrderMessageTypes;
import io.idemworker.proof.emulators.AdjustableClock;
import io.idemworker.proof.emulators.LocalClients;
import io.idemworker.servicebus.Outgoing;
import io.idemworker.servicebus.ProducerKit;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * {@code chaos --sessions}: worker processes in session mode ({@code SERVICEBUS_SESSIONS=true})
 * under SIGKILLs, on the in-process emulators. Each order's messages are its {@code OrderPlaced},
 * then its status versions 1, 2, 3 and one credit in a shuffled order (so versions arrive early and
 * wait for their predecessor in the session), some copies back to back (the broker drops them) and
 * some again past the duplicate-detection window; they are sent in order per session and shuffled
 * across orders. The audit reads every order back: at version 3 ({@code Shipped}), its credit
 * applied exactly once, nothing dead-lettered, no gap given up. Poison, key reuse, payments, the
 * HTTP intake and the relay are left out: a dead-letter parks its order, which the full run's audit
 * does not model. Used once, from the command's thread.
 */
final class ChaosSessions {
  private static final String QUEUE = ChaosCommand.QUEUE;
  private static final Duration LOCK = Duration.ofMinutes(1);
  private static final long CREDIT_UNITS = 25_000;

  /** One message of the run, with the order (session) it belongs to. */
  private record Send(String orderId, String messageId, String subject, String body) {}

  private final PrintStream log;
  private final PrintStream out;
  private final boolean json;
  private final Consumer<CosmosContainer> tamper;

  /**
   * @param log progress
   * @param out the report
   * @param json the report as JSON
   * @param tamper for the tests: runs after the drain, before the audit, on the orders container
   */
  ChaosSessions(PrintStream log, PrintStream out, boolean json, Consumer<CosmosContainer> tamper) {
    this.log = log;
    this.out = out;
    this.json = json;
    this.tamper = tamper;
  }

  int run(int messages, int workers, int kills, long seed, Duration timeout, Path logs)
      throws Exception {
    Instant started = Instant.now();
    Random random = new Random(seed);
    int orderCount = Math.max(10, messages / 7);
    List<String> orders = new ArrayList<>();
    List<List<Send>> first = new ArrayList<>();
    List<List<Send>> late = new ArrayList<>();
    for (int i = 0; i < orderCount; i++) {
      String orderId = "ord-s" + seed + "-" + i;
      orders.add(orderId);
      List<Send> rest = new ArrayList<>();
      rest.add(status(orderId, 1, "Confirmed"));
      rest.add(status(orderId, 2, "Packed"));
      rest.add(status(orderId, 3, "Shipped"));
      rest.add(credit(orderId));
      Collections.shuffle(rest, random);
      List<Send> sequence = new ArrayList<>();
      List<Send> again = new ArrayList<>();
      for (Send send : Stream.concat(Stream.of(placed(orderId)), rest.stream()).toList()) {
        sequence.add(send);
        if (random.nextInt(5) == 0) {
          sequence.add(send); // a producer retry, dropped by duplicate detection
        }
        if (random.nextInt(5) == 0) {
          again.add(send); // sent again past the window: the worker's idempotency drops it
        }
      }
      first.add(sequence);
      late.add(again);
    }
    long early =
        first.stream()
            .filter(
                sequence -> {
                  List<String> statuses =
                      sequence.stream()
                          .filter(m -> m.subject.equals(OrderMessageTypes.ORDER_STATUS_CHANGED))
                          .map(Send::messageId)
                          .distinct()
                          .toList();
                  return !statuses.equals(statuses.stream().sorted().toList());
                })
            .count();
    List<Send> plan = interleave(first, random);
    List<Send> plan2 = interleave(late, random);
    int total = plan.size() + plan2.size();
    log.printf(
        "chaos --sessions: %d orders, %d messages (%d sent again past the window), %d workers,"
            + " %d SIGKILLs, seed %d%n",
        orderCount, total, plan2.size(), workers, kills, seed);

    AdjustableClock brokerClock = new AdjustableClock();
    try (ServiceBusEmulator serviceBus =
            ServiceBusEmulator.builder()
                .port(0)
                .clock(brokerClock)
                .queue(
                    QueueSettings.defaults(QUEUE)
                        .withRequiresSession(true)
                        .withRequiresDuplicateDetection(true)
                        .withDuplicateDetectionHistoryTimeWindow(ChaosCommand.WINDOW)
                        .withLockDuration(LOCK)
                        .withMaxDeliveryCount(10)
                        .withDefaultMessageTimeToLive(Duration.ofDays(1)))
                .start();
        CosmosEmulator cosmos = CosmosEmulator.builder().port(0).start();
        CosmosClient cosmosClient = LocalClients.cosmos(cosmos);
        ProducerKit sender =
            new ProducerKit(
                new ServiceBusClientBuilder()
                    .connectionString(serviceBus.connectionString())
                    .sender()
                    .queueName(QUEUE)
                    .buildClient(),
                5)) {
      CosmosContainer container =
          CosmosContainers.ensureExists(cosmosClient, ChaosCommand.DATABASE, QUEUE);
      Map<String, String> env =
          new java.util.HashMap<>(
              ChaosEnvironment.base(
                  serviceBus.connectionString(),
                  URI.create(cosmos.endpoint()),
                  cosmos.key(),
                  ChaosCommand.DATABASE));
      env.put("WORKER_ROLE", "orders");
      env.put("SERVICEBUS_QUEUE_NAME", QUEUE);
      env.put("COSMOS_CONTAINER", QUEUE);
      env.put("RELAY_ENABLED", "false");
      env.put("SERVICEBUS_SESSIONS", "true");
      env.put("WORKER_MAX_CONCURRENT_SESSIONS", "8");
      // Gaps fill by arrival only: a gap given up would hide an order applied out of order.
      env.put("WORKER_GAP_TIMEOUT", "P1D");
      int killed = 0;
      boolean drained;
      try (WorkerFleet fleet =
          new WorkerFleet(
              logs,
              Duration.ofSeconds(20),
              List.of("-DCOSMOS.EMULATOR_SERVER_CERTIFICATE_VALIDATION_DISABLED=true"))) {
        for (int w = 0; w < workers; w++) {
          fleet.start("worker-" + (w + 1), env);
        }
        // Half the kills while the first copies are sent, half while they are worked off (at
        // points of the queue's progress), so that kills land in the middle of sessions too.
        int whileSending = kills / 2;
        int every = whileSending == 0 ? Integer.MAX_VALUE : Math.max(1, plan.size() / whileSending);
        int sent = 0;
        for (Send send : plan) {
          send(sender, send);
          sent++;
          if (sent % every == 0 && killed < whileSending) {
            killed = kill(fleet, serviceBus, brokerClock, killed, workers, kills);
            log.printf("    at %d/%d sent%n", sent, total);
          }
        }
        int backlog = Math.max(1, serviceBus.messageCount(QUEUE));
        int rest = kills - killed;
        for (int k = 1; k <= rest; k++) {
          int threshold = backlog * (rest + 1 - k) / (rest + 1);
          Instant until = started.plus(timeout);
          while (serviceBus.messageCount(QUEUE) > threshold && Instant.now().isBefore(until)) {
            Thread.sleep(100); // polling an external count; nothing to wait on
          }
          killed = kill(fleet, serviceBus, brokerClock, killed, workers, kills);
          log.printf("    at %d of %d messages left%n", serviceBus.messageCount(QUEUE), backlog);
        }
        brokerClock.advance(ChaosCommand.WINDOW.plusSeconds(1));
        for (Send send : plan2) {
          send(sender, send);
        }
        log.println("  all sent; draining");
        drained = drain(serviceBus, started.plus(timeout));
      }
      tamper.accept(container);
      Audit audit = audit(container, orders, serviceBus.messageCount(QUEUE + "/$deadletterqueue"));
      long deferrals = countInLogs(logs, "deferred until version");
      long givenUp = countInLogs(logs, "gap given up");
      boolean ok =
          drained
              && audit.lost == 0
              && audit.doubled == 0
              && audit.deadLettered == 0
              && givenUp == 0;
      Duration took = Duration.between(started, Instant.now());
      if (json) {
        ObjectNode report = new ObjectMapper().createObjectNode();
        report.put("mode", "sessions");
        report.put("ok", ok);
        report.put("orders", orderCount);
        report.put("messages", total);
        report.put("sigkills", killed);
        report.put("drained", drained);
        report.put("lost", audit.lost);
        report.put("doubled", audit.doubled);
        report.put("deadLettered", audit.deadLettered);
        report.put("ordersWithAVersionSentEarly", early);
        report.put("deferrals", deferrals);
        report.put("gapsGivenUp", givenUp);
        report.put("seconds", took.toSeconds());
        out.println(report.toPrettyString());
      } else {
        out.printf(
            "chaos --sessions: %s%n  orders %d, messages %d, SIGKILLs %d, drained %s, %ds%n"
                + "  lost %d, doubled %d, dead-lettered %d, gaps given up %d; versions deferred"
                + " for a predecessor %d times (orders with a version sent before its"
                + " predecessor: %d)%n",
            ok ? "OK" : "VIOLATED",
            orderCount,
            total,
            killed,
            drained,
            took.toSeconds(),
            audit.lost,
            audit.doubled,
            audit.deadLettered,
            givenUp,
            deferrals,
            early);
        audit.examples.forEach(e -> out.println("  " + e));
        if (!ok) {
          out.printf(
              "  replay: idemworker chaos --sessions --seed %d --messages %d --workers %d --kills %d%n",
              seed, messages, workers, kills);
        }
      }
      return ok ? 0 : 1;
    }
  }

  /** SIGKILLs the next worker, restarts it, and lets its locks end; returns the kills so far. */
  private int kill(
      WorkerFleet fleet,
      ServiceBusEmulator serviceBus,
      AdjustableClock brokerClock,
      int killed,
      int workers,
      int kills)
      throws InterruptedException {
    int index = killed % workers;
    fleet.kill(index, false);
    // The killed process's session and message locks end when LockDuration passes.
    brokerClock.advance(LOCK.plusSeconds(1));
    serviceBus.evaluateExpiries();
    log.printf("  SIGKILL worker-%d (%d of %d)%n", index + 1, killed + 1, kills);
    return killed + 1;
  }

  /** In order per order, shuffled across orders: each next message is a random order's next. */
  private static List<Send> interleave(List<List<Send>> perOrder, Random random) {
    List<java.util.ArrayDeque<Send>> queues = new ArrayList<>();
    perOrder.forEach(list -> queues.add(new java.util.ArrayDeque<>(list)));
    queues.removeIf(java.util.ArrayDeque::isEmpty);
    List<Send> out = new ArrayList<>();
    while (!queues.isEmpty()) {
      int i = random.nextInt(queues.size());
      out.add(queues.get(i).poll());
      if (queues.get(i).isEmpty()) {
        queues.remove(i);
      }
    }
    return out;
  }

  /** One send through the producer kit: a transient failure is sent again under the same id. */
  private static void send(ProducerKit sender, Send send) {
    sender.send(
        Outgoing.businessKey(send.messageId, send.subject, send.body).withSessionId(send.orderId));
  }

  /** Until the queue holds nothing (active, locked or deferred) three times in a row. */
  private boolean drain(ServiceBusEmulator serviceBus, Instant deadline)
      throws InterruptedException {
    int quiet = 0;
    while (Instant.now().isBefore(deadline)) {
      quiet = serviceBus.messageCount(QUEUE) == 0 ? quiet + 1 : 0;
      if (quiet == 3) {
        return true;
      }
      Thread.sleep(300); // polling an external count; nothing to wait on
    }
    log.printf("  not drained: %d message(s) left in the queue%n", serviceBus.messageCount(QUEUE));
    return false;
  }

  private record Audit(int lost, int doubled, int deadLettered, List<String> examples) {}

  private static Audit audit(CosmosContainer container, List<String> orders, int deadLettered) {
    int lost = 0;
    int doubled = 0;
    List<String> examples = new ArrayList<>();
    for (String orderId : orders) {
      ObjectNode order;
      try {
        order = container.readItem(orderId, new PartitionKey(orderId), ObjectNode.class).getItem();
      } catch (CosmosException e) {
        if (e.getStatusCode() != 404) {
          throw e;
        }
        lost++;
        note(examples, orderId + ": the order is missing");
        continue;
      }
      long version = order.path("statusVersion").asLong(0);
      if (version != 3 || !"Shipped".equals(order.path("status").asText())) {
        lost++;
        note(examples, orderId + ": status " + order.path("status").asText() + " v" + version);
      }
      long count = order.path("creditCount").asLong(0);
      long units = order.path("creditedUnits").asLong(0);
      if (count < 1 || units < CREDIT_UNITS) {
        lost++;
        note(examples, orderId + ": credit missing (count " + count + ")");
      } else if (count > 1 || units > CREDIT_UNITS) {
        doubled++;
        note(examples, orderId + ": credit applied " + count + " times");
      }
    }
    return new Audit(lost, doubled, deadLettered, examples);
  }

  private static void note(List<String> examples, String example) {
    if (examples.size() < 10) {
      examples.add(example);
    }
  }

  private static long countInLogs(Path logs, String needle) throws IOException {
    long count = 0;
    try (Stream<Path> files = Files.list(logs)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".log")).toList()) {
        try (Stream<String> lines = Files.lines(file)) {
          count += lines.filter(l -> l.contains(needle)).count();
        }
      }
    }
    return count;
  }

  private static Send placed(String orderId) {
    return new Send(
        orderId,
        orderId,
        "OrderPlaced",
        "{\"orderId\":\""
            + orderId
            + "\",\"customerId\":\"cust-1\",\"currency\":\"EUR\",\"placedAt\":\"2026-11-30T10:00:00Z\","
            + "\"lines\":[{\"sku\":\"SKU-1\",\"quantity\":1,\"unitPrice\":9.99}]}");
  }

  private static Send status(String orderId, long version, String status) {
    return new Send(
        orderId,
        OrderMessageTypes.statusMessageId(orderId, version),
        OrderMessageTypes.ORDER_STATUS_CHANGED,
        "{\"orderId\":\""
            + orderId
            + "\",\"status\":\""
            + status
            + "\",\"version\":"
            + version
            + ",\"changedAt\":\"2026-11-30T11:00:00Z\"}");
  }

  private static Send credit(String orderId) {
    return new Send(
        orderId,
        "cr-" + orderId,
        OrderMessageTypes.ORDER_CREDITED,
        "{\"orderId\":\""
            + orderId
            + "\",\"creditId\":\"cr-"
            + orderId
            + "\",\"amount\":2.5,\"currency\":\"EUR\",\"reason\":\"goodwill\"}");
  }
}
