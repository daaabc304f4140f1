package io.idemworker.app;

import com.azure.core.credential.TokenCredential;
import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.models.CosmosContainerProperties;
import io.idemworker.cosmos.CosmosContainers;
import io.idemworker.relay.OutboxRelay;
import io.idemworker.servicebus.MessageWorker;
import io.idemworker.servicebus.QueueRetentionCheck;
import io.idemworker.servicebus.SessionRequirementCheck;
import io.idemworker.servicebus.WorkerStatus;
import io.idemworker.servicebus.processor.ServiceBusWorker;
import io.idemworker.telemetry.HealthServer;
import io.idemworker.telemetry.OutcomeLog;
import io.idemworker.telemetry.RelayMetrics;
import io.idemworker.telemetry.Telemetry;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;

/** {@code run}: the production worker, configured by environment variables. */
@Command(
    name = "run",
    mixinStandardHelpOptions = true,
    description = {
      "Runs the worker against Service Bus and Cosmos DB.",
      "",
      "Takes OrderPlaced messages from a Service Bus queue and writes each order to Cosmos DB exactly once; with WORKER_ROLE loyalty or customer-stats, takes OrderAccepted events from a topic subscription instead and applies that consumer's effect exactly once. Configured by environment variables (see the README's configuration reference); every bad variable is reported at start-up and the exit code is 2. Serves GET /health/live and /health/ready on HEALTH_PORT. Stops cleanly on SIGTERM: stops taking messages, drains in-flight ones within WORKER_SHUTDOWN_TIMEOUT, flushes telemetry, exits 0. In the orders role, unless RELAY_ENABLED is false, also runs the outbox relay (see 'relay')."
    })
final class RunCommand implements Callable<Integer> {
  private static final Logger LOG = LoggerFactory.getLogger(RunCommand.class);
  private static final Duration STARTUP_RETRY = Duration.ofSeconds(5);
  // The first probe of a new JVM also pays for the client's class loading and connection: 3 s
  // missed the refusal of a consumer's subscription on a loaded 2-core machine, and the worker then
  // started against an entity that refuses it. Session mode waits for the answer, but while the
  // Cosmos DB client starts, so the bound costs start-up time only where it exceeds that start
  // (on an idle session entity, where the probe finds no session to accept).
  private static final Duration SESSION_PROBE = Duration.ofSeconds(10);

  private final Map<String, String> env;

  RunCommand() {
    this(System.getenv());
  }

  RunCommand(Map<String, String> env) {
    this.env = env;
  }

  /** What a process runs. */
  enum Parts {
    /** The worker, and the outbox relay unless {@code RELAY_ENABLED} is false ({@code run}). */
    WORKER,
    /** The outbox relay alone ({@code relay}). */
    RELAY_ONLY
  }

  @Override
  public Integer call() throws InterruptedException {
    return run(Parts.WORKER);
  }

  /**
   * Runs until SIGTERM.
   *
   * @param parts what to run
   * @return the exit code: 0 after a clean stop, 2 for a bad configuration
   * @throws InterruptedException when interrupted while waiting
   */
  int run(Parts parts) throws InterruptedException {
    WorkerConfig config;
    try {
      config = WorkerConfig.fromEnvironment(env);
    } catch (WorkerConfig.ConfigurationException e) {
      System.err.println("idemworker: " + e.getMessage());
      return 2;
    }
    boolean runWorker = parts == Parts.WORKER;
    // The relay publishes the orders container's outbox; a consumer role has none to publish.
    boolean runRelay =
        parts == Parts.RELAY_ONLY || (config.relay().enabled() && config.consumerRole().isEmpty());
    AtomicReference<MessageWorker> running = new AtomicReference<>();
    AtomicReference<OutboxRelay> relaying = new AtomicReference<>();
    AtomicReference<String> startup = new AtomicReference<>("starting");
    Supplier<WorkerStatus> starting =
        () -> new WorkerStatus(WorkerStatus.State.CREATED, Optional.of(startup.get()));
    Supplier<WorkerStatus> status =
        () -> {
          if (runWorker) {
            WorkerStatus worker =
                Optional.ofNullable(running.get()).map(MessageWorker::status).orElseGet(starting);
            if (!worker.ready() || !runRelay) {
              return worker;
            }
          }
          return Optional.ofNullable(relaying.get())
              .map(OutboxRelay::status)
              .map(
                  relay ->
                      relay.ready()
                          ? relay
                          : new WorkerStatus(
                              relay.state(), relay.reason().map(reason -> "relay: " + reason)))
              .orElseGet(starting);
        };
    Telemetry telemetry;
    try {
      telemetry = OrderTelemetry.fromEnvironment(env);
    } catch (RuntimeException e) {
      // The start-up check covers the known variables; any other OTEL_* value the SDK refuses
      // is still a configuration error, not a crash.
      System.err.println("idemworker: invalid configuration: telemetry: " + e.getMessage());
      return 2;
    }
    LOG.info("telemetry export: {}", telemetry.export().describe());
    RelayMetrics relayMetrics = telemetry.relayMetrics();
    HealthServer health = new HealthServer(config.healthBind(), config.healthPort(), status);
    health.start();
    LOG.info("health endpoints on port {}", health.port());
    CountDownLatch stopping = new CountDownLatch(1);
    AtomicInteger exitCode = new AtomicInteger(0);
    AtomicReference<CosmosClient> cosmos = new AtomicReference<>();
    ScheduledExecutorService relayExecutor = Wiring.relayExecutor();
    Duration shutdownTimeout = config.shutdownTimeout();
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  LOG.info("stopping: no new messages; draining in-flight ones");
                  stopping.countDown();
                  MessageWorker worker = running.get();
                  boolean drained = worker == null || worker.shutdown(shutdownTimeout);
                  // After the worker, so events its last messages wrote still go out; the lease
                  // is given up so another replica takes over at once.
                  Optional.ofNullable(relaying.get()).ifPresent(OutboxRelay::close);
                  relayExecutor.shutdownNow();
                  relayMetrics.close();
                  health.close();
                  telemetry.close();
                  Optional.ofNullable(cosmos.get()).ifPresent(CosmosClient::close);
                  LOG.info("stopped (all in-flight settled: {})", drained);
                  System.out.flush();
                  System.err.flush();
                  // SIGTERM is how Container Apps stops a replica: a clean drain is success. A
                  // start-up refusal ends the JVM through this hook too, and keeps its code 2.
                  Runtime.getRuntime().halt(exitCode.get());
                },
                "idemworker-shutdown"));

    Supplier<TokenCredential> credential = Wiring.defaultCredential();
    // The queue's properties are read (management API, up to 10 s) while Cosmos DB starts, not
    // after it: a new replica's first message waits for both, one after the other otherwise.
    CompletableFuture<QueueRetentionCheck.Result> queueChecked =
        !runWorker || config.subscription().isPresent()
            ? CompletableFuture.completedFuture(
                new QueueRetentionCheck.NotChecked(
                    "a topic subscription: its lock duration, delivery count and message TTL are"
                        + " taken from the configuration as given"))
            : CompletableFuture.supplyAsync(
                () ->
                    QueueRetentionCheck.check(
                        Wiring.serviceBus(config, credential),
                        config.queueName(),
                        config.retention(),
                        Duration.ofSeconds(10)));
    // Whether the queue, or a consumer role's subscription, requires sessions as
    // SERVICEBUS_SESSIONS says: asked while Cosmos DB starts. Session mode waits for the answer;
    // the plain worker does not (its first message must not wait for a probe that can only time
    // out) and exits 2 if the answer comes back no.
    CompletableFuture<SessionRequirementCheck.Result> sessionsChecked =
        !runWorker
            ? CompletableFuture.completedFuture(
                new SessionRequirementCheck.NotChecked("no worker runs"))
            : CompletableFuture.supplyAsync(
                () ->
                    SessionRequirementCheck.check(
                        Wiring.serviceBus(config, credential),
                        config.source(),
                        config.sessions().isPresent(),
                        SESSION_PROBE));
    if (config.sessions().isEmpty()) {
      sessionsChecked.thenAccept(
          result -> {
            if (result instanceof SessionRequirementCheck.Differs differs) {
              System.err.println("idemworker: " + StartupRefusals.sessions(differs));
              refused(exitCode);
              System.exit(2);
            }
          });
    }
    CosmosContainer container = null;
    boolean ttlOn = false;
    String partitionKeyPath = "";
    while (container == null) {
      try {
        cosmos.set(Wiring.cosmosClient(config, credential));
        CosmosContainer candidate = Wiring.container(cosmos.get(), config);
        // One read for both checks: each round trip delays the first message of a new replica.
        CosmosContainerProperties properties = candidate.read().getProperties();
        ttlOn = CosmosContainers.honoursItemTtl(properties);
        partitionKeyPath = CosmosContainers.partitionKeyPath(properties);
        container = candidate;
      } catch (RuntimeException e) {
        // A wrong key or a missing role fails here, before any message: report not ready and
        // retry, as for a misconfiguration found while running, instead of crash-looping.
        Optional.ofNullable(cosmos.getAndSet(null)).ifPresent(CosmosClient::close);
        String problem = "Cosmos DB client could not start: " + rootCause(e);
        startup.set(problem);
        LOG.error("{}; retrying in {}", problem, STARTUP_RETRY);
        if (stopping.await(STARTUP_RETRY.toMillis(), TimeUnit.MILLISECONDS)) {
          return 0;
        }
      }
    }
    if (!partitionKeyPath.equals(Wiring.partitionKeyPath(config))) {
      System.err.println(
          "idemworker: COSMOS_CONTAINER, WORKER_ROLE: container "
              + config.cosmosContainer()
              + " is partitioned by "
              + partitionKeyPath
              + ", but the role "
              + config.consumerRole().map(r -> r.roleName()).orElse("orders")
              + " writes documents partitioned by "
              + Wiring.partitionKeyPath(config)
              + ": every write would be refused");
      Optional.ofNullable(cosmos.getAndSet(null)).ifPresent(CosmosClient::close);
      return refused(exitCode);
    }
    if (!ttlOn) {
      System.err.println(
          "idemworker: COSMOS_CONTAINER: container "
              + config.cosmosContainer()
              + " has TTL off (no defaultTtl), so inbox markers (WORKER_INBOX_TTL "
              + config.inboxTtl().map(Duration::toString).orElse("never")
              + ") and outbox events (7 days) would never expire: turn it on with"
              + " defaultTtl -1");
      Optional.ofNullable(cosmos.getAndSet(null)).ifPresent(CosmosClient::close);
      return refused(exitCode);
    }
    if (config.sessions().isPresent()
        && sessionsChecked.join() instanceof SessionRequirementCheck.Differs differs) {
      System.err.println("idemworker: " + StartupRefusals.sessions(differs));
      Optional.ofNullable(cosmos.getAndSet(null)).ifPresent(CosmosClient::close);
      return refused(exitCode);
    }
    if (runWorker) {
      LOG.info(
          "inbox markers live {}; redelivery horizon {}",
          config.inboxTtl().map(Duration::toString).orElse("forever"),
          config.retention().horizon());
      QueueRetentionCheck.Result queueCheck = queueChecked.join();
      if (queueCheck instanceof QueueRetentionCheck.Differs differs) {
        System.err.println(
            "idemworker: the queue's properties differ from the configuration: "
                + String.join("; ", StartupRefusals.queue(differs)));
        Optional.ofNullable(cosmos.getAndSet(null)).ifPresent(CosmosClient::close);
        return refused(exitCode);
      }
      if (queueCheck instanceof QueueRetentionCheck.NotChecked notChecked) {
        LOG.info("queue retention values not cross-checked: {}", notChecked.why());
      }
    }
    if (runRelay) {
      OutboxRelay relay =
          Wiring.relay(
              config, container, credential, relayMetrics, Clock.systemUTC(), relayExecutor);
      relayMetrics.observe(relay);
      relaying.set(relay);
      LOG.info("outbox relay to topic {}", config.relay().topicName());
    } else {
      LOG.info("outbox relay off (RELAY_ENABLED=false)");
    }
    if (runWorker) {
      running.set(
          Wiring.messageWorker(
              config,
              container,
              telemetry.storeListener(),
              telemetry.observer(new OutcomeLog(OrderTelemetry.NAMES)),
              telemetry.sessionMetrics(),
              credential,
              Clock.systemUTC()));
    }
    if (stopping.getCount() == 0) {
      return 0;
    }
    if (running.get() instanceof ServiceBusWorker plain) {
      // The probe above can answer nothing within its bound on a slow start; then the refusal
      // comes as the processor's error, which it would retry for ever: exit 2 the same way.
      plain.onSessionsRefused(
          differs ->
              new Thread(
                      () -> {
                        System.err.println("idemworker: " + StartupRefusals.sessions(differs));
                        refused(exitCode);
                        System.exit(2);
                      },
                      "idemworker-refused")
                  .start());
    }
    Optional.ofNullable(relaying.get()).ifPresent(OutboxRelay::start);
    Optional.ofNullable(running.get()).ifPresent(MessageWorker::start);
    stopping.await();
    return 0;
  }

  /** A start-up check refused the configuration: exit code 2, also through the shutdown hook. */
  private static int refused(AtomicInteger exitCode) {
    exitCode.set(2);
    return 2;
  }

  private static String rootCause(Throwable e) {
    Throwable cause = e;
    while (cause.getCause() != null && cause.getCause() != cause) {
      cause = cause.getCause();
    }
    String message = String.valueOf(cause.getMessage());
    return cause.getClass().getSimpleName()
        + ": "
        + (message.length() > 300 ? message.substring(0, 300) + "…" : message);
  }
}
