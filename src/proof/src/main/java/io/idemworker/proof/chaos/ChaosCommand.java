package io.idemworker.proof.chaos;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosClientBuilder;
import io.idemworker.app.ConsumerWorkers;
import io.idemworker.cosmos.CosmosContainers;
import io.idemworker.emulator.cosmos.CosmosEmulator;
import io.idemworker.emulator.servicebus.QueueSettings;
import io.idemworker.emulator.servicebus.ServiceBusEmulator;
import io.idemworker.orders.OrderDocumentIds;
import io.idemworker.proof.audit.AuditedStores;
import io.idemworker.proof.emulators.AdjustableClock;
import io.idemworker.proof.emulators.EventTopic;
import io.idemworker.proof.emulators.LocalClients;
import io.idemworker.proof.producer.DemoScenario;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
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
public final class ChaosCommand implements Callable<Integer> {
  static final String QUEUE = "orders";
  static final String DATABASE = "idemworker";
  static final Duration WINDOW = Duration.ofSeconds(20);
  static final int MAX_BODY_BYTES = 64 * 1024;

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
      names = "--sessions",
      description =
          "Session mode: the workers run with SERVICEBUS_SESSIONS=true on a queue that requires"
              + " sessions; each order's status versions and credit are sent shuffled (in order per"
              + " session, across orders at random), with duplicates, SIGKILLs and a poison credit"
              + " in the middle of some orders, which park; once drained, the run releases or"
              + " discards them as an operator would; the audit checks every order at its highest"
              + " version with its credits once, parked orders released in order or discarded"
              + " with a record line each. Emulators only; no payments, HTTP intake or relay (see"
              + " docs/chaos.md).")
  boolean sessions;

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
              + " 'orders' and topic 'order-events'); with --cosmos-endpoint and --cosmos-key. With"
              + " --cosmos-endpoint given and this option not, read from the environment variable"
              + " CHAOS_SERVICEBUS_CONNECTION_STRING (a secret on a command line shows in the"
              + " process list).")
  String serviceBusConnectionString;

  @Option(
      names = "--cosmos-endpoint",
      description =
          "Run against this Cosmos DB account instead of an emulator (https URL); with"
              + " --servicebus-connection-string and --cosmos-key.")
  String cosmosEndpoint;

  @Option(
      names = "--cosmos-key",
      description =
          "The Cosmos DB account's key (given endpoints); with --cosmos-endpoint given and this"
              + " option not, read from the environment variable CHAOS_COSMOS_KEY.")
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
  Consumer<AuditedStores> tamper = stores -> {};

  /** For the tests: the same with {@code --sessions}, on the orders container. */
  Consumer<com.azure.cosmos.CosmosContainer> sessionsTamper = container -> {};

  private final PrintStream out;
  private final PrintStream err;

  /** The command as the command line mounts it: report to standard output, refusals to error. */
  public ChaosCommand() {
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

  /** The emulator's flag the worker processes get for its self-signed certificate (loopback). */
  private static final List<String> EMULATOR_TRUST =
      List.of("-DCOSMOS.EMULATOR_SERVER_CERTIFICATE_VALIDATION_DISABLED=true");

  /**
   * Runs the chaos run.
   *
   * @return 0 when the run drained and the audit found nothing lost, doubled or wrongly
   *     dead-lettered; 1 otherwise; 2 for refused options or endpoints not ready
   */
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
    if (sessions) {
      if (serviceBusConnectionString != null || cosmosEndpoint != null) {
        err.println("idemworker chaos: --sessions runs on the in-process emulators only");
        return 2;
      }
      Path sessionLogs =
          logDir != null
              ? Files.createDirectories(logDir)
              : Files.createTempDirectory("idemworker-chaos-sessions-");
      return new ChaosSessions(json ? err : out, out, json, sessionsTamper)
          .run(messages, workers, kills, seed, timeout, sessionLogs);
    }
    serviceBusConnectionString =
        ChaosEndpoints.secret(
            serviceBusConnectionString,
            cosmosEndpoint,
            System.getenv(),
            ChaosEndpoints.SERVICEBUS_CONNECTION_STRING_ENV);
    cosmosKey =
        ChaosEndpoints.secret(
            cosmosKey, cosmosEndpoint, System.getenv(), ChaosEndpoints.COSMOS_KEY_ENV);
    List<String> missing =
        ChaosEndpoints.missing(serviceBusConnectionString, cosmosEndpoint, cosmosKey);
    if (!missing.isEmpty()) {
      err.println(
          "idemworker chaos: given endpoints need "
              + String.join(", ", ChaosEndpoints.OPTIONS)
              + " together (the two secrets may come from "
              + ChaosEndpoints.SERVICEBUS_CONNECTION_STRING_ENV
              + " and "
              + ChaosEndpoints.COSMOS_KEY_ENV
              + "); missing: "
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
    ChaosRun.Plan plan =
        new ChaosRun.Plan(
            scenario,
            new ChaosProducer(scenario, waves),
            waves,
            log,
            logs,
            seed,
            workers,
            kills,
            timeout,
            replay(given.isPresent()));
    return given.isPresent() ? external(plan, given.get()) : emulated(plan);
  }

  /** Against the run's own emulators, whose faults it injects and whose clock it moves. */
  private int emulated(ChaosRun.Plan plan) throws Exception {
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
                .topic(EventTopic.settings(WINDOW))
                .start();
        CosmosEmulator cosmos = CosmosEmulator.builder().port(0).start();
        CosmosClient cosmosClient = LocalClients.cosmos(cosmos);
        ChaosBroker broker = ChaosBroker.emulated(serviceBus, brokerClock, WINDOW, plan.log())) {
      CosmosContainers.ensureExists(
          cosmosClient, DATABASE, QUEUE, OrderDocumentIds.PARTITION_KEY_PATH);
      ConsumerWorkers.customers(cosmosClient, DATABASE);
      return new ChaosRun(plan, out, json, tamper)
          .against(
              broker,
              Optional.of(cosmos),
              cosmosClient,
              DATABASE,
              ChaosEnvironment.base(
                  serviceBus.connectionString(),
                  URI.create(cosmos.endpoint()),
                  cosmos.key(),
                  DATABASE),
              EMULATOR_TRUST);
    }
  }

  /**
   * Against the endpoints given: nothing is started but the workers, the payment double and the
   * HTTP intake; the entities must exist and be empty.
   */
  private int external(ChaosRun.Plan plan, ChaosEndpoints given) throws Exception {
    given.emulatorHost().ifPresent(h -> System.setProperty("COSMOS.EMULATOR_HOST", h));
    if (!given.trustOptions().isEmpty()) {
      System.setProperty("COSMOS.EMULATOR_SERVER_CERTIFICATE_VALIDATION_DISABLED", "true");
    }
    CosmosClient cosmosClient;
    try {
      cosmosClient =
          new CosmosClientBuilder()
              .endpoint(given.cosmosEndpoint().toString())
              .key(given.cosmosKey())
              .gatewayMode()
              .contentResponseOnWriteEnabled(false)
              .buildClient();
    } catch (RuntimeException e) {
      // The client reads the account when it is built: a wrong endpoint or key fails here.
      String why = String.valueOf(e.getMessage()).lines().findFirst().orElse("");
      err.println(
          "idemworker chaos: the Cosmos DB account at "
              + given.cosmosEndpoint()
              + " cannot be reached: "
              + why.substring(0, Math.min(300, why.length())));
      return 2;
    }
    try (cosmosClient;
        ChaosBroker broker =
            ChaosBroker.external(
                given.serviceBusConnectionString(), given.duplicateWindow(), plan.log())) {
      if (createContainers) {
        CosmosContainers.ensureExists(
            cosmosClient, given.cosmosDatabase(), QUEUE, OrderDocumentIds.PARTITION_KEY_PATH);
        ConsumerWorkers.customers(cosmosClient, given.cosmosDatabase());
      }
      List<String> problems = given.problems(cosmosClient);
      if (!problems.isEmpty()) {
        err.println(
            "idemworker chaos: the endpoints given are not ready for a run (nothing is"
                + " purged here, nor created but containers with --create-containers):");
        problems.forEach(p -> err.println("  " + p));
        return 2;
      }
      return new ChaosRun(plan, out, json, tamper)
          .against(
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
}
