package io.idemworker.proof.chaos;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosContainer;
import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.cosmos.CosmosContainers;
import io.idemworker.emulator.cosmos.CosmosEmulator;
import io.idemworker.emulator.servicebus.QueueSettings;
import io.idemworker.emulator.servicebus.ServiceBusEmulator;
import io.idemworker.orders.OrderDocumentIds;
import io.idemworker.proof.chaos.SessionPlan.Send;
import io.idemworker.proof.emulators.AdjustableClock;
import io.idemworker.proof.emulators.LocalClients;
import io.idemworker.servicebus.ServiceBusConnection;
import io.idemworker.servicebus.sending.Outgoing;
import io.idemworker.servicebus.sending.ProducerKit;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * {@code chaos --sessions}: worker processes in session mode ({@code SERVICEBUS_SESSIONS=true})
 * under SIGKILLs, on the in-process emulators, then an operator who releases or discards the orders
 * a poison message parked. What is sent is {@link SessionPlan}'s: each order's versions and credit
 * shuffled (so versions wait for their predecessor in the session), duplicates from the producer
 * and past the window, and a poison credit in the middle of one order in ten (a body over the
 * workers' first limit) and one in twenty (a wrong currency). Once the workers have drained what is
 * not parked, the operator looks at each poisoned order ({@code explain}'s data: parked behind its
 * poison, the rest of the order deferred), raises the body limit and redeploys the workers, then
 * runs {@code dlq release} for the first kind and {@code dlq discard} for the second ({@link
 * ChaosOperator}); the run drains again, to an empty queue, and {@link SessionsAudit} reads
 * everything back. Key reuse, payments, the HTTP intake and the relay are left out. Used once, from
 * the command's thread.
 */
final class ChaosSessions {
  private static final String QUEUE = ChaosCommand.QUEUE;
  private static final Duration LOCK = Duration.ofMinutes(1);

  /** The operator's fix for the release poisons: Service Bus Standard's largest message. */
  static final int RAISED_BODY_BYTES = 256 * 1024;

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
    Instant deadline = started.plus(timeout);
    Random random = new Random(seed);
    int orderCount = Math.max(10, messages / 7);
    SessionPlan scenario = new SessionPlan(orderCount, seed, random);
    List<Send> plan = scenario.first;
    List<Send> plan2 = scenario.late;
    List<SessionsAudit.Plan> poisoned =
        scenario.orders.stream().filter(o -> o.fate() != SessionsAudit.Fate.COMPLETE).toList();
    int total = plan.size() + plan2.size();
    log.printf(
        "chaos --sessions: %d orders (%d with a poison to release, %d to discard), %d messages (%d"
            + " sent again past the window), %d workers, %d SIGKILLs, seed %d%n",
        orderCount,
        scenario.count(SessionsAudit.Fate.RELEASE),
        scenario.count(SessionsAudit.Fate.DISCARD),
        total,
        plan2.size(),
        workers,
        kills,
        seed);

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
          CosmosContainers.ensureExists(
              cosmosClient, ChaosCommand.DATABASE, QUEUE, OrderDocumentIds.PARTITION_KEY_PATH);
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
      // Too tight for the release poisons: the operator raises it before releasing them.
      env.put("WORKER_MAX_BODY_BYTES", String.valueOf(SessionPlan.TIGHT_BODY_BYTES));
      int killed = 0;
      boolean drained;
      try (WorkerFleet fleet = fleet(logs)) {
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
        int backlog = Math.max(1, serviceBus.unsettledCount(QUEUE));
        int rest = kills - killed;
        for (int k = 1; k <= rest; k++) {
          int threshold = backlog * (rest + 1 - k) / (rest + 1);
          while (serviceBus.unsettledCount(QUEUE) > threshold && Instant.now().isBefore(deadline)) {
            Thread.sleep(100); // polling an external count; nothing to wait on
          }
          killed = kill(fleet, serviceBus, brokerClock, killed, workers, kills);
          log.printf("    at %d of %d messages left%n", serviceBus.unsettledCount(QUEUE), backlog);
        }
        brokerClock.advance(ChaosCommand.WINDOW.plusSeconds(1));
        for (Send send : plan2) {
          send(sender, send);
        }
        log.println("  all sent; draining (parked messages stay deferred)");
        // Deferred messages are the parked ones (and versions waiting, which fill by arrival).
        drained = drain(() -> serviceBus.unsettledCount(QUEUE), deadline);
      }
      ChaosOperator operator =
          new ChaosOperator(
              log, new ServiceBusConnection.ConnectionString(serviceBus.connectionString()), QUEUE);
      Map<String, SessionsAudit.Seen> seen = operator.look(poisoned, container);
      Map<String, SessionsAudit.Operated> operated;
      boolean settled;
      // The operator's fix for the release poisons: the limit raised and the workers redeployed.
      env.put("WORKER_MAX_BODY_BYTES", String.valueOf(RAISED_BODY_BYTES));
      try (WorkerFleet redeployed = fleet(logs)) {
        for (int w = 0; w < workers; w++) {
          redeployed.start("redeployed-" + (w + 1), env);
        }
        log.printf(
            "  workers redeployed with WORKER_MAX_BODY_BYTES=%d; dlq release and discard%n",
            RAISED_BODY_BYTES);
        operated = operator.act(poisoned);
        settled = drain(() -> serviceBus.messageCount(QUEUE), deadline);
      }
      tamper.accept(container);
      SessionsAudit.Findings audit =
          SessionsAudit.audit(
              scenario.orders,
              orders(container, scenario.orders),
              seen,
              operated,
              processed(logs),
              operator.deadLetters());
      long deferrals = countInLogs(logs, "deferred until version");
      long givenUp = countInLogs(logs, "gap given up");
      long unparked = countInLogs(logs, "parked message(s) apply in their order");
      long parkedSeen = seen.values().stream().filter(s -> s.parking().isPresent()).count();
      long released =
          operated.values().stream().filter(SessionsAudit.Operated::resubmitted).count();
      long discarded =
          poisoned.stream().filter(p -> p.fate() == SessionsAudit.Fate.DISCARD).count();
      long records = operated.values().stream().mapToLong(o -> o.dropped().size()).sum();
      boolean ok = drained && settled && audit.clean() && givenUp == 0;
      Duration took = Duration.between(started, Instant.now());
      if (json) {
        ObjectNode report = new ObjectMapper().createObjectNode();
        report.put("mode", "sessions");
        report.put("ok", ok);
        report.put("orders", orderCount);
        report.put("messages", total);
        report.put("sigkills", killed);
        report.put("drained", drained && settled);
        report.put("lost", audit.lost());
        report.put("doubled", audit.doubled());
        report.put("poisoned", poisoned.size());
        report.put("parked", parkedSeen);
        report.put("released", released);
        report.put("unparkedByWorkers", unparked);
        report.put("discarded", discarded);
        report.put("discardRecords", records);
        report.put("notParked", audit.notParked());
        report.put("outOfOrder", audit.outOfOrder());
        report.put("droppedWithoutRecord", audit.droppedWithoutRecord());
        report.put("wrongDeadLetters", audit.wrongDeadLetters());
        report.put("ordersWithAVersionSentEarly", scenario.early);
        report.put("deferrals", deferrals);
        report.put("gapsGivenUp", givenUp);
        report.put("seconds", took.toSeconds());
        out.println(report.toPrettyString());
      } else {
        out.printf(
            "chaos --sessions: %s%n  orders %d, messages %d, SIGKILLs %d, drained %s, %ds%n"
                + "  poisoned %d: parked %d; released %d (the workers unparked %d), discarded %d"
                + " (%d record lines)%n"
                + "  lost %d, doubled %d, not parked %d, out of order %d, dropped without a"
                + " record %d, wrong dead-letters %d, gaps given up %d%n"
                + "  versions deferred for a predecessor %d times (orders with a version sent"
                + " before its predecessor: %d)%n",
            ok ? "OK" : "VIOLATED",
            orderCount,
            total,
            killed,
            drained && settled,
            took.toSeconds(),
            poisoned.size(),
            parkedSeen,
            released,
            unparked,
            discarded,
            records,
            audit.lost(),
            audit.doubled(),
            audit.notParked(),
            audit.outOfOrder(),
            audit.droppedWithoutRecord(),
            audit.wrongDeadLetters(),
            givenUp,
            deferrals,
            scenario.early);
        audit.examples().forEach(e -> out.println("  " + e));
        if (!ok) {
          out.printf(
              "  replay: idemworker chaos --sessions --seed %d --messages %d --workers %d --kills %d%n",
              seed, messages, workers, kills);
        }
      }
      return ok ? 0 : 1;
    }
  }

  private static WorkerFleet fleet(Path logs) {
    return new WorkerFleet(
        logs,
        Duration.ofSeconds(20),
        List.of(
            "-DCOSMOS.EMULATOR_SERVER_CERTIFICATE_VALIDATION_DISABLED=true",
            // The shipped logging, also under a test class path: the audit reads outcome lines.
            "-Dlogback.configurationFile=logback.xml"));
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

  /** One send through the producer kit: a transient failure is sent again under the same id. */
  private static void send(ProducerKit sender, Send send) {
    sender.send(
        Outgoing.businessKey(send.messageId(), send.subject(), send.body())
            .withSessionId(send.orderId()));
  }

  /** Until {@code count} is zero three times in a row, or the deadline. */
  private boolean drain(java.util.function.IntSupplier count, Instant deadline)
      throws InterruptedException {
    int quiet = 0;
    while (Instant.now().isBefore(deadline)) {
      quiet = count.getAsInt() == 0 ? quiet + 1 : 0;
      if (quiet == 3) {
        return true;
      }
      Thread.sleep(300); // polling an external count; nothing to wait on
    }
    log.printf("  not drained: %d message(s) left in the queue%n", count.getAsInt());
    return false;
  }

  /** The order documents there are, by id. */
  private static Map<String, ObjectNode> orders(
      CosmosContainer container, List<SessionsAudit.Plan> plans) {
    Map<String, ObjectNode> found = new java.util.HashMap<>();
    for (SessionsAudit.Plan plan : plans) {
      ChaosOperator.order(container, plan.orderId()).ifPresent(o -> found.put(plan.orderId(), o));
    }
    return found;
  }

  /** The message ids the workers' outcome lines give as processed. */
  private static Set<String> processed(Path logs) throws IOException {
    ObjectMapper mapper = new ObjectMapper();
    Set<String> ids = new HashSet<>();
    try (Stream<Path> files = Files.list(logs)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".log")).toList()) {
        try (Stream<String> lines = Files.lines(file)) {
          for (String line :
              lines
                  .filter(l -> l.startsWith("{") && l.contains("\"outcome\":\"processed\""))
                  .toList()) {
            try {
              ids.add(mapper.readTree(line).path("messageId").asText());
            } catch (IOException e) {
              // A line cut short by a SIGKILL: that message's evidence is its redelivery's line.
            }
          }
        }
      }
    }
    return ids;
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
}
