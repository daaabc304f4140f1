package io.idemworker.emulator.cosmos;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An in-process Azure Cosmos DB (NoSQL) emulator: an HTTPS server on loopback that serves the
 * gateway REST API well enough for the {@code azure-cosmos} client in gateway mode. See the {@link
 * io.idemworker.emulator.cosmos package documentation} for what it implements.
 *
 * <p>Life cycle: {@link #builder()} → {@link Builder#start()} (or {@link Builder#build()} then
 * {@link #start()}) → {@link #close()}. Once started it is safe for use from any thread. Closing
 * stops the listener, its connection threads and the purge thread, cutting in-flight requests; the
 * data stays in memory with the object, and a closed emulator may be started again (a new
 * certificate, and a new port if the port was 0).
 */
public final class CosmosEmulator implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(CosmosEmulator.class);

  /** The well-known key of Microsoft's Cosmos DB emulator; the default master key. */
  public static final String WELL_KNOWN_KEY =
      "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==";

  /**
   * The default cap on open client connections: far above what one SDK client opens for a few dozen
   * concurrent calls, far below what exhausts memory (about 0.3 MB a connection measured).
   */
  public static final int DEFAULT_MAX_CONNECTIONS = 256;

  private final int requestedPort;
  private final Clock clock;
  private final String key;
  private final Duration purgeInterval;
  private final int maxConnections;
  private final Faults faults = new Faults();
  private final RequestStats stats = new RequestStats();
  private final Store store;
  private final PartitionKeyRanges defaultRanges;
  // A document followed by more bytes is malformed, as the service's parser says.
  private final ObjectMapper mapper =
      new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
  private final Object lifecycle = new Object();
  private HttpsListener server;
  private ScheduledExecutorService purger;
  private TlsMaterial tls;
  private volatile int port = -1;

  private CosmosEmulator(Builder b) {
    this.requestedPort = b.port;
    this.clock = b.clock;
    this.key = b.key;
    this.purgeInterval = b.purgeInterval;
    this.maxConnections = b.maxConnections;
    this.defaultRanges = new PartitionKeyRanges(b.partitionKeyRanges);
    this.store = new Store(mapper, clock, defaultRanges, b.rangesFromThroughput);
    new MasterKeyAuth(key); // fail fast on a malformed key
  }

  /** A builder with port 0 (free port), the system UTC clock and {@link #WELL_KNOWN_KEY}. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Makes the certificate and starts serving; idempotent.
   *
   * @throws UncheckedIOException if the port cannot be bound
   */
  public CosmosEmulator start() {
    synchronized (lifecycle) {
      if (server != null) {
        return this;
      }
      // Real time, not the injected clock: clients check the validity period against their own.
      tls = TlsMaterial.generate(Instant.now());
      try {
        HttpsListener listener =
            new HttpsListener(
                tls.sslContext(),
                InetAddress.getLoopbackAddress(),
                requestedPort,
                CosmosHandler.MAX_BODY_BYTES,
                maxConnections,
                new CosmosHandler(
                    store, new MasterKeyAuth(key), faults, stats, mapper, this::endpoint));
        listener.start();
        server = listener;
        port = listener.port();
      } catch (IOException e) {
        throw new UncheckedIOException(
            "cannot start the Cosmos emulator on port " + requestedPort, e);
      }
      purger =
          Executors.newSingleThreadScheduledExecutor(
              HttpsListener.daemonThreads("cosmos-emulator-ttl-"));
      long every = Math.max(1, purgeInterval.toMillis());
      purger.scheduleWithFixedDelay(this::purgeSafely, every, every, TimeUnit.MILLISECONDS);
      return this;
    }
  }

  /**
   * Creates a database (when missing) and a container in it, as a client's create would, for tests
   * that declare their containers up front. Idempotent: an existing container is kept as it is when
   * its partition key path is the same.
   *
   * @param database the database's id
   * @param container the container's id
   * @param partitionKeyPath the partition key path, such as {@code /orderId}
   * @throws IllegalArgumentException when an id is invalid, or the container exists with another
   *     partition key path
   */
  public void createContainer(String database, String container, String partitionKeyPath) {
    createContainer(ContainerSettings.of(database, container, partitionKeyPath));
  }

  /**
   * Creates a database (when missing) and a container in it with the settings given: its partition
   * key ranges (else the emulator's default) and its default time to live (else off). Idempotent:
   * an existing container is kept as it is when it has the partition key path, and the ranges and
   * time to live the settings name.
   *
   * @throws IllegalArgumentException when an id is invalid, or the container exists with another
   *     partition key path, number of ranges or time to live than the settings name
   */
  public void createContainer(ContainerSettings settings) {
    Objects.requireNonNull(settings, "settings");
    String database = settings.database();
    String container = settings.container();
    synchronized (store) {
      Database db;
      try {
        db = store.database(database);
      } catch (CosmosError notFound) {
        db =
            createOrReject(
                () -> store.createDatabase(mapper.createObjectNode().put("id", database)));
      }
      Database owner = db;
      Container existing = owner.containersByName.get(container);
      if (existing != null) {
        requireSame(settings, existing);
        return;
      }
      ObjectNode body = mapper.createObjectNode().put("id", container);
      ObjectNode key = body.putObject("partitionKey");
      key.putArray("paths").add(settings.partitionKeyPath());
      key.put("kind", "Hash").put("version", 2);
      settings.defaultTimeToLive().ifPresent(ttl -> body.put("defaultTtl", ttl));
      PartitionKeyRanges ranges =
          settings.partitionKeyRanges() == 0
              ? defaultRanges
              : new PartitionKeyRanges(settings.partitionKeyRanges());
      createOrReject(() -> store.createContainer(owner, body, ranges));
    }
  }

  private static void requireSame(ContainerSettings settings, Container existing) {
    String name = settings.database() + "/" + settings.container();
    String path = existing.properties().path("partitionKey").path("paths").path(0).asText();
    if (!path.equals(settings.partitionKeyPath())) {
      throw new IllegalArgumentException(
          "container "
              + name
              + " exists with partition key "
              + path
              + ", not "
              + settings.partitionKeyPath());
    }
    if (settings.partitionKeyRanges() != 0
        && settings.partitionKeyRanges() != existing.ranges.count()) {
      throw new IllegalArgumentException(
          "container "
              + name
              + " exists with "
              + existing.ranges.count()
              + " partition key ranges, not "
              + settings.partitionKeyRanges());
    }
    if (settings.defaultTimeToLive().isPresent()
        && !settings.defaultTimeToLive().get().equals(existing.defaultTtl())) {
      throw new IllegalArgumentException(
          "container "
              + name
              + " exists with default time to live "
              + (existing.defaultTtl() == null ? "off" : existing.defaultTtl())
              + ", not "
              + settings.defaultTimeToLive().get());
    }
  }

  private static <T> T createOrReject(Supplier<T> create) {
    try {
      return create.get();
    } catch (CosmosError e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
  }

  /**
   * The bound port.
   *
   * @throws IllegalStateException before {@link #start()}
   */
  public int port() {
    if (port < 0) {
      throw new IllegalStateException("the emulator is not started");
    }
    return port;
  }

  /** {@code https://localhost:PORT/}, for {@code CosmosClientBuilder.endpoint}. */
  public String endpoint() {
    return "https://localhost:" + port() + "/";
  }

  /** The master key clients must sign with. */
  public String key() {
    return key;
  }

  /** The fault-injection switchboard (live). */
  public Faults faults() {
    return faults;
  }

  /** Request counters and total request charge (live). */
  public RequestStats stats() {
    return stats;
  }

  /**
   * The self-signed server certificate (SAN localhost, 127.0.0.1, ::1), made at start-up.
   *
   * @throws IllegalStateException before {@link #start()}
   */
  public X509Certificate certificate() {
    synchronized (lifecycle) {
      if (tls == null) {
        throw new IllegalStateException("the emulator is not started");
      }
      return tls.certificate();
    }
  }

  /**
   * Writes a PKCS12 trust store holding {@link #certificate()}, for clients that verify TLS (for
   * example {@code -Djavax.net.ssl.trustStore=FILE -Djavax.net.ssl.trustStorePassword=PASSWORD
   * -Djavax.net.ssl.trustStoreType=PKCS12}).
   *
   * @return {@code file}
   */
  public Path writeTrustStore(Path file, String password) throws IOException {
    Objects.requireNonNull(file, "file");
    Objects.requireNonNull(password, "password");
    synchronized (lifecycle) {
      if (tls == null) {
        throw new IllegalStateException("the emulator is not started");
      }
      tls.writeTrustStore(file, password.toCharArray());
    }
    return file;
  }

  /** One background purge; an exception must not cancel the schedule. */
  private void purgeSafely() {
    try {
      store.purgeExpired();
    } catch (RuntimeException e) {
      LOG.warn("purging expired items failed; trying again on the next round", e);
    }
  }

  /** Purges expired items now, as the background purge does; answers how many were removed. */
  int purgeExpiredNow() {
    return store.purgeExpired();
  }

  Store store() {
    return store;
  }

  /** Stops serving at once; in-flight requests are cut. Idempotent. */
  @Override
  public void close() {
    synchronized (lifecycle) {
      if (server == null) {
        return;
      }
      server.close();
      server = null;
      purger = shutdown(purger);
    }
  }

  private static <T extends ExecutorService> T shutdown(T executor) {
    if (executor != null) {
      executor.shutdownNow();
    }
    return null;
  }

  /** Configures an emulator. Not thread-safe. */
  public static final class Builder {
    private int port;
    private Clock clock = Clock.systemUTC();
    private String key = WELL_KNOWN_KEY;
    private Duration purgeInterval = Duration.ofSeconds(1);
    private int maxConnections = DEFAULT_MAX_CONNECTIONS;
    private int partitionKeyRanges = 1;
    private boolean rangesFromThroughput;

    private Builder() {}

    /** Loopback port to bind, 0 (default) for a free one. */
    public Builder port(int port) {
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("port must be in 0..65535, got " + port);
      }
      this.port = port;
      return this;
    }

    /** The clock for {@code _ts} and time to live (default: system UTC). */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** The base64 master key clients must sign with (default {@link #WELL_KNOWN_KEY}). */
    public Builder key(String key) {
      Objects.requireNonNull(key, "key");
      new MasterKeyAuth(key);
      this.key = key;
      return this;
    }

    /** How often expired items are purged in the background (default 1 s). */
    public Builder purgeInterval(Duration interval) {
      Objects.requireNonNull(interval, "interval");
      if (interval.isNegative() || interval.isZero()) {
        throw new IllegalArgumentException("purgeInterval must be positive, got " + interval);
      }
      this.purgeInterval = interval;
      return this;
    }

    /**
     * The most client connections served at once (default {@value
     * CosmosEmulator#DEFAULT_MAX_CONNECTIONS}), one thread each; a connection past it is closed at
     * once and the refusal logged.
     */
    public Builder maxConnections(int maxConnections) {
      if (maxConnections < 1 || maxConnections > 10_000) {
        throw new IllegalArgumentException(
            "maxConnections must be in 1..10000, got " + maxConnections);
      }
      this.maxConnections = maxConnections;
      return this;
    }

    /**
     * How many partition key ranges every container has (default 1). With more than one, each
     * logical partition is hashed to one range and the SDKs fan cross-partition queries and the
     * full-range change feed out to every range and merge the answers, as against a container the
     * service has split.
     *
     * @throws IllegalArgumentException unless 1 to 64
     */
    public Builder partitionKeyRanges(int count) {
      new PartitionKeyRanges(count); // validates
      this.partitionKeyRanges = count;
      return this;
    }

    /**
     * Gives a container created with dedicated throughput T the ranges the service would split it
     * into, {@code ceil(T / 10,000)} (at least 1, at most 64; for autoscale, T is the maximum), so
     * that a 6,000 RU/s container has one range and a 10,100 RU/s one two, as Microsoft's own SDK
     * tests expect. Containers without dedicated throughput keep {@link #partitionKeyRanges(int)}.
     * Off by default: every container then has {@link #partitionKeyRanges(int)} ranges.
     */
    public Builder partitionKeyRangesFromThroughput() {
      this.rangesFromThroughput = true;
      return this;
    }

    /** An emulator that is not yet serving. */
    public CosmosEmulator build() {
      return new CosmosEmulator(this);
    }

    /** Builds and starts an emulator. */
    public CosmosEmulator start() {
      return build().start();
    }
  }
}
