package io.idemworker.spring.boot;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code idemworker.*} properties: where the worker takes messages from, where it writes, and
 * how many at once. {@link #problems()} checks them at start-up, naming each property and the
 * values it allows.
 */
@ConfigurationProperties(prefix = "idemworker")
public class IdemworkerProperties {

  /** Whether to create and start the worker. */
  private boolean enabled = true;

  /**
   * The queue to take messages from. One of this or topic and subscription is required; when
   * missing, spring.cloud.azure.servicebus.entity-name is used.
   */
  private String queue;

  /** The topic to take messages from (with subscription), instead of a queue. */
  private String topic;

  /** The topic subscription to take messages from (with topic). */
  private String subscription;

  /**
   * The consumer's name in inbox marker ids: 1-64 letters, digits or _.- (the queue's or
   * subscription's name by default).
   */
  private String consumerName;

  /** Messages handled at once, 1-1000. */
  private int maxConcurrentCalls = 16;

  /** Messages fetched ahead, 0-10000. */
  private int prefetchCount = 0;

  /** Bodies larger than this many bytes are dead-lettered as BodyTooLarge, 1-104857600. */
  private int maxBodyBytes = 262_144;

  /** How long a slow message's lock is renewed. */
  private Duration maxLockRenewal = Duration.ofMinutes(5);

  /**
   * How long shutdown waits for deliveries in flight (also bounded by Spring's
   * spring.lifecycle.timeout-per-shutdown-phase).
   */
  private Duration shutdownTimeout = Duration.ofSeconds(30);

  /** A topic to publish the events the message types emit to, through the outbox relay. */
  private String publishEventsTo;

  private final ServiceBus servicebus = new ServiceBus();

  private final Cosmos cosmos = new Cosmos();

  /** The Service Bus namespace. */
  public static class ServiceBus {
    /**
     * The namespace's connection string; when missing,
     * spring.cloud.azure.servicebus.connection-string is used.
     */
    private String connectionString;

    /**
     * The fully qualified namespace (e.g. my-ns.servicebus.windows.net), with the application's
     * TokenCredential bean (Spring Cloud Azure's credential chain), instead of a connection string.
     */
    private String namespace;

    public String getConnectionString() {
      return connectionString;
    }

    public void setConnectionString(String connectionString) {
      this.connectionString = connectionString;
    }

    public String getNamespace() {
      return namespace;
    }

    public void setNamespace(String namespace) {
      this.namespace = namespace;
    }
  }

  /** The Cosmos DB account, database and container. */
  public static class Cosmos {
    /**
     * The account endpoint; not needed when the application has a CosmosClientBuilder bean (Spring
     * Cloud Azure's) or a CosmosClient bean.
     */
    private String endpoint;

    /** The account key (with endpoint); without it, the application's TokenCredential bean. */
    private String key;

    /** Whether to connect in gateway mode (HTTPS only) rather than direct mode. */
    private boolean gatewayMode = false;

    /** The database. Required unless the application has a CosmosContainer bean. */
    private String database;

    /** The container. Required unless the application has a CosmosContainer bean. */
    private String container;

    /**
     * Create the database and container when missing (TTL on, the library's indexing policy),
     * partitioned by partition-key-path.
     */
    private boolean createIfMissing = false;

    /** The partition key path of a container created by create-if-missing, e.g. /entityId. */
    private String partitionKeyPath = "/entityId";

    public String getEndpoint() {
      return endpoint;
    }

    public void setEndpoint(String endpoint) {
      this.endpoint = endpoint;
    }

    public String getKey() {
      return key;
    }

    public void setKey(String key) {
      this.key = key;
    }

    public boolean isGatewayMode() {
      return gatewayMode;
    }

    public void setGatewayMode(boolean gatewayMode) {
      this.gatewayMode = gatewayMode;
    }

    public String getDatabase() {
      return database;
    }

    public void setDatabase(String database) {
      this.database = database;
    }

    public String getContainer() {
      return container;
    }

    public void setContainer(String container) {
      this.container = container;
    }

    public boolean isCreateIfMissing() {
      return createIfMissing;
    }

    public void setCreateIfMissing(boolean createIfMissing) {
      this.createIfMissing = createIfMissing;
    }

    public String getPartitionKeyPath() {
      return partitionKeyPath;
    }

    public void setPartitionKeyPath(String partitionKeyPath) {
      this.partitionKeyPath = partitionKeyPath;
    }
  }

  /**
   * Every problem with the values bound, each naming the property and the values it allows.
   *
   * @return the problems; empty when the values are usable
   */
  public List<String> problems() {
    List<String> problems = new ArrayList<>();
    range(problems, "idemworker.max-concurrent-calls", maxConcurrentCalls, 1, 1000);
    range(problems, "idemworker.prefetch-count", prefetchCount, 0, 10_000);
    range(problems, "idemworker.max-body-bytes", maxBodyBytes, 1, 104_857_600);
    positive(problems, "idemworker.max-lock-renewal", maxLockRenewal);
    positive(problems, "idemworker.shutdown-timeout", shutdownTimeout);
    if (consumerName != null && !consumerName.matches("[A-Za-z0-9_.\\-]{1,64}")) {
      problems.add(
          "idemworker.consumer-name must be 1-64 letters, digits or _.-, was '"
              + consumerName
              + "'");
    }
    boolean hasQueue = queue != null && !queue.isBlank();
    boolean hasTopic = topic != null && !topic.isBlank();
    boolean hasSubscription = subscription != null && !subscription.isBlank();
    if (hasQueue && (hasTopic || hasSubscription)) {
      problems.add(
          "set either idemworker.queue or idemworker.topic with idemworker.subscription, not"
              + " both");
    } else if (hasTopic != hasSubscription) {
      problems.add("idemworker.topic and idemworker.subscription go together: set both");
    }
    if (cosmos.partitionKeyPath == null
        || !cosmos.partitionKeyPath.matches("/[A-Za-z_][A-Za-z0-9_]{0,63}")) {
      problems.add(
          "idemworker.cosmos.partition-key-path must be one top-level field such as /entityId,"
              + " was '"
              + cosmos.partitionKeyPath
              + "'");
    }
    return problems;
  }

  /**
   * The source's name as given, queue or subscription.
   *
   * @return whether a source is set
   */
  Optional<String> queueOrSubscription() {
    return Optional.ofNullable(queue != null ? queue : subscription).filter(s -> !s.isBlank());
  }

  private static void range(List<String> problems, String name, int value, int min, int max) {
    if (value < min || value > max) {
      problems.add(name + " must be " + min + "-" + max + ", was " + value);
    }
  }

  private static void positive(List<String> problems, String name, Duration value) {
    if (value == null || value.isNegative() || value.isZero()) {
      problems.add(name + " must be a positive duration (e.g. 30s), was " + value);
    }
  }

  public boolean isEnabled() {
    return enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  public String getQueue() {
    return queue;
  }

  public void setQueue(String queue) {
    this.queue = queue;
  }

  public String getTopic() {
    return topic;
  }

  public void setTopic(String topic) {
    this.topic = topic;
  }

  public String getSubscription() {
    return subscription;
  }

  public void setSubscription(String subscription) {
    this.subscription = subscription;
  }

  public String getConsumerName() {
    return consumerName;
  }

  public void setConsumerName(String consumerName) {
    this.consumerName = consumerName;
  }

  public int getMaxConcurrentCalls() {
    return maxConcurrentCalls;
  }

  public void setMaxConcurrentCalls(int maxConcurrentCalls) {
    this.maxConcurrentCalls = maxConcurrentCalls;
  }

  public int getPrefetchCount() {
    return prefetchCount;
  }

  public void setPrefetchCount(int prefetchCount) {
    this.prefetchCount = prefetchCount;
  }

  public int getMaxBodyBytes() {
    return maxBodyBytes;
  }

  public void setMaxBodyBytes(int maxBodyBytes) {
    this.maxBodyBytes = maxBodyBytes;
  }

  public Duration getMaxLockRenewal() {
    return maxLockRenewal;
  }

  public void setMaxLockRenewal(Duration maxLockRenewal) {
    this.maxLockRenewal = maxLockRenewal;
  }

  public Duration getShutdownTimeout() {
    return shutdownTimeout;
  }

  public void setShutdownTimeout(Duration shutdownTimeout) {
    this.shutdownTimeout = shutdownTimeout;
  }

  public String getPublishEventsTo() {
    return publishEventsTo;
  }

  public void setPublishEventsTo(String publishEventsTo) {
    this.publishEventsTo = publishEventsTo;
  }

  public ServiceBus getServicebus() {
    return servicebus;
  }

  public Cosmos getCosmos() {
    return cosmos;
  }
}
