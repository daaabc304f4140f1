package io.idemworker.app;

import com.azure.core.credential.TokenCredential;
import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosContainer;
import io.idemworker.core.DeliveryObserver;
import io.idemworker.cosmos.StoreCallListener;
import io.idemworker.servicebus.ServiceBusWorker;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;

/** {@code run}: the production worker, configured by environment variables. */
@Command(
    name = "run",
    mixinStandardHelpOptions = true,
    description = {
      "Runs the worker: takes OrderPlaced messages from a Service Bus queue and writes each order",
      "to Cosmos DB exactly once. Configured by environment variables (see the README's",
      "configuration reference); every bad variable is reported at start-up. Stops cleanly on",
      "SIGTERM: stops taking messages, drains in-flight ones within WORKER_SHUTDOWN_TIMEOUT,",
      "flushes telemetry, exits 0."
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
    Supplier<TokenCredential> credential = Wiring.defaultCredential();
    CountDownLatch stopped = new CountDownLatch(1);
    try (CosmosClient cosmos = Wiring.cosmosClient(config, credential)) {
      CosmosContainer container = Wiring.container(cosmos, config);
      ServiceBusWorker worker =
          Wiring.worker(
              config,
              container,
              StoreCallListener.none(),
              DeliveryObserver.none(),
              credential,
              Clock.systemUTC());
      Thread hook =
          new Thread(
              () -> {
                LOG.info("SIGTERM: stopping");
                worker.shutdown(config.shutdownTimeout());
                stopped.countDown();
                System.out.flush();
                // SIGTERM is how Container Apps stops a replica: a clean drain is success.
                Runtime.getRuntime().halt(0);
              },
              "idemworker-shutdown");
      Runtime.getRuntime().addShutdownHook(hook);
      worker.start();
      stopped.await();
    }
    return 0;
  }
}
