package io.idemworker.azure;

import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.models.CosmosContainerProperties;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import io.idemworker.core.DeliveryObserver;
import io.idemworker.core.IdempotentConsumer;
import io.idemworker.core.KeyStrategies;
import io.idemworker.core.KeyStrategy;
import io.idemworker.core.MarkerRetention;
import io.idemworker.core.MessageDecoder;
import io.idemworker.core.SubjectRouter;
import io.idemworker.cosmos.CosmosContainers;
import io.idemworker.cosmos.CosmosEffectStore;
import io.idemworker.cosmos.StoreCallListener;
import io.idemworker.relay.OutboxRelay;
import io.idemworker.relay.RelayListener;
import io.idemworker.relay.RelaySettings;
import io.idemworker.relay.SessionIdRule;
import io.idemworker.servicebus.MessageWorker;
import io.idemworker.servicebus.ProcessorSettings;
import io.idemworker.servicebus.QueueRetentionCheck;
import io.idemworker.servicebus.ServiceBusConnection;
import io.idemworker.servicebus.SessionRequirementCheck;
import io.idemworker.servicebus.WorkerStatus;
import io.idemworker.servicebus.processor.ServiceBusWorker;
import io.idemworker.servicebus.sessions.SessionEvents;
import io.idemworker.servicebus.sessions.SessionListener;
import io.idemworker.servicebus.sessions.SessionSettings;
import io.idemworker.telemetry.OutcomeLog;
import io.idemworker.telemetry.Telemetry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An idempotent consumer of one Service Bus queue or subscription writing to one Cosmos DB
 * container, built in code from registered {@link MessageType}s: every message changes the
 * container exactly once, whatever the broker repeats. Optionally it also runs the outbox relay
 * that publishes the events the types emit to a topic.
 *
 * <pre>{@code
 * try (IdempotentWorker worker =
 *     IdempotentWorker.builder()
 *         .connection(new ServiceBusConnection.ConnectionString(connectionString))
 *         .queue("shipments")
 *         .container(container)
 *         .register(created)
 *         .register(scanned)
 *         .publishEventsTo("shipment-events")
 *         .build()) {
 *   worker.start();
 *   // ... until the service stops
 * }
 * }</pre>
 *
 * <p>{@link Builder#build()} makes the start-up checks the sample worker's {@code run} makes, and
 * refuses to build ({@link StartupRefused}, naming every problem) when one fails: the inbox
 * markers' TTL against the redelivery horizon, the container's shape (one top-level partition key
 * field, TTL on, so markers and events expire), the queue's real lock duration, delivery count and
 * message TTL against the configured ones (when the credential may read them), and, in session
 * mode, whether the entity requires sessions. Outside session mode an entity that requires sessions
 * is found by the running processor's first receive: the worker then logs it at ERROR and reports
 * it in {@link #status()} (not ready).
 *
 * <p>Thread-safe. {@link #close()} drains the deliveries in flight (up to the shutdown timeout),
 * then stops the relay; it is idempotent.
 */
public final class IdempotentWorker implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(IdempotentWorker.class);

  private final MessageWorker worker;
  private final Optional<OutboxRelay> relay;
  private final Optional<ScheduledExecutorService> relayExecutor;
  private final Duration shutdownTimeout;
  private final AtomicReference<Optional<String>> refused = new AtomicReference<>(Optional.empty());

  private IdempotentWorker(
      MessageWorker worker,
      Optional<OutboxRelay> relay,
      Optional<ScheduledExecutorService> relayExecutor,
      Duration shutdownTimeout) {
    this.worker = worker;
    this.relay = relay;
    this.relayExecutor = relayExecutor;
    this.shutdownTimeout = shutdownTimeout;
    if (worker instanceof ServiceBusWorker plain) {
      // Outside session mode nothing waits for the broker's word at start-up (a probe of an entity
      // that agrees can only time out): a refusal comes from the running processor instead.
      plain.onSessionsRefused(
          differs -> {
            String problem = Builder.SESSIONS + differs.problem();
            LOG.error("the worker cannot receive: {}", problem);
            refused.set(Optional.of(problem));
          });
    }
  }

  /**
   * A builder with the services' defaults.
   *
   * @return the builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Starts taking messages, and the relay when there is one. */
  public void start() {
    relay.ifPresent(OutboxRelay::start);
    worker.start();
  }

  /**
   * Whether the worker (and the relay) can do their work, for a readiness probe: not ready while
   * paused for a misconfiguration or an outage of the store, or while the relay cannot publish.
   *
   * @return the worker's status, or the relay's when the worker is ready and the relay is not
   */
  public WorkerStatus status() {
    Optional<String> refusal = refused.get();
    if (refusal.isPresent()) {
      return new WorkerStatus(WorkerStatus.State.PAUSED, refusal);
    }
    WorkerStatus status = worker.status();
    if (status.ready() && relay.isPresent() && !relay.get().status().ready()) {
      WorkerStatus relayStatus = relay.get().status();
      return new WorkerStatus(
          relayStatus.state(), relayStatus.reason().map(reason -> "relay: " + reason));
    }
    return status;
  }

  /**
   * The outbox relay, when events are published.
   *
   * @return the relay
   */
  public Optional<OutboxRelay> relay() {
    return relay;
  }

  /**
   * Stops taking messages, waits up to {@code timeout} for the deliveries in flight to be settled,
   * then stops the relay (after the worker, so the events its last messages wrote still go out).
   *
   * @param timeout how long to wait for in-flight deliveries
   * @return true when every in-flight delivery was settled in time
   */
  public boolean shutdown(Duration timeout) {
    boolean drained = worker.shutdown(timeout);
    relay.ifPresent(OutboxRelay::close);
    relayExecutor.ifPresent(ScheduledExecutorService::shutdownNow);
    return drained;
  }

  /** {@link #shutdown} with the builder's shutdown timeout. */
  @Override
  public void close() {
    shutdown(shutdownTimeout);
  }

  /** The worker could not start: each problem names what to change. */
  public static final class StartupRefused extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    /** The problems, each naming the setting and what to change. */
    private final List<String> problems;

    StartupRefused(List<String> problems) {
      super("the worker cannot start: " + String.join("; ", problems));
      this.problems = List.copyOf(problems);
    }

    /**
     * Every problem found.
     *
     * @return the problems
     */
    public List<String> problems() {
      return problems;
    }
  }

  /**
   * Collects the worker's parts; {@link #build()} checks them and what they point at. Defaults are
   * the services': 16 concurrent calls, no prefetch, locks renewed up to 5 minutes, bodies up to
   * 256 KiB, markers kept 14 days against a horizon of lock 1 minute × 10 deliveries + message TTL
   * 6 days + resubmit window 7 days, events kept 7 days, a 30-second drain. Not thread-safe.
   */
  public static final class Builder {
    /** Names the setting in front of a sessions problem. */
    static final String SESSIONS = "sessions(SessionSettings): ";

    private ServiceBusConnection connection;
    private ProcessorSettings.Source source;
    private CosmosContainer container;
    private final Map<String, MessageDecoder> decoders = new LinkedHashMap<>();
    private final List<MessageType<?>> types = new ArrayList<>();
    private Optional<String> consumer = Optional.empty();
    private Optional<Duration> markerTtl = Optional.of(Duration.ofDays(14));
    private MarkerRetention retention =
        new MarkerRetention(Duration.ofMinutes(1), 10, Duration.ofDays(6), Duration.ofDays(7));
    private int maxConcurrentCalls = 16;
    private int prefetchCount = 0;
    private Duration maxLockRenewal = Duration.ofMinutes(5);
    private int maxBodyBytes = 262_144;
    private Optional<SessionSettings> sessions = Optional.empty();
    private KeyStrategy keyStrategy = KeyStrategies.messageId();
    private DeliveryObserver observer = DeliveryObserver.none();
    private StoreCallListener storeListener = StoreCallListener.none();
    private SessionListener sessionListener = SessionListener.none();
    private RelayListener relayListener = RelayListener.none();
    private Optional<String> eventTopic = Optional.empty();
    private SessionIdRule sessionIdRule = SessionIdRule.partitionKey();
    private Duration eventTtl = Duration.ofDays(7);
    private Duration shutdownTimeout = Duration.ofSeconds(30);
    private Duration checkTimeout = Duration.ofSeconds(10);
    private Clock clock = Clock.systemUTC();

    private Builder() {}

    /**
     * The Service Bus namespace. Required.
     *
     * @param connection a connection string, or a namespace with an Entra ID credential
     * @return this builder
     */
    public Builder connection(ServiceBusConnection connection) {
      this.connection = Objects.requireNonNull(connection, "connection");
      return this;
    }

    /**
     * Takes messages from a queue. One of this or {@link #subscription} is required.
     *
     * @param name the queue
     * @return this builder
     */
    public Builder queue(String name) {
      this.source = new ProcessorSettings.Queue(name);
      return this;
    }

    /**
     * Takes messages from a topic subscription.
     *
     * @param topic the topic
     * @param subscription the subscription
     * @return this builder
     */
    public Builder subscription(String topic, String subscription) {
      this.source = new ProcessorSettings.Subscription(topic, subscription);
      return this;
    }

    /**
     * The container the effects are written to; its partition key field keys every document.
     * Required.
     *
     * @param container the container
     * @return this builder
     */
    public Builder container(CosmosContainer container) {
      this.container = Objects.requireNonNull(container, "container");
      return this;
    }

    /**
     * Registers a message type. At least one type (or decoder) is required; subjects are unique.
     *
     * @param type the type
     * @return this builder
     */
    public Builder register(MessageType<?> type) {
      Objects.requireNonNull(type, "type");
      reserve(type.subject());
      types.add(type);
      return this;
    }

    /**
     * Registers a decoder of one's own for a subject: the flow's port, for what the registration
     * cannot say (a two-phase call to a provider, seeds of shared documents).
     *
     * @param subject the subject
     * @param decoder the decoder
     * @return this builder
     */
    public Builder register(String subject, MessageDecoder decoder) {
      reserve(subject);
      decoders.put(subject, Objects.requireNonNull(decoder, "decoder"));
      return this;
    }

    private void reserve(String subject) {
      boolean taken =
          decoders.containsKey(subject)
              || types.stream().anyMatch(type -> type.subject().equals(subject));
      if (taken) {
        throw new IllegalArgumentException("subject " + subject + " is registered already");
      }
    }

    /**
     * The consumer's name in inbox marker ids ({@code inbox:{consumer}:{key}}): consumers that
     * share a container must each have their own. The queue's (or subscription's) name by default.
     *
     * @param name 1-64 letters, digits or {@code _.-}
     * @return this builder
     */
    public Builder consumerName(String name) {
      if (name == null || !name.matches("[A-Za-z0-9_.\\-]{1,64}")) {
        throw new IllegalArgumentException(
            "consumerName must be 1-64 letters, digits or _.-, was " + name);
      }
      this.consumer = Optional.of(name);
      return this;
    }

    /**
     * How long inbox markers live; checked against the redelivery horizon. 14 days by default.
     *
     * @param ttl the TTL; empty for markers that never expire
     * @return this builder
     */
    public Builder markerTtl(Optional<Duration> ttl) {
      this.markerTtl = Objects.requireNonNull(ttl, "ttl");
      return this;
    }

    /**
     * The queue values that bound how late a copy can come back, and the resubmit window: the
     * markers must outlive them, and the queue's real values are compared with them at start-up.
     *
     * @param retention lock duration, max delivery count, message TTL, resubmit window
     * @return this builder
     */
    public Builder retention(MarkerRetention retention) {
      this.retention = Objects.requireNonNull(retention, "retention");
      return this;
    }

    /**
     * Messages handled at once (outside session mode), 1-1000; 16 by default.
     *
     * @param calls the concurrent calls
     * @return this builder
     */
    public Builder maxConcurrentCalls(int calls) {
      this.maxConcurrentCalls = calls;
      return this;
    }

    /**
     * Messages fetched ahead, 0-10000; none by default.
     *
     * @param count the prefetch count
     * @return this builder
     */
    public Builder prefetchCount(int count) {
      this.prefetchCount = count;
      return this;
    }

    /**
     * How long a slow message's lock is renewed; 5 minutes by default.
     *
     * @param renewal the longest renewal
     * @return this builder
     */
    public Builder maxLockRenewal(Duration renewal) {
      this.maxLockRenewal = Objects.requireNonNull(renewal, "renewal");
      return this;
    }

    /**
     * Bodies larger than this are dead-lettered as {@code BodyTooLarge}; 256 KiB by default.
     *
     * @param bytes the limit
     * @return this builder
     */
    public Builder maxBodyBytes(int bytes) {
      this.maxBodyBytes = bytes;
      return this;
    }

    /**
     * Session mode: the entity requires sessions, producers set {@code SessionId} to the entity id
     * (the container's partition key value), and each entity's messages apply in sequence; a
     * versioned change waits for its predecessor.
     *
     * @param settings sessions at once, gap timeout, parking bounds
     * @return this builder
     */
    public Builder sessions(SessionSettings settings) {
      this.sessions = Optional.of(Objects.requireNonNull(settings, "settings"));
      return this;
    }

    /**
     * How the idempotency key is read; the sender-assigned MessageId by default.
     *
     * @param strategy the key strategy
     * @return this builder
     */
    public Builder keyStrategy(KeyStrategy strategy) {
      this.keyStrategy = Objects.requireNonNull(strategy, "strategy");
      return this;
    }

    /**
     * Hears every delivery and its outcome (metrics, logs, traces).
     *
     * @param observer the observer
     * @return this builder
     */
    public Builder observer(DeliveryObserver observer) {
      this.observer = Objects.requireNonNull(observer, "observer");
      return this;
    }

    /**
     * Hears every Cosmos DB round trip the worker makes (after it answered, before the delivery is
     * settled), e.g. for metrics of one's own.
     *
     * @param listener the listener; must be fast and must not throw
     * @return this builder
     */
    public Builder storeListener(StoreCallListener listener) {
      this.storeListener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /**
     * Observes deliveries, Cosmos DB calls, session mode and the relay with the library's telemetry
     * (metrics and a span per delivery, and one outcome line per delivery). Replaces {@link
     * #observer}.
     *
     * @param telemetry the telemetry; stays the caller's to close
     * @return this builder
     */
    public Builder telemetry(Telemetry telemetry) {
      Objects.requireNonNull(telemetry, "telemetry");
      this.observer = telemetry.observer(new OutcomeLog(telemetry.names()));
      this.storeListener = telemetry.storeListener();
      this.sessionListener = telemetry.sessionMetrics();
      this.relayListener = telemetry.relayMetrics();
      return this;
    }

    /**
     * Runs the outbox relay too, publishing the events the types emit to a topic on the same
     * namespace, with {@code SessionId} by the given rule.
     *
     * @param topic the topic
     * @return this builder
     */
    public Builder publishEventsTo(String topic) {
      this.eventTopic = Optional.of(Objects.requireNonNull(topic, "topic"));
      return this;
    }

    /**
     * Which {@code SessionId} published events get; the partition key value by default.
     *
     * @param rule the rule
     * @return this builder
     */
    public Builder eventSessions(SessionIdRule rule) {
      this.sessionIdRule = Objects.requireNonNull(rule, "rule");
      return this;
    }

    /**
     * How long outbox events live in the container; 7 days by default. The relay raises its lag
     * alarm at half of it.
     *
     * @param ttl the TTL
     * @return this builder
     */
    public Builder eventTtl(Duration ttl) {
      this.eventTtl = Objects.requireNonNull(ttl, "ttl");
      return this;
    }

    /**
     * How long {@link IdempotentWorker#close()} waits for deliveries in flight; 30 s by default.
     *
     * @param timeout the timeout
     * @return this builder
     */
    public Builder shutdownTimeout(Duration timeout) {
      this.shutdownTimeout = Objects.requireNonNull(timeout, "timeout");
      return this;
    }

    /**
     * The clock for acceptance times, lock arithmetic and the relay's lease; the system's by
     * default.
     *
     * @param clock the clock
     * @return this builder
     */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * Checks the parts and what they point at, and builds the worker (not started).
     *
     * @return the worker
     * @throws StartupRefused naming every problem found
     * @throws IllegalStateException when a required part is missing
     */
    public IdempotentWorker build() {
      List<String> missing = new ArrayList<>();
      if (connection == null) {
        missing.add("connection(ServiceBusConnection)");
      }
      if (source == null) {
        missing.add("queue(String) or subscription(String, String)");
      }
      if (container == null) {
        missing.add("container(CosmosContainer)");
      }
      if (!missing.isEmpty()) {
        throw new IllegalStateException("the worker needs " + String.join(", ", missing));
      }
      if (types.isEmpty() && decoders.isEmpty()) {
        throw new IllegalStateException(
            "register at least one message type: register(MessageType) or register(String,"
                + " MessageDecoder)");
      }
      List<String> problems = new ArrayList<>();
      retention
          .problemWith(markerTtl)
          .map(problem -> "markerTtl(Optional<Duration>), retention(MarkerRetention): " + problem)
          .ifPresent(problems::add);
      String partitionKeyField = checkContainer(problems);
      checkEntity(problems);
      if (!problems.isEmpty()) {
        throw new StartupRefused(problems);
      }
      String consumerName = consumer.orElseGet(this::sourceName);
      MessageType.Documents documents =
          new MessageType.Documents(
              partitionKeyField,
              consumerName,
              markerTtl.map(Duration::getSeconds),
              eventTtl.getSeconds());
      Map<String, MessageDecoder> bySubject = new LinkedHashMap<>();
      for (MessageType<?> type : types) {
        bySubject.put(type.subject(), type.decoder(documents));
      }
      bySubject.putAll(decoders);
      MessageDecoder decoder = new SubjectRouter(bySubject);
      CosmosEffectStore store =
          new CosmosEffectStore(container, storeListener, "/" + partitionKeyField);
      IdempotentConsumer flow =
          new IdempotentConsumer(
              keyStrategy, decoder, store, clock, maxBodyBytes, retention.maxDeliveryCount());
      // Back-off, probe interval and pause threshold as the sample worker runs them.
      ProcessorSettings settings =
          new ProcessorSettings(
              source,
              maxConcurrentCalls,
              prefetchCount,
              maxLockRenewal,
              Duration.ofSeconds(2),
              Duration.ofSeconds(5),
              Math.max(32, 2 * maxConcurrentCalls));
      MessageWorker worker =
          sessions.isPresent()
              ? new io.idemworker.servicebus.sessions.SessionWorker(
                  connection,
                  settings,
                  sessions.get().withSessionKeyName(partitionKeyField),
                  flow,
                  decoder,
                  store,
                  store,
                  observer,
                  new SessionEvents(sessionListener),
                  clock)
              : new ServiceBusWorker(connection, settings, flow, store, observer, clock);
      Optional<ScheduledExecutorService> executor = eventTopic.map(topic -> relayExecutor());
      Optional<OutboxRelay> relay =
          eventTopic.map(
              topic -> {
                ServiceBusSenderClient sender =
                    connection.builder().sender().topicName(topic).buildClient();
                return OutboxRelay.create(
                    container,
                    sender,
                    new RelaySettings(
                        topic,
                        consumerName + "-" + UUID.randomUUID().toString().substring(0, 8),
                        Duration.ofSeconds(30),
                        eventTtl,
                        100,
                        Duration.ofSeconds(1)),
                    sessionIdRule,
                    relayListener,
                    clock,
                    executor.orElseThrow());
              });
      LOG.info(
          "idempotent worker on {} for {}, keyed by {}",
          settings.source().describe(),
          String.join(", ", bySubject.keySet()),
          partitionKeyField);
      return new IdempotentWorker(worker, relay, executor, shutdownTimeout);
    }

    /** Reads the container once: one top-level partition key field, TTL on. */
    private String checkContainer(List<String> problems) {
      CosmosContainerProperties properties;
      try {
        properties = container.read().getProperties();
      } catch (RuntimeException e) {
        problems.add(
            "container "
                + container.getId()
                + " could not be read ("
                + e.getClass().getSimpleName()
                + "): check the endpoint, the credential's data-plane role and that it exists");
        return "id";
      }
      String path = CosmosContainers.partitionKeyPath(properties);
      if (!path.matches("/[A-Za-z_][A-Za-z0-9_]{0,63}")) {
        problems.add(
            "container "
                + container.getId()
                + " is partitioned by "
                + path
                + "; the worker needs one top-level field, such as /entityId");
      }
      if (!CosmosContainers.honoursItemTtl(properties)) {
        problems.add(
            "container "
                + container.getId()
                + " has TTL off (no defaultTtl), so inbox markers and outbox events would never"
                + " expire: turn it on with defaultTtl -1");
      }
      return path.substring(1);
    }

    /** Asks the broker about the entity: retention values and whether it requires sessions. */
    private void checkEntity(List<String> problems) {
      if (source instanceof ProcessorSettings.Queue queue
          && QueueRetentionCheck.check(connection, queue.name(), retention, checkTimeout)
              instanceof QueueRetentionCheck.Differs differs) {
        problems.add(
            "retention(MarkerRetention): the queue's properties differ from it: "
                + String.join("; ", differs.differences()));
      }
      if (sessions.isPresent()
          && SessionRequirementCheck.check(connection, source, true, checkTimeout)
              instanceof SessionRequirementCheck.Differs differs) {
        problems.add(SESSIONS + differs.problem());
      }
    }

    private String sourceName() {
      return source instanceof ProcessorSettings.Subscription subscription
          ? subscription.subscription()
          : ((ProcessorSettings.Queue) source).name();
    }

    private static ScheduledExecutorService relayExecutor() {
      return Executors.newSingleThreadScheduledExecutor(
          runnable -> {
            Thread thread = new Thread(runnable, "idemworker-relay");
            thread.setDaemon(true);
            return thread;
          });
    }
  }
}
