package io.idemworker.app;

import com.azure.core.credential.TokenCredential;
import com.azure.cosmos.ConsistencyLevel;
import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosClientBuilder;
import com.azure.cosmos.CosmosContainer;
import com.azure.identity.DefaultAzureCredentialBuilder;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import io.idemworker.consumers.CustomerConsumers;
import io.idemworker.consumers.CustomerDocumentIds;
import io.idemworker.core.DeliveryObserver;
import io.idemworker.core.EffectStore;
import io.idemworker.core.IdempotentConsumer;
import io.idemworker.core.KeyStrategies;
import io.idemworker.core.KeyStrategy;
import io.idemworker.core.MessageDecoder;
import io.idemworker.cosmos.CosmosContainers;
import io.idemworker.cosmos.CosmosEffectStore;
import io.idemworker.cosmos.StoreCallListener;
import io.idemworker.operator.WorkerTarget;
import io.idemworker.orders.InboxMarkers;
import io.idemworker.orders.OrderDocumentIds;
import io.idemworker.orders.OrderMessageTypes;
import io.idemworker.payments.HttpPaymentProvider;
import io.idemworker.relay.OutboxRelay;
import io.idemworker.relay.RelayListener;
import io.idemworker.relay.RelaySettings;
import io.idemworker.servicebus.MessageWorker;
import io.idemworker.servicebus.ProcessorSettings;
import io.idemworker.servicebus.ServiceBusConnection;
import io.idemworker.servicebus.processor.ProcessorSessions;
import io.idemworker.servicebus.processor.ServiceBusWorker;
import io.idemworker.servicebus.sessions.SessionEvents;
import io.idemworker.servicebus.sessions.SessionListener;
import io.idemworker.servicebus.sessions.SessionWorker;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Supplier;

/** Builds the worker's parts from a {@link WorkerConfig}; the one place that knows them all. */
public final class Wiring {
  private Wiring() {}

  static ServiceBusConnection serviceBus(
      WorkerConfig config, Supplier<TokenCredential> credential) {
    return ServiceBusConnection.of(
        config.serviceBusConnectionString(), config.serviceBusNamespace(), credential);
  }

  static CosmosClient cosmosClient(WorkerConfig config, Supplier<TokenCredential> credential) {
    return cosmosClient(
        config.cosmosEndpoint(), config.cosmosKey(), config.cosmosGatewayMode(), credential);
  }

  /**
   * A session-consistency client that does not echo written items back; the account key when there
   * is one, else Entra ID (the credential is built only in that second case).
   */
  static CosmosClient cosmosClient(
      URI endpoint,
      Optional<String> key,
      boolean gatewayMode,
      Supplier<TokenCredential> credential) {
    CosmosClientBuilder builder =
        new CosmosClientBuilder()
            .endpoint(endpoint.toString())
            .consistencyLevel(ConsistencyLevel.SESSION)
            .contentResponseOnWriteEnabled(false);
    builder = key.isPresent() ? builder.key(key.get()) : builder.credential(credential.get());
    builder = gatewayMode ? builder.gatewayMode() : builder.directMode();
    return builder.buildClient();
  }

  static CosmosContainer container(CosmosClient client, WorkerConfig config) {
    return config.createContainer()
        ? CosmosContainers.ensureExists(
            client, config.cosmosDatabase(), config.cosmosContainer(), partitionKeyPath(config))
        : client.getDatabase(config.cosmosDatabase()).getContainer(config.cosmosContainer());
  }

  /**
   * The partition key path the role's documents need: {@code /orderId} for the order worker, {@code
   * /customerId} for the topic consumers.
   */
  static String partitionKeyPath(WorkerConfig config) {
    return config.consumerRole().isPresent()
        ? CustomerDocumentIds.PARTITION_KEY_PATH
        : OrderDocumentIds.PARTITION_KEY_PATH;
  }

  /**
   * The key strategy. The order worker prefixes keys with {@code WORKER_CONSUMER_NAME}; a topic
   * consumer does not, because its marker id already names the consumer ({@code
   * inbox:{consumer}:{eventId}}).
   */
  static KeyStrategy keyStrategy(WorkerConfig config) {
    KeyStrategy base =
        config.keyStrategy() == WorkerConfig.KeyStrategyName.CLOUDEVENTS
            ? KeyStrategies.cloudEvents()
            : KeyStrategies.messageId();
    if (config.consumerRole().isPresent()) {
      return base;
    }
    return config.consumerName().map(name -> KeyStrategies.prefixed(name, base)).orElse(base);
  }

  /** The decoder the role runs: the order message types, or one consumer's handlers. */
  static MessageDecoder decoder(WorkerConfig config) {
    if (config.consumerRole().isPresent()) {
      return CustomerConsumers.decoder(config.consumerRole().get(), markers(config));
    }
    return OrderMessageTypes.decoder(
        config.keyStrategy() == WorkerConfig.KeyStrategyName.MESSAGE_ID,
        markers(config),
        config
            .payments()
            .map(
                p ->
                    new OrderMessageTypes.Payments(
                        new HttpPaymentProvider(p.baseUrl(), p.apiKey(), p.timeout()),
                        p.lease(),
                        p.timeout())));
  }

  static IdempotentConsumer consumer(WorkerConfig config, EffectStore store, Clock clock) {
    return new IdempotentConsumer(
        keyStrategy(config),
        decoder(config),
        store,
        clock,
        config.maxBodyBytes(),
        config.retention().maxDeliveryCount());
  }

  static InboxMarkers markers(WorkerConfig config) {
    return new InboxMarkers(config.markerConsumer(), config.inboxTtl());
  }

  static ProcessorSettings processorSettings(WorkerConfig config) {
    return new ProcessorSettings(
        config.source(),
        config.maxConcurrentCalls(),
        config.prefetchCount(),
        config.maxLockRenewal(),
        Duration.ofSeconds(2),
        Duration.ofSeconds(5),
        Math.max(32, 2 * config.maxConcurrentCalls()));
  }

  static ServiceBusWorker worker(
      WorkerConfig config,
      CosmosContainer container,
      StoreCallListener storeListener,
      DeliveryObserver observer,
      Supplier<TokenCredential> credential,
      Clock clock) {
    CosmosEffectStore store =
        new CosmosEffectStore(container, storeListener, partitionKeyPath(config));
    return new ServiceBusWorker(
        serviceBus(config, credential),
        processorSettings(config),
        consumer(config, store, clock),
        store,
        observer,
        clock);
  }

  /**
   * The worker {@code run} starts: when {@code SERVICEBUS_SESSIONS} is true, the {@link
   * SessionWorker} for the orders role and the plain {@link ServiceBusWorker} in session mode for a
   * topic consumer; else the plain {@link ServiceBusWorker}.
   *
   * @param sessionListener hears session mode's events (its metrics); unused by the plain worker
   */
  static MessageWorker messageWorker(
      WorkerConfig config,
      CosmosContainer container,
      StoreCallListener storeListener,
      DeliveryObserver observer,
      SessionListener sessionListener,
      Supplier<TokenCredential> credential,
      Clock clock) {
    if (config.sessions().isEmpty()) {
      return worker(config, container, storeListener, observer, credential, clock);
    }
    CosmosEffectStore store =
        new CosmosEffectStore(container, storeListener, partitionKeyPath(config));
    if (config.consumerRole().isPresent()) {
      // A topic consumer needs neither session state nor deferral: the SDK's session processor.
      return ServiceBusWorker.withSessions(
          serviceBus(config, credential),
          processorSettings(config),
          ProcessorSessions.of(config.sessions().get(), CustomerConsumers::sessionOf),
          consumer(config, store, clock),
          store,
          observer,
          clock);
    }
    return new SessionWorker(
        serviceBus(config, credential),
        processorSettings(config),
        config.sessions().get(),
        consumer(config, store, clock),
        decoder(config),
        store,
        store,
        observer,
        new SessionEvents(sessionListener),
        clock);
  }

  /**
   * The outbox relay over the orders container, sending to {@code RELAY_TOPIC_NAME} with the same
   * Service Bus connection as the worker.
   */
  static OutboxRelay relay(
      WorkerConfig config,
      CosmosContainer container,
      Supplier<TokenCredential> credential,
      RelayListener listener,
      Clock clock,
      ScheduledExecutorService executor) {
    ServiceBusSenderClient sender =
        serviceBus(config, credential)
            .builder()
            .sender()
            .topicName(config.relay().topicName())
            .buildClient();
    return OutboxRelay.create(container, sender, relaySettings(config), listener, clock, executor);
  }

  /** The relay's settings; the owner id is this host's name plus a random suffix. */
  static RelaySettings relaySettings(WorkerConfig config) {
    WorkerConfig.RelayConfig relay = config.relay();
    return new RelaySettings(
        relay.topicName(),
        ownerId(),
        relay.leaseDuration(),
        OrderDocumentIds.OUTBOX_EVENT_TTL,
        relay.batchSize(),
        relay.pollInterval());
  }

  /**
   * A replica's name in the relay lease: the host name (a Container Apps replica's name) and a
   * random suffix, so a restarted process on the same host is a new owner and waits for the old
   * lease like any other replica.
   */
  static String ownerId() {
    String host;
    try {
      host = java.net.InetAddress.getLocalHost().getHostName();
    } catch (java.io.IOException e) {
      host = "relay";
    }
    String clean = host.replaceAll("[^A-Za-z0-9._:\\-]", "-");
    if (clean.isEmpty()) {
      clean = "relay";
    }
    if (clean.length() > 100) {
      clean = clean.substring(0, 100);
    }
    return clean + "-" + java.util.UUID.randomUUID().toString().substring(0, 8);
  }

  /**
   * The relay's thread, for its cycles; a daemon, so a relay never keeps the JVM alive.
   *
   * @return the executor
   */
  public static ScheduledExecutorService relayExecutor() {
    java.util.concurrent.atomic.AtomicInteger threads =
        new java.util.concurrent.atomic.AtomicInteger();
    return java.util.concurrent.Executors.newScheduledThreadPool(
        1,
        r -> {
          Thread thread = new Thread(r, "outbox-relay-" + threads.incrementAndGet());
          thread.setDaemon(true);
          return thread;
        });
  }

  /**
   * The worker deployment that {@code explain} looks at, read and checked from the same variables
   * as {@code run}. Its clients are built only when asked for, each with its own credential.
   *
   * @param env the environment
   * @return the worker's queue, orders container and the clients to reach them
   * @throws IllegalArgumentException naming every bad variable and its allowed values, as {@code
   *     run} reports them
   */
  public static WorkerTarget workerTarget(Map<String, String> env) {
    WorkerConfig config;
    try {
      config = WorkerConfig.fromEnvironment(env);
    } catch (WorkerConfig.ConfigurationException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
    return new WorkerTarget(
        config.queueName(),
        config.cosmosDatabase(),
        config.cosmosContainer(),
        config.relay().topicName(),
        () -> cosmosClient(config, defaultCredential()),
        () -> serviceBus(config, defaultCredential()));
  }

  /**
   * One {@code DefaultAzureCredential} for both clients, built on first use only: with a connection
   * string and a key (emulators) it is never built. It reads {@code AZURE_CLIENT_ID} to pick the
   * user-assigned managed identity. Safe to call from several threads (start-up builds the two
   * clients concurrently): one credential is built, never two.
   */
  static Supplier<TokenCredential> defaultCredential() {
    return new Supplier<>() {
      private TokenCredential built;

      @Override
      public synchronized TokenCredential get() {
        if (built == null) {
          built = new DefaultAzureCredentialBuilder().build();
        }
        return built;
      }
    };
  }
}
