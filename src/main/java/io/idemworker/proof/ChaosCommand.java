package io.idemworker.proof;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosClientBuilder;
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
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
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
      "Starts the in-process Service Bus and Cosmos DB emulators (or, with --servicebus-connection-string, --cosmos-endpoint and --cosmos-key, uses the namespace and account given, whose entities must exist and be empty; their faults are then not injected) and the payment provider double, N worker processes (`run`, orders role, outbox relay on) and one process per topic consumer (loyalty, customer-stats), and a seeded producer of every message type with duplicates from every source, poison and key reuse. While it sends, a seeded fault plan kills workers (SIGKILL and SIGTERM, then restarts them), drops Service Bus connections, loses locks, delays dispositions, makes Cosmos DB answer 429/503/408 or late and the payment provider fail ambiguously. Once drained, an audit that trusts no worker counter reads Cosmos DB, the dead-letter queues, the provider's ledger and the topic back and counts lost effects, double effects and wrong dead-letters. Exits 0 when all are zero, 1 otherwise (with the command that replays the run)."
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

  @Option(
      names = "--servicebus-connection-string",
      description =
          "Run against this Service Bus namespace instead of an emulator (Send and Listen on queue"
              + " 'orders' and topic 'order-events'); with --cosmos-endpoint and --cosmos-key.")
  String serviceBusConnectionString;

  @Option(
      names = "--cosmos-endpoint",
      description =
          "Run against this Cosmos DB account instead of an emulator (https URL); with"
              + " --servicebus-connection-string and --cosmos-key.")
  String cosmosEndpoint;

  @Option(names = "--cosmos-key", description = "The Cosmos DB account's key (given endpoints).")
  String cosmosKey;

  @Option(
      names = "--cosmos-database",
      defaultValue = DATABASE,
      description =
          "Database holding the containers 'orders' and 'customers' (given endpoints; default"
              + " ${DEFAULT-VALUE}).")
  String cosmosDatabase;

  @Option(
      names = "--duplicate-detection-window",
      defaultValue = "PT10M",
      description =
          "The queue's duplicate-detection window, waited out before the copies meant to arrive"
              + " past it are sent (given endpoints; must not be shorter than the queue's; default"
              + " ${DEFAULT-VALUE}, the Bicep templates' value).")
  Duration duplicateWindow;

  @Option(
      names = "--cosmos-emulator",
      description =
          "The Cosmos DB endpoint given is an emulator's, with a self-signed certificate: skip"
              + " certificate checks for its host only (a loopback endpoint is treated so anyway).")
  boolean cosmosEmulator;

  @Option(
      names = "--create-containers",
      description =
          "Create the Cosmos DB database and the containers 'orders' and 'customers' when missing"
              + " (given endpoints; an emulator, or an account that allows key-based metadata"
              + " writes). Service Bus entities are never created.")
  boolean createContainers;

  /** For the tests: runs between the drain and the audit, on the stores the audit reads. */
  Consumer<Stores> tamper = stores -> {};

  /** What the producer sent and the containers the audit reads, for {@link #tamper}. */
  record Stores(DemoScenario scenario, CosmosContainer orders, CosmosContainer customers) {}

  private final PrintStream out;
  private final PrintStream err;

  ChaosCommand() {
    this(System.out, System.err);
  }

  ChaosCommand(PrintStream out) {
    this(out, System.err);
  }

  /**
   * @param out the report (and the progress, without {@code --json})
   * @param err refusals, and the progress with {@code --json}
   */
  ChaosCommand(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  /** What the run sends and where it logs, the same whatever it runs against. */
  private record Plan(
      DemoScenario scenario, ChaosProducer producer, int waves, PrintStream log, Path logs) {}

  /** The emulator's flag the worker processes get for its self-signed certificate (loopback). */
  private static final List<String> EMULATOR_TRUST =
      List.of("-DCOSMOS.EMULATOR_SERVER_CERTIFICATE_VALIDATION_DISABLED=true");

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
      err.println(
          "idemworker chaos: --messages must be 200-1000000, --workers 1-8, --kills 0-1000, --timeout positive");
      return 2;
    }
    List<String> missing =
        ChaosEndpoints.missing(serviceBusConnectionString, cosmosEndpoint, cosmosKey);
    if (!missing.isEmpty()) {
      err.println(
          "idemworker chaos: given endpoints need "
              + String.join(", ", ChaosEndpoints.OPTIONS)
              + " together; missing: "
              + String.join(", ", missing));
      return 2;
    }
    Optional<ChaosEndpoints> given = Optional.empty();
    if (serviceBusConnectionString != null) {
      try {
        given =
            Optional.of(
                new ChaosEndpoints(
                    serviceBusConnectionString,
                    URI.create(cosmosEndpoint),
                    cosmosKey,
                    cosmosDatabase,
                    duplicateWindow,
                    cosmosEmulator));
      } catch (IllegalArgumentException e) {
        err.println("idemworker chaos: " + e.getMessage());
        return 2;
      }
    }
    // About 2.4 messages per order the scenario is asked for (it adds concurrent pairs): its mix
    // of repeats, credits, statuses and payments, as measured.
    DemoScenario scenario = DemoScenario.generate(messages * 100 / 242, seed, MAX_BODY_BYTES);
    int waves = Math.max(6, scenario.orders.size() / 300);
    PrintStream log = json ? err : out;
    Path logs =
        logDir != null
            ? Files.createDirectories(logDir)
            : Files.createTempDirectory("idemworker-chaos-");
    Plan plan = new Plan(scenario, new ChaosProducer(scenario, waves), waves, log, logs);
    return given.isPresent() ? external(plan, given.get()) : emulated(plan);
  }

  /** Against the run's own emulators, whose faults it injects and whose clock it moves. */
  private int emulated(Plan plan) throws Exception {
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
        ChaosBroker broker = ChaosBroker.emulated(serviceBus, brokerClock, WINDOW, plan.log())) {
      CosmosContainers.ensureExists(cosmosClient, DATABASE, QUEUE);
      ConsumerWorkers.customers(cosmosClient, DATABASE);
      return run(
          plan,
          broker,
          Optional.of(cosmos),
          cosmosClient,
          DATABASE,
          ChaosEnvironment.base(
              serviceBus.connectionString(), URI.create(cosmos.endpoint()), cosmos.key(), DATABASE),
          EMULATOR_TRUST);
    }
  }

  /**
   * Against the endpoints given: nothing is started but the workers, the payment double and the
   * HTTP intake; the entities must exist and be empty.
   */
  private int external(Plan plan, ChaosEndpoints given) throws Exception {
    given.emulatorHost().ifPresent(h -> System.setProperty("COSMOS.EMULATOR_HOST", h));
    if (!given.trustOptions().isEmpty()) {
      System.setProperty("COSMOS.EMULATOR_SERVER_CERTIFICATE_VALIDATION_DISABLED", "true");
    }
    try (CosmosClient cosmosClient =
            new CosmosClientBuilder()
                .endpoint(given.cosmosEndpoint().toString())
                .key(given.cosmosKey())
                .gatewayMode()
                .contentResponseOnWriteEnabled(false)
                .buildClient();
        ChaosBroker broker =
            ChaosBroker.external(
                given.serviceBusConnectionString(), given.duplicateWindow(), plan.log())) {
      if (createContainers) {
        CosmosContainers.ensureExists(cosmosClient, given.cosmosDatabase(), QUEUE);
        ConsumerWorkers.customers(cosmosClient, given.cosmosDatabase());
      }
      List<String> problems = given.problems(cosmosClient);
      if (!problems.isEmpty()) {
        err.println(
            "idemworker chaos: the endpoints given are not ready for a run (create the"
                + " entities, empty them; nothing is created or purged here):");
        problems.forEach(p -> err.println("  " + p));
        return 2;
      }
      return run(
          plan,
          broker,
          Optional.empty(),
          cosmosClient,
          given.cosmosDatabase(),
          ChaosEnvironment.base(
              given.serviceBusConnectionString(),
              given.cosmosEndpoint(),
              given.cosmosKey(),
              given.cosmosDatabase()),
          given.trustOptions());
    }
  }

  private int run(
      Plan plan,
      ChaosBroker broker,
      Optional<CosmosEmulator> cosmos,
      CosmosClient cosmosClient,
      String database,
      Map<String, String> base,
      List<String> trust)
      throws Exception {
    DemoScenario scenario = plan.scenario();
    ChaosProducer producer = plan.producer();
    PrintStream log = plan.log();
    Path logs = plan.logs();
    boolean external = broker.emulator().isEmpty();
    FaultPlan faultPlan =
        FaultPlan.generate(
            seed, kills, workers, CONSUMERS.size(), 3, FaultPlan.OPERATIONS.size(), true);
    FaultPlan injected = external ? faultPlan.withoutEmulatorFaults() : faultPlan;
    CosmosContainer orders = cosmosClient.getDatabase(database).getContainer(QUEUE);
    CosmosContainer customers =
        cosmosClient.getDatabase(database).getContainer(ChaosEnvironment.CUSTOMERS);
    try (ChaosWebhooks webhooks = new ChaosWebhooks(orders);
        PaymentProviderEmulator provider =
            PaymentProviderEmulator.builder().port(0).webhooks(webhooks.settings()).start()) {
      ChaosWebhooks.storms(
          provider.webhooks(), Math.max(2, scenario.payments.requests.size() / 20));
      log.printf(
          "idemworker chaos: seed %d, %d orders in %d waves, %d workers + %d consumers, %d kills,"
              + " %s, logs in %s%n",
          seed,
          scenario.orders.size(),
          plan.waves(),
          workers,
          CONSUMERS.size(),
          kills,
          external ? "against the endpoints given" : "against its own emulators",
          logs);
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
      faultPlan.events.forEach(
          e ->
              log.println(
                  "  "
                      + e.describe(names, entities, operationNames)
                      + (injected.events.contains(e) ? "" : "  [NOT injected: given endpoints]")));

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
      List<ChaosProducer.Tagged> heldBack = new ArrayList<>();
      DeadLetterReader reader =
          new DeadLetterReader(
              new ServiceBusConnection.ConnectionString(broker.connectionString()));
      ScheduledExecutorService faults = Executors.newScheduledThreadPool(4);
      try (WorkerFleet fleet = new WorkerFleet(logs, Duration.ofSeconds(20), trust);
          EventTap events =
              new EventTap(
                  broker.connectionString(),
                  DemoRelayPhase.TOPIC,
                  DemoRelayPhase.AUDIT_SUBSCRIPTION);
          ServiceBusSenderClient sender =
              new ServiceBusClientBuilder()
                  .connectionString(broker.connectionString())
                  .sender()
                  .queueName(QUEUE)
                  .buildClient();
          ChaosHttp http =
              new ChaosHttp(orders, "chaos-" + seed + "-", HTTP_RETRY_FOR, producer.httpOrders())) {
        ChaosDrain waits = new ChaosDrain(broker, fleet, scenario, log);
        for (int i = 1; i <= workers; i++) {
          fleet.start(
              "worker-" + i, ChaosEnvironment.orders(base, provider.baseUrl(), provider.apiKey()));
        }
        for (String role : CONSUMERS) {
          fleet.start(role, ChaosEnvironment.consumer(base, role));
        }
        FaultInjector injector =
            new FaultInjector(
                Optional.of(fleet),
                broker.emulator(),
                cosmos,
                Optional.of(provider),
                entities,
                faults);
        started = System.nanoTime();
        long deadline = started + timeout.toNanos();
        long lastSend = started;
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
          lastSend = System.nanoTime();
          if (broker.holdsBackPastWindow()) {
            heldBack.addAll(step.afterAdvance());
          } else {
            broker.pastWindow(lastSend, deadline);
            producer.send(sender, step.afterAdvance(), Duration.ofMinutes(2));
          }
          double progress = (s + 1.0) / steps;
          while (next < injected.events.size() && injected.events.get(next).at() <= progress) {
            fired.add(injector.fire(injected.events.get(next++)));
          }
          if (s % Math.max(1, steps / 10) == 0) {
            log.printf(
                "  [%5.1f s] step %d/%d, sent %d, queue %d, kills %d%n",
                seconds(started),
                s + 1,
                steps,
                producer.sent(),
                broker.unsettled(QUEUE, 1000),
                fleet.kills());
          }
        }
        while (next < injected.events.size()) {
          fired.add(injector.fire(injected.events.get(next++)));
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
        if (settled && !heldBack.isEmpty()) {
          log.printf(
              "  [%5.1f s] drained; waiting out the duplicate-detection window (%s) before the %d"
                  + " held-back copies%n",
              seconds(started), broker.window(), heldBack.size());
          settled = broker.pastWindow(lastSend, deadline);
          for (int from = 0; from < heldBack.size() && settled; from += 300) {
            settled = waits.awaitBacklog(300, deadline);
            producer.send(
                sender,
                heldBack.subList(from, Math.min(heldBack.size(), from + 300)),
                Duration.ofMinutes(2));
          }
          lastSend = System.nanoTime();
          settled = settled && waits.drain(events, deadLetters, deadline);
        }
        resubmitted = settled && broker.pastWindow(lastSend, deadline);
        if (resubmitted) {
          long copies = ChaosResubmit.run(broker.connectionString());
          producer.count(ChaosProducer.Source.DLQ_RESUBMIT, copies);
          log.printf(
              "  [%5.1f s] drained; resubmitted %d dead-lettered copies, draining again%n",
              seconds(started), copies);
          settled = waits.drain(events, deadLetters, deadline);
        } else {
          settled = false;
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
        injector.clear();
      } finally {
        faults.shutdownNow();
      }
      DeadLetters deadLetters = DeadLetters.peek(broker.connectionString(), QUEUE, 1_000_000);
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
      ChaosReport report =
          new ChaosReport(
              seed,
              replay(external),
              workers,
              CONSUMERS.size(),
              producer.sent(),
              producer.byKind(),
              producer.bySource(),
              httpCounts,
              WebhookAudit.counts(webhookLog),
              killCounts,
              nonKills(injected),
              notInjected(faultPlan, injected),
              external,
              heldBack.size(),
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

  /** The command that replays the run; the secrets of given endpoints are left out. */
  private String replay(boolean external) {
    String replay =
        String.format(
            "idemworker chaos --seed %d --messages %d --workers %d --kills %d",
            seed, messages, workers, kills);
    return external
        ? replay
            + " --servicebus-connection-string <…> --cosmos-endpoint "
            + cosmosEndpoint
            + " --cosmos-key <…> --cosmos-database "
            + cosmosDatabase
            + " --duplicate-detection-window "
            + duplicateWindow
        : replay;
  }

  /** The plan's faults other than kills, by kind. */
  private static Map<String, Integer> nonKills(FaultPlan plan) {
    Map<String, Integer> counts = new LinkedHashMap<>();
    plan.countByKind()
        .forEach(
            (k, v) -> {
              if (!k.isKill() && v > 0) {
                counts.put(k.name(), v);
              }
            });
    return counts;
  }

  /** What {@code planned} holds that {@code injected} does not, by kind. */
  private static Map<String, Integer> notInjected(FaultPlan planned, FaultPlan injected) {
    Map<String, Integer> counts = new LinkedHashMap<>();
    Map<FaultPlan.Kind, Integer> fired = injected.countByKind();
    planned
        .countByKind()
        .forEach(
            (k, v) -> {
              if (v > fired.get(k)) {
                counts.put(k.name(), v - fired.get(k));
              }
            });
    return counts;
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
}
