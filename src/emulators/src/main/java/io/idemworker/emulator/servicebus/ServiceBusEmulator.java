package io.idemworker.emulator.servicebus;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An in-process Azure Service Bus namespace speaking AMQP 1.0 over plain TCP, and optionally over
 * TLS on a second port ({@link Builder#tlsPort(int)}), for tests and local runs with the real
 * {@code azure-messaging-servicebus} client and with clients that only dial TLS.
 *
 * <p>Connect with {@link #connectionString()}. Queues and topics (with their subscriptions) come
 * from the builder, a {@code Config.json} file, {@link #createQueue(QueueSettings)} or {@link
 * #createTopic(TopicSettings)}. Time (lock expiry, time-to-live, duplicate window, scheduled
 * messages) follows the injected {@link Clock}; expiries are applied by a housekeeping task every
 * {@link Builder#housekeepingInterval(Duration) interval} and on demand by {@link
 * #evaluateExpiries()}.
 *
 * <p>Thread-safe. Each connection is served by its own thread named {@code sb-emulator-conn-N}; the
 * listener thread is {@code sb-emulator-acceptor} and the housekeeping thread {@code
 * sb-emulator-timer} ({@code sb-emulator-tls-acceptor} for the TLS port). {@link #close()} stops
 * them all; it is idempotent.
 */
public final class ServiceBusEmulator implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ServiceBusEmulator.class);

  /** Prefix of the name of every thread the emulator starts. */
  public static final String THREAD_NAME_PREFIX = "sb-emulator-";

  private static final String DEFAULT_KEY_NAME = "RootManageSharedAccessKey";
  private static final String DEFAULT_KEY = "SAS_KEY_VALUE";

  private final String host;
  private final int requestedPort;
  private final Duration housekeepingInterval;
  private final Duration shortestDuplicateWindow;
  private final int requestedTlsPort;
  private final Optional<Path> tlsKeyStore;
  private final char[] tlsKeyStorePassword;
  private final int requestedAdminPort;
  private final Optional<SharedAccessKeys> keys;
  private final Broker broker;
  private final Faults faults = new Faults(this);
  private final Map<AmqpConnection, Thread> connections = new ConcurrentHashMap<>();
  private final AtomicInteger connectionIds = new AtomicInteger();
  private final Object lifecycle = new Object();
  private AmqpListener server;
  private Optional<AmqpListener> tlsServer = Optional.empty();
  private Optional<AdminServer> adminServer = Optional.empty();
  private TlsIdentity tlsIdentity;
  private ScheduledExecutorService timer;
  private volatile boolean closed;

  private ServiceBusEmulator(Builder b) {
    this.host = b.host;
    this.requestedPort = b.port;
    this.housekeepingInterval = b.housekeepingInterval;
    this.shortestDuplicateWindow = b.shortestDuplicateWindow;
    this.requestedTlsPort = b.tlsPort;
    this.tlsKeyStore = b.tlsKeyStore;
    this.tlsKeyStorePassword = b.tlsKeyStorePassword;
    this.requestedAdminPort = b.adminPort;
    this.keys =
        b.keyName.map(name -> new SharedAccessKeys(name, b.key, java.time.Clock.systemUTC()));
    this.broker = new Broker(b.clock);
    for (QueueSettings q : b.queues) {
      requireServiceWindow(q);
      broker.createQueue(q);
    }
    for (TopicSettings t : b.topics) {
      requireServiceWindow(t);
      broker.createTopic(t);
    }
  }

  private void requireServiceWindow(QueueSettings q) {
    QueueSettings.requireWindowAtLeast(
        "queue '" + q.name() + "'",
        q.duplicateDetectionHistoryTimeWindow(),
        shortestDuplicateWindow);
  }

  private void requireServiceWindow(TopicSettings t) {
    QueueSettings.requireWindowAtLeast(
        "topic '" + t.name() + "'",
        t.duplicateDetectionHistoryTimeWindow(),
        shortestDuplicateWindow);
  }

  /**
   * Returns a builder: host 127.0.0.1, port 0 (any free port), system UTC clock, no queues.
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Binds the listener (and the TLS listener, when asked for) and starts serving. Calling it again
   * has no effect.
   *
   * @return this emulator
   * @throws UncheckedIOException when a port cannot be bound
   * @throws IllegalArgumentException when the TLS key store cannot be read
   * @throws IllegalStateException when the emulator was closed
   */
  public ServiceBusEmulator start() {
    synchronized (lifecycle) {
      if (closed) {
        throw new IllegalStateException("emulator is closed");
      }
      if (server != null) {
        return this;
      }
      if (requestedTlsPort >= 0 || requestedAdminPort >= 0) {
        tlsIdentity =
            tlsKeyStore
                .map(file -> TlsIdentity.load(file, tlsKeyStorePassword))
                .orElseGet(() -> TlsIdentity.generate(host, Instant.now()));
      }
      server = AmqpListener.bind(host, requestedPort, Optional.empty());
      try {
        if (requestedTlsPort >= 0) {
          tlsServer =
              Optional.of(
                  AmqpListener.bind(host, requestedTlsPort, Optional.of(tlsIdentity.sslContext())));
        }
        if (requestedAdminPort >= 0) {
          adminServer =
              Optional.of(
                  AdminServer.start(
                      host,
                      requestedAdminPort,
                      tlsIdentity.sslContext(),
                      new AdminApi(broker, keys, shortestDuplicateWindow, this::entitiesDeleted),
                      THREAD_NAME_PREFIX));
        }
      } catch (UncheckedIOException e) {
        server.close();
        server = null;
        tlsServer.ifPresent(AmqpListener::close);
        tlsServer = Optional.empty();
        throw e;
      }
      timer =
          Executors.newSingleThreadScheduledExecutor(
              r -> {
                Thread t = new Thread(r, THREAD_NAME_PREFIX + "timer");
                t.setDaemon(true);
                return t;
              });
      timer.scheduleWithFixedDelay(
          this::safeSweep,
          housekeepingInterval.toMillis(),
          housekeepingInterval.toMillis(),
          TimeUnit.MILLISECONDS);
      server.start(THREAD_NAME_PREFIX + "acceptor", this::serve);
      LOG.info("Service Bus emulator listening on {}:{}", host, port());
      tlsServer.ifPresent(
          tls -> {
            tls.start(THREAD_NAME_PREFIX + "tls-acceptor", this::serve);
            LOG.info("Service Bus emulator listening for AMQP over TLS on {}:{}", host, tls.port());
          });
      adminServer.ifPresent(
          admin ->
              LOG.info(
                  "Service Bus emulator serving the administration API on https://{}:{}",
                  host,
                  admin.port()));
      keys.ifPresent(
          k -> LOG.info("Service Bus emulator checks SAS tokens signed with key {}", k.keyName()));
      return this;
    }
  }

  /**
   * Returns the bound port.
   *
   * @return the port clients connect to
   * @throws IllegalStateException before {@link #start()}
   */
  public int port() {
    synchronized (lifecycle) {
      if (server == null) {
        throw new IllegalStateException("emulator not started");
      }
      return server.port();
    }
  }

  /**
   * Returns the TLS port: where clients dial it and the certificate they trust.
   *
   * @return the TLS endpoint
   * @throws IllegalStateException before {@link #start()} or when TLS was not asked for ({@link
   *     Builder#tlsPort(int)})
   */
  public TlsEndpoint tls() {
    synchronized (lifecycle) {
      return new TlsEndpoint(host, requireTls().port(), tlsIdentity, keyName(), key());
    }
  }

  /**
   * Returns the administration API's HTTPS endpoint: its port and the certificate it presents.
   *
   * @return the endpoint
   * @throws IllegalStateException before {@link #start()} or when it was not asked for ({@link
   *     Builder#adminPort(int)})
   */
  public AdminEndpoint admin() {
    synchronized (lifecycle) {
      if (server == null) {
        throw new IllegalStateException("emulator not started");
      }
      AdminServer admin =
          adminServer.orElseThrow(
              () ->
                  new IllegalStateException(
                      "the administration API was not asked for: use Builder.adminPort(port)"));
      return new AdminEndpoint(host, admin.port(), tlsIdentity);
    }
  }

  private String keyName() {
    return keys.map(SharedAccessKeys::keyName).orElse(DEFAULT_KEY_NAME);
  }

  private String key() {
    return keys.map(SharedAccessKeys::key).orElse(DEFAULT_KEY);
  }

  private AmqpListener requireTls() {
    if (server == null) {
      throw new IllegalStateException("emulator not started");
    }
    return tlsServer.orElseThrow(
        () -> new IllegalStateException("TLS was not asked for: use Builder.tlsPort(port)"));
  }

  /**
   * Returns a connection string for the Service Bus client ({@code UseDevelopmentEmulator=true}
   * switches TLS off).
   *
   * @return the connection string
   */
  public String connectionString() {
    return "Endpoint=sb://localhost:"
        + port()
        + ";SharedAccessKeyName="
        + keyName()
        + ";SharedAccessKey="
        + key()
        + ";UseDevelopmentEmulator=true;";
  }

  /**
   * Creates a queue (with its dead-letter subqueue) unless one of the same name, compared
   * case-insensitively, exists; an existing queue keeps its settings.
   *
   * @param settings the queue
   * @throws IllegalArgumentException when a topic has that name, or the duplicate-detection window
   *     is shorter than the emulator's shortest (PT20S unless relaxed)
   */
  public void createQueue(QueueSettings settings) {
    Objects.requireNonNull(settings, "settings");
    requireServiceWindow(settings);
    if (broker.createQueue(settings)) {
      LOG.info("queue {} created", settings.name());
    }
  }

  /**
   * Creates a topic with its subscriptions unless one of the same name, compared
   * case-insensitively, exists; an existing topic keeps its settings and subscriptions.
   *
   * @param settings the topic
   * @throws IllegalArgumentException when a queue has that name, or the duplicate-detection window
   *     is shorter than the emulator's shortest (PT20S unless relaxed)
   */
  public void createTopic(TopicSettings settings) {
    Objects.requireNonNull(settings, "settings");
    requireServiceWindow(settings);
    if (broker.createTopic(settings)) {
      LOG.info(
          "topic {} created with {} subscriptions",
          settings.name(),
          settings.subscriptions().size());
    }
  }

  /**
   * Counts the messages a queue or subscription ({@code topic/Subscriptions/name}), or its
   * dead-letter subqueue ({@code .../$deadletterqueue}), still holds: available, locked, deferred
   * or scheduled. A benchmark watches it go to zero from outside the consumer.
   *
   * @param entity the entity's address, case-insensitive
   * @return the number of messages not yet settled or expired
   * @throws IllegalArgumentException when no queue or subscription has that address
   */
  public int messageCount(String entity) {
    return broker
        .resolve(entity)
        .orElseThrow(() -> new IllegalArgumentException("no such queue or subscription: " + entity))
        .messageCount();
  }

  /**
   * Returns the fault-injection controls.
   *
   * @return the faults of this emulator
   */
  public Faults faults() {
    return faults;
  }

  /**
   * How many messages a queue or subscription (or its dead-letter subqueue, {@code
   * .../$deadletterqueue}) holds that nobody has settled: available plus locked. For harnesses that
   * own the emulator and wait for it to drain; scheduled and deferred messages are not counted.
   *
   * @param entity queue name or subscription path {@code topic/Subscriptions/name},
   *     case-insensitive
   * @return the count at the moment of the call
   * @throws IllegalArgumentException when no such queue or subscription exists
   */
  public int unsettledCount(String entity) {
    EntityStore store =
        broker
            .resolve(entity)
            .orElseThrow(
                () -> new IllegalArgumentException("no queue or subscription '" + entity + "'"));
    return store.activeCount() + store.lockedCount();
  }

  /**
   * Applies the clock now, synchronously: expired locks return their messages (or dead-letter
   * them), due scheduled messages are enqueued and expired messages are removed or dead-lettered.
   * Tests call it after advancing an injected clock instead of waiting for housekeeping.
   */
  public void evaluateExpiries() {
    broker.sweep();
  }

  /** Stops listening and closes every connection. Idempotent. */
  @Override
  public void close() {
    synchronized (lifecycle) {
      if (closed) {
        return;
      }
      closed = true;
      if (server != null) {
        server.close();
      }
      tlsServer.ifPresent(AmqpListener::close);
      adminServer.ifPresent(AdminServer::close);
      dropConnections();
      if (timer != null) {
        timer.shutdownNow();
      }
    }
    List<Thread> threads = new ArrayList<>(connections.values());
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    try {
      for (Thread t : threads) {
        t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
      }
      if (server != null) {
        server.join(TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
      }
      for (AmqpListener tls : tlsServer.stream().toList()) {
        tls.join(TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    LOG.info("Service Bus emulator stopped");
  }

  Broker broker() {
    return broker;
  }

  /** Detaches the receivers of deleted entities on every connection, as the service does. */
  private void entitiesDeleted(java.util.Set<EntityStore> stores) {
    for (AmqpConnection c : connections.keySet()) {
      c.entitiesDeleted(stores);
    }
  }

  /** Aborts every connection and waits (at most 5 s) until their links have ended. */
  void dropConnections() {
    Map<AmqpConnection, Thread> all = new java.util.HashMap<>(connections);
    for (AmqpConnection c : all.keySet()) {
      c.abort();
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    try {
      for (Thread t : all.values()) {
        if (t != Thread.currentThread()) {
          t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (!all.isEmpty()) {
      LOG.info("dropped {} connections", all.size());
    }
  }

  private void safeSweep() {
    try {
      broker.sweep();
    } catch (RuntimeException e) {
      LOG.warn("housekeeping failed", e);
    }
  }

  /** Serves an accepted client socket on a connection thread of its own. */
  private void serve(SocketChannel socket, Optional<SSLContext> tls) {
    try {
      AmqpConnection[] self = new AmqpConnection[1];
      AmqpConnection c =
          new AmqpConnection(
              socket, broker, timer, faults, tls, keys, () -> connections.remove(self[0]));
      self[0] = c;
      Thread t = new Thread(c, THREAD_NAME_PREFIX + "conn-" + connectionIds.incrementAndGet());
      t.setDaemon(true);
      connections.put(c, t);
      if (closed) {
        c.abort();
      }
      t.start();
    } catch (IOException | RuntimeException e) {
      LOG.warn("cannot serve connection", e);
      try {
        socket.close();
      } catch (IOException ignored) {
        LOG.debug("close failed", ignored);
      }
    }
  }

  /** Configures an emulator. Not thread-safe. */
  public static final class Builder {
    private String host = "127.0.0.1";
    private int port;
    private Clock clock = Clock.systemUTC();
    private Duration housekeepingInterval = Duration.ofMillis(100);
    private Duration shortestDuplicateWindow = QueueSettings.SERVICE_MIN_DUPLICATE_WINDOW;
    private int tlsPort = -1;
    private Optional<Path> tlsKeyStore = Optional.empty();
    private char[] tlsKeyStorePassword = new char[0];
    private int adminPort = -1;
    private Optional<String> keyName = Optional.empty();
    private String key;
    private final List<QueueSettings> queues = new ArrayList<>();
    private final List<TopicSettings> topics = new ArrayList<>();

    private Builder() {}

    /**
     * Sets the address to listen on (default 127.0.0.1).
     *
     * @param value host name or IP address
     * @return this builder
     */
    public Builder host(String value) {
      this.host = Objects.requireNonNull(value, "host");
      return this;
    }

    /**
     * Sets the TCP port; 0 (the default) picks a free one.
     *
     * @param value port between 0 and 65535
     * @return this builder
     */
    public Builder port(int value) {
      if (value < 0 || value > 65535) {
        throw new IllegalArgumentException("port must be between 0 and 65535 but was " + value);
      }
      this.port = value;
      return this;
    }

    /**
     * Sets the clock used for enqueued times, locks, time-to-live and the duplicate window.
     *
     * @param value the clock
     * @return this builder
     */
    public Builder clock(Clock value) {
      this.clock = Objects.requireNonNull(value, "clock");
      return this;
    }

    /**
     * Sets how often (wall-clock) expiries are applied; default 100 ms.
     *
     * @param value a positive interval
     * @return this builder
     */
    public Builder housekeepingInterval(Duration value) {
      Objects.requireNonNull(value, "housekeepingInterval");
      if (value.toMillis() < 1) {
        throw new IllegalArgumentException(
            "housekeepingInterval must be at least 1 ms but was " + value);
      }
      this.housekeepingInterval = value;
      return this;
    }

    /**
     * Opens a second listener that speaks AMQP over TLS (off by default), on the same host, for
     * clients that cannot speak plain AMQP (Microsoft's Python SDK dials TLS on 5671 only). It
     * presents a self-signed certificate made at start-up unless {@link #tlsKeyStore} gives one;
     * clients trust {@link ServiceBusEmulator#tls()}. SASL, CBS and everything else are as on the
     * plain port.
     *
     * @param value port between 0 (any free port) and 65535; 5671 is the service's
     * @return this builder
     */
    public Builder tlsPort(int value) {
      if (value < 0 || value > 65535) {
        throw new IllegalArgumentException("tlsPort must be between 0 and 65535 but was " + value);
      }
      this.tlsPort = value;
      return this;
    }

    /**
     * Serves the administration API ({@code ServiceBusAdministrationClient}: queues, topics,
     * subscriptions and rules as Atom entries) over HTTPS on this port of the same host, off by
     * default. It presents the same certificate as the TLS AMQP port; see {@link
     * ServiceBusEmulator#admin()}.
     *
     * @param value port between 0 (any free port) and 65535; 443 is the service's
     * @return this builder
     */
    public Builder adminPort(int value) {
      if (value < 0 || value > 65535) {
        throw new IllegalArgumentException(
            "adminPort must be between 0 and 65535 but was " + value);
      }
      this.adminPort = value;
      return this;
    }

    /**
     * Checks shared access signatures, as the service does, against this key (off by default: then
     * every token is accepted). A {@code $cbs} put-token whose token is not signed with it, names
     * another key, has expired or does not cover its audience is answered 401, and a link to an
     * entity no accepted token covers is refused with {@code amqp:unauthorized-access}; the
     * administration API answers such a request 401. {@link ServiceBusEmulator#connectionString()}
     * and the TLS one carry this key name and key.
     *
     * @param keyName the SharedAccessKeyName, e.g. {@code RootManageSharedAccessKey}
     * @param key the SharedAccessKey, used as its UTF-8 bytes (as the SDKs sign with it)
     * @return this builder
     */
    public Builder sharedAccessKey(String keyName, String key) {
      SharedAccessKeys checked =
          new SharedAccessKeys(keyName, key, java.time.Clock.systemUTC()); // validates
      this.keyName = Optional.of(checked.keyName());
      this.key = key;
      return this;
    }

    /**
     * Presents the first key entry of a PKCS12 file on the TLS port instead of a generated
     * certificate; needs {@link #tlsPort(int)}. The file is read by {@link #start()}.
     *
     * @param file the PKCS12 key store
     * @param password its password (and the key's)
     * @return this builder
     */
    public Builder tlsKeyStore(Path file, char[] password) {
      this.tlsKeyStore = Optional.of(Objects.requireNonNull(file, "tlsKeyStore"));
      this.tlsKeyStorePassword = Objects.requireNonNull(password, "password").clone();
      return this;
    }

    /**
     * Emulator-only relaxation for tests: accepts duplicate-detection windows down to {@code value}
     * instead of the service's PT20S, so a test can wait a window out quickly. Leave it unset for
     * anything meant to behave as the service: an entity the service would refuse is then refused
     * here too.
     *
     * @param value between PT1S and PT20S
     * @return this builder
     */
    public Builder shortestDuplicateWindow(Duration value) {
      Objects.requireNonNull(value, "shortestDuplicateWindow");
      if (value.compareTo(QueueSettings.MIN_DUPLICATE_WINDOW) < 0
          || value.compareTo(QueueSettings.SERVICE_MIN_DUPLICATE_WINDOW) > 0) {
        throw new IllegalArgumentException(
            "shortestDuplicateWindow must be between PT1S and PT20S but was " + value);
      }
      this.shortestDuplicateWindow = value;
      return this;
    }

    /**
     * Adds a queue; repeatable.
     *
     * @param value the queue settings
     * @return this builder
     */
    public Builder queue(QueueSettings value) {
      queues.add(Objects.requireNonNull(value, "queue"));
      return this;
    }

    /**
     * Adds a topic with its subscriptions; repeatable.
     *
     * @param value the topic settings
     * @return this builder
     */
    public Builder topic(TopicSettings value) {
      topics.add(Objects.requireNonNull(value, "topic"));
      return this;
    }

    /**
     * Adds the queues and topics of a Service Bus emulator {@code Config.json} file.
     *
     * @param file path of the file
     * @return this builder
     * @throws IllegalArgumentException when the file is invalid (see {@link
     *     ServiceBusEmulatorConfig#load(Path)})
     */
    public Builder configFile(Path file) {
      ServiceBusEmulatorConfig.Entities entities = ServiceBusEmulatorConfig.load(file);
      queues.addAll(entities.queues());
      topics.addAll(entities.topics());
      return this;
    }

    /**
     * Builds an emulator that is not yet listening.
     *
     * @return the emulator
     * @throws IllegalArgumentException when a queue and a topic share a name, an entity's
     *     duplicate-detection window is shorter than the shortest accepted, or a key store was
     *     given without a TLS port
     */
    public ServiceBusEmulator build() {
      if (tlsKeyStore.isPresent() && tlsPort < 0 && adminPort < 0) {
        throw new IllegalArgumentException(
            "tlsKeyStore needs tlsPort(port) or adminPort(port) to serve it");
      }
      return new ServiceBusEmulator(this);
    }

    /**
     * Builds and starts an emulator.
     *
     * @return the started emulator
     */
    public ServiceBusEmulator start() {
      return build().start();
    }
  }
}
