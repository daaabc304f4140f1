package io.idemworker.app;

import com.azure.core.credential.TokenCredential;
import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.models.CosmosContainerProperties;
import io.idemworker.cosmos.CosmosContainers;
import io.idemworker.cosmos.CosmosEffectStore;
import io.idemworker.http.ApiAuth;
import io.idemworker.http.ApiServer;
import io.idemworker.http.IntakeFaults;
import io.idemworker.http.OrderApi;
import io.idemworker.orders.OrderDocumentIds;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;

/** {@code api}: the HTTP order intake, configured by environment variables. */
@Command(
    name = "api",
    mixinStandardHelpOptions = true,
    description = {
      "Runs the HTTP order intake: POST /orders with an Idempotency-Key header.",
      "",
      "Writes each order to Cosmos DB with the worker's own validation and atomic write, so an order that arrives by HTTP and by the queue is one order; stores each answer with its key for API_IDEMPOTENCY_TTL and replays it to retries (Idempotent-Replayed: true). Same key with another body: 422; while the first request is in flight: 409 with Retry-After; no key: 400; invalid order: 400 problem details naming the field. Also GET /orders/{orderId} and GET /health/live, /health/ready, all on API_BIND:API_PORT (loopback unless set). Authentication by API_AUTH (apikey: X-Api-Key; entra: Container Apps authentication in front, its identity headers checked and the calling application one of API_ENTRA_ALLOWED_APPLICATIONS; each caller sees only its own orders). The server bounds what a client can hold: API_HEADER_TIMEOUT and API_BODY_TIMEOUT (408), API_MAX_CONNECTIONS and API_MAX_CONNECTIONS_PER_CLIENT, API_MAX_IN_FLIGHT requests working (503 Busy beyond) and API_MAX_IN_FLIGHT_PER_CALLER (429); the probes answer while the intake is full. POST /webhooks/payments receives the payment provider's signed events on the same port: it authenticates by its signature (PAYMENTS_WEBHOOK_SECRET), not by API_AUTH, applies each event once behind a webhook:{eventId} marker kept for PAYMENTS_WEBHOOK_MARKER_TTL, and answers 503 while the secret is unset. Every bad variable is reported at start-up and the exit code is 2. Stops on SIGTERM and exits 0."
    })
final class ApiCommand implements Callable<Integer> {
  private static final Logger LOG = LoggerFactory.getLogger(ApiCommand.class);
  private static final Duration STARTUP_RETRY = Duration.ofSeconds(5);

  private final Map<String, String> env;

  ApiCommand() {
    this(System.getenv());
  }

  ApiCommand(Map<String, String> env) {
    this.env = env;
  }

  @Override
  public Integer call() throws InterruptedException {
    ApiConfig config;
    try {
      config = ApiConfig.fromEnvironment(env);
    } catch (WorkerConfig.ConfigurationException e) {
      System.err.println("idemworker: " + e.getMessage());
      return 2;
    }
    CountDownLatch stopping = new CountDownLatch(1);
    AtomicReference<ApiServer> serving = new AtomicReference<>();
    AtomicReference<CosmosClient> cosmos = new AtomicReference<>();
    AtomicInteger exitCode = new AtomicInteger(0);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  LOG.info("stopping: no new requests");
                  stopping.countDown();
                  Optional.ofNullable(serving.get()).ifPresent(ApiServer::close);
                  Optional.ofNullable(cosmos.get()).ifPresent(CosmosClient::close);
                  LOG.info("stopped");
                  System.out.flush();
                  System.err.flush();
                  Runtime.getRuntime().halt(exitCode.get());
                },
                "idemworker-api-shutdown"));

    Supplier<TokenCredential> credential = Wiring.defaultCredential();
    CosmosContainer container = null;
    while (container == null) {
      try {
        cosmos.set(
            Wiring.cosmosClient(
                config.cosmosEndpoint(),
                config.cosmosKey(),
                config.cosmosGatewayMode(),
                credential));
        CosmosContainer candidate =
            config.createContainer()
                ? CosmosContainers.ensureExists(
                    cosmos.get(),
                    config.cosmosDatabase(),
                    config.cosmosContainer(),
                    OrderDocumentIds.PARTITION_KEY_PATH)
                : cosmos
                    .get()
                    .getDatabase(config.cosmosDatabase())
                    .getContainer(config.cosmosContainer());
        CosmosContainerProperties properties = candidate.read().getProperties();
        String path = CosmosContainers.partitionKeyPath(properties);
        if (!path.equals(OrderDocumentIds.PARTITION_KEY_PATH)) {
          System.err.println(
              "idemworker: COSMOS_CONTAINER: container "
                  + config.cosmosContainer()
                  + " is partitioned by "
                  + path
                  + ", but orders are partitioned by "
                  + OrderDocumentIds.PARTITION_KEY_PATH);
          exitCode.set(2);
          return 2;
        }
        if (!CosmosContainers.honoursItemTtl(properties)) {
          System.err.println(
              "idemworker: COSMOS_CONTAINER: container "
                  + config.cosmosContainer()
                  + " has TTL off (no defaultTtl), so stored answers (API_IDEMPOTENCY_TTL) would"
                  + " never expire: turn it on with defaultTtl -1");
          exitCode.set(2);
          return 2;
        }
        container = candidate;
      } catch (RuntimeException e) {
        Optional.ofNullable(cosmos.getAndSet(null)).ifPresent(CosmosClient::close);
        LOG.error(
            "Cosmos DB client could not start: {}; retrying in {}",
            e.getClass().getSimpleName(),
            STARTUP_RETRY);
        if (stopping.await(STARTUP_RETRY.toMillis(), TimeUnit.MILLISECONDS)) {
          return 0;
        }
      }
    }
    CosmosEffectStore store =
        new CosmosEffectStore(
            container, (op, status, charge, latency) -> {}, OrderDocumentIds.PARTITION_KEY_PATH);
    ApiAuth auth =
        switch (config.auth()) {
          case APIKEY -> ApiAuth.apiKey(config.apiKey().orElseThrow());
          case ENTRA -> ApiAuth.entra(config.entraAllowedApplications());
          case NONE -> ApiAuth.none();
        };
    ApiServer server =
        OrderApi.create(
            new InetSocketAddress(config.bind(), config.port()),
            store,
            auth,
            config.lease(),
            config.window(),
            config.maxBodyBytes(),
            Clock.systemUTC(),
            IntakeFaults.NONE,
            config.limits(),
            store::problem,
            new OrderApi.Webhooks(config.webhookSecret(), config.webhookMarkerTtl()));
    serving.set(server);
    if (stopping.getCount() == 0) {
      return 0;
    }
    server.start();
    LOG.info(
        "api on {}:{} ({}), auth {}, answers replayed for {}, payment webhooks {}",
        config.bind().getHostAddress(),
        server.port(),
        String.join(", ", server.describe()),
        config.auth().name().toLowerCase(java.util.Locale.ROOT),
        config.window(),
        config.webhookSecret().isPresent()
            ? "signed with PAYMENTS_WEBHOOK_SECRET, markers kept "
                + config.webhookMarkerTtl().map(Duration::toString).orElse("forever")
            : "answered 503 (PAYMENTS_WEBHOOK_SECRET unset)");
    stopping.await();
    return 0;
  }
}
