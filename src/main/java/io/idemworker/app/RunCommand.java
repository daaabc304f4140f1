package io.idemworker.app;

import com.azure.core.credential.TokenCredential;
import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosContainer;
import io.idemworker.servicebus.ServiceBusWorker;
import io.idemworker.servicebus.WorkerStatus;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
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
      "Takes OrderPlaced messages from a Service Bus queue and writes each order to Cosmos DB exactly once. Configured by environment variables (see the README's configuration reference); every bad variable is reported at start-up and the exit code is 2. Serves GET /health/live and /health/ready on HEALTH_PORT. Stops cleanly on SIGTERM: stops taking messages, drains in-flight ones within WORKER_SHUTDOWN_TIMEOUT, flushes telemetry, exits 0."
    })
final class RunCommand implements Callable<Integer> {
  private static final Logger LOG = LoggerFactory.getLogger(RunCommand.class);

  private final Map<String, String> env;

  RunCommand() {
    this(System.getenv());
  }

  RunCommand(Map<String, String> env) {
    this.env = env;
  }

  @Override
  public Integer call() throws InterruptedException {
    WorkerConfig config;
    try {
      config = WorkerConfig.fromEnvironment(env);
    } catch (WorkerConfig.ConfigurationException e) {
      System.err.println("idemworker: " + e.getMessage());
      return 2;
    }
    AtomicReference<ServiceBusWorker> running = new AtomicReference<>();
    Supplier<WorkerStatus> status =
        () ->
            Optional.ofNullable(running.get())
                .map(ServiceBusWorker::status)
                .orElse(new WorkerStatus(WorkerStatus.State.CREATED, Optional.of("starting")));
    Telemetry telemetry = Telemetry.fromEnvironment(env);
    LOG.info("telemetry export: {}", telemetry.export().describe());
    HealthServer health = new HealthServer(config.healthPort(), status);
    health.start();
    LOG.info("health endpoints on port {}", health.port());
    Supplier<TokenCredential> credential = Wiring.defaultCredential();
    CountDownLatch stopped = new CountDownLatch(1);
    CosmosClient cosmos = Wiring.cosmosClient(config, credential);
    CosmosContainer container = Wiring.container(cosmos, config);
    ServiceBusWorker worker =
        Wiring.worker(
            config,
            container,
            telemetry.storeListener(),
            telemetry.observer(new OutcomeLog()),
            credential,
            Clock.systemUTC());
    running.set(worker);
    WorkerConfig stopConfig = config;
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  LOG.info("stopping: no new messages; draining in-flight ones");
                  boolean drained = worker.shutdown(stopConfig.shutdownTimeout());
                  health.close();
                  telemetry.close();
                  cosmos.close();
                  LOG.info("stopped (all in-flight settled: {})", drained);
                  stopped.countDown();
                  System.out.flush();
                  System.err.flush();
                  // SIGTERM is how Container Apps stops a replica: a clean drain is success.
                  Runtime.getRuntime().halt(0);
                },
                "idemworker-shutdown"));
    worker.start();
    stopped.await();
    return 0;
  }
}
