package io.idemworker.proof;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosContainer;
import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import com.fasterxml.jackson.databind.JsonNode;
import io.idemworker.app.ConsumerWorkers;
import io.idemworker.cosmos.CosmosContainers;
import io.idemworker.emulator.cosmos.CosmosEmulator;
import io.idemworker.emulator.payments.PaymentProviderEmulator;
import io.idemworker.emulator.payments.WebhookDelivery;
import io.idemworker.emulator.servicebus.QueueSettings;
import io.idemworker.emulator.servicebus.ServiceBusEmulator;
import io.idemworker.servicebus.DeadLetterReader;
import io.idemworker.servicebus.ServiceBusConnection;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Consumer;
import java.util.function.Supplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code chaos}: worker processes that crash at any instant, a broker that drops connections and
 * loses locks, a database that throttles and times out, duplicates from every source, at volume;
 * then an external audit of what the stores hold.
 */
@Command(
    name = "chaos",
    mixinStandardHelpOptions = true,
    description = {
      "Runs worker processes under faults at volume and audits the result.",
      "",
      "Starts the in-process Service Bus and Cosmos DB emulators and the payment provider double, N worker processes (`run`, orders role, outbox relay on) and one process per topic consumer (loyalty, customer-stats), and a seeded producer of every message type with duplicates from every source, poison and key reuse. While it sends, a seeded fault plan kills workers (SIGKILL and SIGTERM, then restarts them), drops Service Bus connections, loses locks, delays dispositions, makes Cosmos DB answer 429/503/408 or late and the payment provider fail ambiguously. Once drained, an audit that trusts no worker counter reads Cosmos DB, the dead-letter queues, the provider's ledger and the topic back and counts lost effects, double effects and wrong dead-letters. Exits 0 when all are zero, 1 otherwise (with the command that replays the run)."
    })
final class ChaosCommand implements Callable<Integer> {
  static final String QUEUE = "orders";
  static final String DATABASE = "idemworker";
  static final Duration WINDOW = Duration.ofSeconds(20);
  static final int MAX_BODY_BYTES = 64 * 1024;
  static final List<String> CONSUMERS = List.of("loyalty", "customer-stats");

  @Option(
      names = "--messages",
      defaultValue = "100000",
      description =
          "About how many messages the producer sends (200-1000000; the exact count is reported;"
              + " default ${DEFAULT-VALUE}).")
  int messages;

  @Option(
      names = "--workers",
      defaultValue = "3",
      description = "Worker processes (1-8; default ${DEFAULT-VALUE}).")
  int workers;

  @Option(
      names = "--kills",
      defaultValue = "20",
      description = "Process kills during the run (0-1000; default ${DEFAULT-VALUE}).")
  int kills;

  @Option(
      names = "--seed",
      defaultValue = "1",
      description = "Seed of the messages and the fault plan (default ${DEFAULT-VALUE}).")
  long seed;

  @Option(names = "--json", description = "Print the report as JSON.")
  boolean json;

  @Option(
      names = "--timeout",
      defaultValue = "PT30M",
      description = "Bound on the whole run (ISO 8601; default ${DEFAULT-VALUE}).")
  Duration timeout;

  @Option(
      names = "--log-dir",
      description = "Where the worker processes' logs go (default: a new temporary directory).")
  Path logDir;

  /** For the tests: runs between the drain and the audit, on the stores the audit reads. */
  Consumer<Stores> tamper = stores -> {};

  /** What the producer sent and the containers the audit reads, for {@link #tamper}. */
  record Stores(DemoScenario scenario, CosmosContainer orders, CosmosContainer customers) {}

  private final PrintStream out;

  ChaosCommand() {
    this(System.out);
  }

  ChaosCommand(PrintStream out) {
    this.out = out;
  }

  @Override
  public Integer call() throws Exception {
    if (messages < 200
        || messages > 1_000_000
        || workers < 1
        || workers > 8
        || kills < 0
        || kills > 1000
        || timeout.isNegative()
        || timeout.isZero()) {
      System.err.println(
          "idemworker chaos: --messages must be 200-1000000, --workers 1-8, --kills 0-1000, --timeout positive");
      return 2;
    }
    // About 2.4 messages per order the scenario is asked for (it adds concurrent pairs): its mix
    // of repeats, credits, statuses and payments, as measured.
    DemoScenario scenario = DemoScenario.generate(messages * 100 / 242, seed, MAX_BODY_BYTES);
    int waves = Math.max(6, scenario.orders.size() / 300);
    ChaosProducer producer = new ChaosProducer(scenario, waves);
    FaultPlan plan =
        FaultPlan.generate(
            seed, kills, workers, CONSUMERS.size(), 3, FaultPlan.OPERATIONS.size(), true);
    PrintStream log = json ? System.err : out;
    Path logs =
        logDir != null
            ? Files.createDirectories(logDir)
            : Files.createTempDirectory("idemworker-chaos-");
    AdjustableClock brokerClock = new AdjustableClock();
    try (ServiceBusEmulator serviceBus =
            ServiceBusEmulator.builder()
                .port(0)
                .clock(brokerClock)
                .queue(
                    QueueSettings.defaults(QUEUE)
                        .withRequiresDuplicateDetection(true)
                        .withDuplicateDetectionHistoryTimeWindow(WINDOW)
                        .withDefaultMessageTimeToLive(Duration.ofDays(1)))
                .topic(DemoRelayPhase.topic(WINDOW))
                .start();
        CosmosEmulator cosmos = CosmosEmulator.builder().port(0).start();
        CosmosClient cosmosClient = LocalClients.cosmos(cosmos);
        ChaosWebhooks webhooks =
            new ChaosWebhooks(CosmosContainers.ensureExists(cosmosClient, DATABASE, QUEUE));
        PaymentProviderEmulator provider =
            PaymentProviderEmulator.builder().port(0).webhooks(webhooks.settings()).start()) {
      ChaosWebhooks.storms(
          provider.webhooks(), Math.max(2, scenario.payments.requests.size() / 20));
      CosmosContainer orders = CosmosContainers.ensureExists(cosmosClient, DATABASE, QUEUE);
      CosmosContainer customers = ConsumerWorkers.customers(cosmosClient, DATABASE);
      Map<String, String> base = baseEnvironment(serviceBus, cosmos);
      log.printf(
          "idemworker chaos: seed %d, %d orders in %d waves, %d workers + %d consumers, %d kills, logs in %s%n",
          seed, scenario.orders.size(), waves, workers, CONSUMERS.size(), kills, logs);
      List<String> names = new ArrayList<>();
      for (int i = 1; i <= workers; i++) {
        names.add("worker-" + i);
      }
      names.addAll(CONSUMERS);
      List<String> entities =
          List.of(
              QUEUE,
              DemoRelayPhase.TOPIC + "/Subscriptions/" + CONSUMERS.get(0),
              DemoRelayPhase.TOPIC + "/Subscriptions/" + CONSUMERS.get(1));
      List<String> operationNames = FaultPlan.OPERATIONS.stream().map(Enum::name).toList();
      log.println("fault plan (point of the traffic, delay, fault):");
      plan.events.forEach(e -> log.println("  " + e.describe(names, entities, operationNames)));

      boolean settled;
      long started;
      double produceSeconds;
      double totalSeconds;
      Map<String, Integer> killCounts;
      List<String> httpFailures;
      boolean webhooksIdle;
      boolean resubmitted;
      Map<String, Long> httpCounts;
      Map<String, Integer> eventsReceived;
      List<String> pacing = new ArrayList<>();
      DeadLetterReader reader =
          new DeadLetterReader(
              new ServiceBusConnection.ConnectionString(serviceBus.connectionString()));
      ScheduledExecutorService faults = Executors.newScheduledThreadPool(4);
      try (WorkerFleet fleet = new WorkerFleet(logs, Duration.ofSeconds(20));
          EventTap events =
              new EventTap(
                  serviceBus.connectionString(),
                  DemoRelayPhase.TOPIC,
                  DemoRelayPhase.AUDIT_SUBSCRIPTION);
          ServiceBusSenderClient sender =
              new ServiceBusClientBuilder()
                  .connectionString(serviceBus.connectionString())
                  .sender()
                  .queueName(QUEUE)
                  .buildClient();
          ChaosHttp http =
              new ChaosHttp(orders, "chaos-" + seed + "-", HTTP_RETRY_FOR, producer.httpOrders())) {
        ChaosDrain waits = new ChaosDrain(serviceBus, fleet, scenario, log);
        for (int i = 1; i <= workers; i++) {
          fleet.start("worker-" + i, ordersEnvironment(base, provider));
        }
        for (String role : CONSUMERS) {
          fleet.start(role, consumerEnvironment(base, role));
        }
        FaultInjector injector =
            new FaultInjector(
                Optional.of(fleet), serviceBus, cosmos, Optional.of(provider), entities, faults);
        started = System.nanoTime();
        long deadline = started + timeout.toNanos();
        List<Future<?>> fired = new ArrayList<>();
        int next = 0;
        settled = true;
        int steps = producer.steps();
        for (int s = 0; s < steps && settled; s++) {
          settled = waits.awaitBacklog(300, deadline);
          ChaosProducer.Step step = producer.step(s);
          // An order's dependents go only once its post has been answered; bounded by the
          // client's own retry budget, past which the order is reported, not waited for.
          for (String late :
              http.awaitAnswered(
                  step.httpAnsweredFirst(),
                  min(HTTP_RETRY_FOR.plusSeconds(30), deadline - System.nanoTime()))) {
            pacing.add(late + ": its dependents were sent before its post was answered");
          }
          step.http().forEach(http::post);
          producer.send(sender, step.beforeAdvance(), Duration.ofMinutes(2));
          brokerClock.advance(WINDOW.plusSeconds(1));
          producer.send(sender, step.afterAdvance(), Duration.ofMinutes(2));
          double progress = (s + 1.0) / steps;
          while (next < plan.events.size() && plan.events.get(next).at() <= progress) {
            fired.add(injector.fire(plan.events.get(next++)));
          }
          if (s % Math.max(1, steps / 10) == 0) {
            log.printf(
                "  [%5.1f s] step %d/%d, sent %d, queue %d, kills %d%n",
                seconds(started),
                s + 1,
                steps,
                producer.sent(),
                serviceBus.unsettledCount(QUEUE),
                fleet.kills());
          }
        }
        while (next < plan.events.size()) {
          fired.add(injector.fire(plan.events.get(next++)));
        }
        for (Future<?> f : fired) {
          f.get();
        }
        httpFailures = http.await(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
        httpCounts = http.counts();
        produceSeconds = seconds(started);
        log.printf("  [%5.1f s] sent %d; draining%n", produceSeconds, producer.sent());
        Supplier<List<DeadLetterReader.DeadLetter>> deadLetters =
            () -> reader.peek(new DeadLetterReader.Queue(QUEUE), 1_000_000).messages();
        settled &= waits.drain(events, deadLetters, deadline);
        resubmitted = settled;
        if (settled) {
          long copies = ChaosResubmit.run(serviceBus.connectionString(), brokerClock);
          producer.count(ChaosProducer.Source.DLQ_RESUBMIT, copies);
          log.printf(
              "  [%5.1f s] drained; resubmitted %d dead-lettered copies, draining again%n",
              seconds(started), copies);
          settled = waits.drain(events, deadLetters, deadline);
        }
        eventsReceived = events.received();
        // No capture comes any more: events still held to be reversed (a batch that never filled)
        // go now, in order. Waited for even when the drain failed, so that the check says what the
        // sender did.
        provider.webhooks().faults().clear();
        webhooksIdle =
            provider.webhooks().awaitIdle(min(Duration.ofMinutes(2), deadline - System.nanoTime()));
        if (!waits.released().isEmpty()) {
          log.printf(
              "  the drain did not wait for %d events whose message was dead-lettered (the audit"
                  + " reads those messages' effects)%n",
              waits.released().size());
        }
        totalSeconds = seconds(started);
        killCounts = fleet.counts();
        events.stop();
      } finally {
        faults.shutdownNow();
      }
      serviceBus.faults().clear();
      cosmos.faults().clear();
      provider.faults().clear();
      DeadLetters deadLetters = DeadLetters.peek(serviceBus.connectionString(), QUEUE, 1_000_000);
      JsonNode ledger = StateAudit.ledger(provider.baseUrl(), provider.apiKey());
      tamper.accept(new Stores(scenario, orders, customers));
      List<WebhookDelivery> webhookLog = provider.webhooks().deliveries();
      StateAudit.Result audit =
          new StateAudit(
                  scenario,
                  new StateAudit.Sources(
                      orders,
                      customers,
                      deadLetters.queue(),
                      deadLetters.subscriptions(),
                      ledger,
                      eventsReceived,
                      Optional.of(
                          new WebhookAudit.Log(webhookLog, webhooksIdle, Optional.empty()))),
                  8)
              .run();
      List<String> httpProblems = new ArrayList<>(pacing);
      httpProblems.addAll(httpFailures);
      audit =
          withHttpAndResubmission(
              audit,
              httpCounts,
              httpProblems,
              ChaosResubmit.check(scenario, producer.bySource().get("DLQ_RESUBMIT"), resubmitted));
      Map<String, Integer> faultCounts = new LinkedHashMap<>();
      plan.countByKind()
          .forEach(
              (k, v) -> {
                if (!k.isKill()) {
                  faultCounts.put(k.name(), v);
                }
              });
      ChaosReport report =
          new ChaosReport(
              seed,
              String.format(
                  "idemworker chaos --seed %d --messages %d --workers %d --kills %d",
                  seed, messages, workers, kills),
              workers,
              CONSUMERS.size(),
              producer.sent(),
              producer.byKind(),
              producer.bySource(),
              httpCounts,
              WebhookAudit.counts(webhookLog),
              killCounts,
              faultCounts,
              settled,
              audit,
              produceSeconds,
              totalSeconds,
              ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
      if (json) {
        out.println(report.json());
      } else {
        report.printText(out);
      }
      return report.pass() ? 0 : 1;
    }
  }

  /**
   * The audit plus the HTTP clients' side (every order posted got 201 under its key, before its
   * dependents were sent; its effect is checked with the scenario's other orders: once, with its
   * exact body) and the dead-letter resubmission's (every refused copy was sent back once).
   */
  private static StateAudit.Result withHttpAndResubmission(
      StateAudit.Result audit,
      Map<String, Long> counts,
      List<String> failures,
      DemoAudit.Check resubmission) {
    List<DemoAudit.Check> checks = new ArrayList<>(audit.checks());
    checks.add(resubmission);
    checks.add(
        new DemoAudit.Check(
            "HTTP intake: every order posted ("
                + counts.get(ChaosHttp.Count.ORDERS.name())
                + ", "
                + counts.get(ChaosHttp.Count.REQUESTS.name())
                + " requests with retries and racers) answered 201 under its Idempotency-Key,"
                + " each before its dependents were sent",
            failures.isEmpty(),
            String.join("; ", failures.stream().limit(20).toList())));
    return new StateAudit.Result(checks, audit.lost(), audit.doubled(), audit.wrongDeadLetters());
  }

  /** How long one HTTP order's client retries before it gives up. */
  static final Duration HTTP_RETRY_FOR = Duration.ofMinutes(2);

  private static Duration min(Duration bound, long nanosLeft) {
    Duration left = Duration.ofNanos(Math.max(1, nanosLeft));
    return left.compareTo(bound) < 0 ? left : bound;
  }

  private static double seconds(long since) {
    return (System.nanoTime() - since) / 1e9;
  }

  private static Map<String, String> baseEnvironment(
      ServiceBusEmulator serviceBus, CosmosEmulator cosmos) {
    Map<String, String> env = new HashMap<>();
    env.put("SERVICEBUS_CONNECTION_STRING", serviceBus.connectionString());
    env.put("COSMOS_ENDPOINT", cosmos.endpoint().toString());
    env.put("COSMOS_KEY", cosmos.key());
    env.put("COSMOS_DATABASE", DATABASE);
    env.put("COSMOS_CONNECTION_MODE", "gateway");
    env.put("COSMOS_CREATE_CONTAINER", "false");
    env.put("WORKER_MAX_CONCURRENT_CALLS", "16");
    env.put("WORKER_PREFETCH_COUNT", "0");
    env.put("WORKER_MAX_LOCK_RENEWAL", "PT5M");
    env.put("WORKER_KEY_STRATEGY", "message-id");
    env.put("WORKER_MAX_BODY_BYTES", String.valueOf(MAX_BODY_BYTES));
    env.put("WORKER_SHUTDOWN_TIMEOUT", "PT10S");
    env.put("HEALTH_PORT", "0");
    env.put("WORKER_INBOX_TTL", "P14D");
    env.put("WORKER_RESUBMIT_WINDOW", "P7D");
    env.put("SERVICEBUS_LOCK_DURATION", "PT1M");
    env.put("SERVICEBUS_MAX_DELIVERY_COUNT", "10");
    env.put("SERVICEBUS_MESSAGE_TTL", "P1D");
    env.put("OTEL_SERVICE_NAME", "idemworker-chaos");
    return env;
  }

  private static Map<String, String> ordersEnvironment(
      Map<String, String> base, PaymentProviderEmulator provider) {
    Map<String, String> env = new HashMap<>(base);
    env.put("WORKER_ROLE", "orders");
    env.put("SERVICEBUS_QUEUE_NAME", QUEUE);
    env.put("COSMOS_CONTAINER", QUEUE);
    env.put("RELAY_ENABLED", "true");
    env.put("RELAY_TOPIC_NAME", DemoRelayPhase.TOPIC);
    env.put("RELAY_LEASE_DURATION", "PT5S");
    env.put("RELAY_POLL_INTERVAL", "PT0.2S");
    env.put("RELAY_BATCH_SIZE", "100");
    env.put("RELAY_PUBLISHED_TTL", "P7D");
    env.put("PAYMENTS_BASE_URL", provider.baseUrl().toString());
    env.put("PAYMENTS_API_KEY", provider.apiKey());
    env.put("PAYMENTS_TIMEOUT", "PT2S");
    env.put("PAYMENTS_LEASE", "PT3S");
    return env;
  }

  private static Map<String, String> consumerEnvironment(Map<String, String> base, String role) {
    Map<String, String> env = new HashMap<>(base);
    env.put("WORKER_ROLE", role);
    env.put("SERVICEBUS_TOPIC_NAME", DemoRelayPhase.TOPIC);
    env.put("SERVICEBUS_SUBSCRIPTION_NAME", role);
    env.put("COSMOS_CONTAINER", "customers");
    env.put("RELAY_ENABLED", "false");
    return env;
  }
}
