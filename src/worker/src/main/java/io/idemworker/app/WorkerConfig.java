package io.idemworker.app;

import io.idemworker.consumers.CustomerConsumers;
import io.idemworker.core.Change;
import io.idemworker.core.MarkerRetention;
import io.idemworker.orders.InboxMarkers;
import io.idemworker.orders.OrderDocumentIds;
import io.idemworker.servicebus.ProcessorSettings;
import io.idemworker.servicebus.sessions.SessionSettings;
import io.idemworker.telemetry.TelemetryExport;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The worker's configuration, read from environment variables and checked as a whole: every bad
 * variable is reported at once, each with its allowed values, before anything connects.
 *
 * @param serviceBusConnectionString {@code SERVICEBUS_CONNECTION_STRING} (emulators), or
 * @param serviceBusNamespace {@code SERVICEBUS_FULLY_QUALIFIED_NAMESPACE} (Azure, Entra ID)
 * @param queueName {@code SERVICEBUS_QUEUE_NAME}
 * @param cosmosEndpoint {@code COSMOS_ENDPOINT}
 * @param cosmosKey {@code COSMOS_KEY}; absent means Entra ID ({@code DefaultAzureCredential})
 * @param cosmosDatabase {@code COSMOS_DATABASE}
 * @param cosmosContainer {@code COSMOS_CONTAINER}
 * @param cosmosGatewayMode {@code COSMOS_CONNECTION_MODE} is {@code gateway}
 * @param createContainer {@code COSMOS_CREATE_CONTAINER}: create database and container if missing
 * @param maxConcurrentCalls {@code WORKER_MAX_CONCURRENT_CALLS}
 * @param prefetchCount {@code WORKER_PREFETCH_COUNT}
 * @param maxLockRenewal {@code WORKER_MAX_LOCK_RENEWAL}
 * @param keyStrategy {@code WORKER_KEY_STRATEGY}
 * @param consumerName {@code WORKER_CONSUMER_NAME}
 * @param maxBodyBytes {@code WORKER_MAX_BODY_BYTES}
 * @param shutdownTimeout {@code WORKER_SHUTDOWN_TIMEOUT}
 * @param healthPort {@code HEALTH_PORT}
 * @param healthBind {@code HEALTH_BIND}: the probes' address; loopback unless set (the image sets
 *     the wildcard, where the platform's probes reach the container)
 * @param inboxTtl {@code WORKER_INBOX_TTL}: how long inbox markers live; empty = {@code never}
 * @param payments {@code PAYMENTS_BASE_URL}, {@code PAYMENTS_API_KEY}, {@code PAYMENTS_TIMEOUT},
 *     {@code PAYMENTS_LEASE}; empty when no provider is configured
 * @param retention {@code SERVICEBUS_LOCK_DURATION}, {@code SERVICEBUS_MAX_DELIVERY_COUNT}, {@code
 *     SERVICEBUS_MESSAGE_TTL} (the queue's values, filled by Bicep from the same parameters it
 *     gives the queue) and {@code WORKER_RESUBMIT_WINDOW}
 * @param consumerRole {@code WORKER_ROLE}: empty for {@code orders} (the order queue), else the
 *     consumer of the topic subscription it runs
 * @param subscription {@code SERVICEBUS_TOPIC_NAME} + {@code SERVICEBUS_SUBSCRIPTION_NAME}: present
 *     exactly for a consumer role, which reads it instead of {@code SERVICEBUS_QUEUE_NAME}
 * @param relay the outbox relay's {@code RELAY_*} settings
 * @param sessions {@code SERVICEBUS_SESSIONS} and the session mode's settings ({@code
 *     WORKER_MAX_CONCURRENT_SESSIONS}, {@code WORKER_GAP_TIMEOUT}, {@code
 *     WORKER_PARK_MAX_MESSAGES}, {@code WORKER_PARK_MAX_AGE}; a consumer role uses only the first);
 *     empty when session mode is off
 */
record WorkerConfig(
    Optional<String> serviceBusConnectionString,
    Optional<String> serviceBusNamespace,
    String queueName,
    URI cosmosEndpoint,
    Optional<String> cosmosKey,
    String cosmosDatabase,
    String cosmosContainer,
    boolean cosmosGatewayMode,
    boolean createContainer,
    int maxConcurrentCalls,
    int prefetchCount,
    Duration maxLockRenewal,
    KeyStrategyName keyStrategy,
    Optional<String> consumerName,
    int maxBodyBytes,
    Duration shutdownTimeout,
    int healthPort,
    java.net.InetAddress healthBind,
    Optional<Duration> inboxTtl,
    MarkerRetention retention,
    Optional<PaymentsConfig> payments,
    Optional<CustomerConsumers.Role> consumerRole,
    Optional<ProcessorSettings.Subscription> subscription,
    RelayConfig relay,
    Optional<SessionSettings> sessions) {

  /** The container the consumer roles write into unless {@code COSMOS_CONTAINER} says otherwise. */
  static final String CUSTOMERS_CONTAINER = "customers";

  /**
   * Where the worker takes its messages from.
   *
   * @return the subscription for a consumer role, else the queue
   */
  ProcessorSettings.Source source() {
    return subscription
        .<ProcessorSettings.Source>map(s -> s)
        .orElseGet(() -> new ProcessorSettings.Queue(queueName));
  }

  /**
   * The name this worker's inbox markers carry: {@code WORKER_CONSUMER_NAME}, else the role's name.
   *
   * @return e.g. {@code loyalty}
   */
  String markerConsumer() {
    return consumerName.orElseGet(
        () ->
            consumerRole
                .map(CustomerConsumers.Role::roleName)
                .orElse(InboxMarkers.DEFAULT_CONSUMER));
  }

  /**
   * The outbox relay's settings.
   *
   * @param enabled {@code RELAY_ENABLED}: whether {@code run} also runs the relay ({@code relay}
   *     always does)
   * @param topicName {@code RELAY_TOPIC_NAME}
   * @param leaseDuration {@code RELAY_LEASE_DURATION}
   * @param pollInterval {@code RELAY_POLL_INTERVAL}, at most a third of the lease
   * @param batchSize {@code RELAY_BATCH_SIZE}
   */
  record RelayConfig(
      boolean enabled,
      String topicName,
      Duration leaseDuration,
      Duration pollInterval,
      int batchSize) {}

  /**
   * The payment provider's settings.
   *
   * @param baseUrl {@code PAYMENTS_BASE_URL}
   * @param apiKey {@code PAYMENTS_API_KEY}
   * @param timeout {@code PAYMENTS_TIMEOUT}: one provider call's bound; plus the call margin,
   *     shorter than the lease and the lock
   * @param lease {@code PAYMENTS_LEASE}: the most a claim protects an attempt (cut at its
   *     delivery's lock end)
   */
  record PaymentsConfig(URI baseUrl, String apiKey, Duration timeout, Duration lease) {
    @Override
    public String toString() {
      return "PaymentsConfig[" + baseUrl + ", apiKey redacted, " + timeout + ", " + lease + "]";
    }
  }

  /** Every variable the worker reads, with its default ({@code null}: none) and allowed values. */
  static final List<Variable> VARIABLES =
      List.of(
          new Variable("SERVICEBUS_CONNECTION_STRING", null, "a Service Bus connection string"),
          new Variable(
              "SERVICEBUS_FULLY_QUALIFIED_NAMESPACE",
              null,
              "a host name such as sb-orders.servicebus.windows.net"),
          new Variable("SERVICEBUS_QUEUE_NAME", "orders", "1-260 of letters, digits, . - _ /"),
          new Variable(
              "SERVICEBUS_TOPIC_NAME",
              null,
              "1-260 of letters, digits, . - _ /; with SERVICEBUS_SUBSCRIPTION_NAME, for the"
                  + " consumer roles (not with SERVICEBUS_QUEUE_NAME)"),
          new Variable(
              "SERVICEBUS_SUBSCRIPTION_NAME",
              null,
              "1-50 of letters, digits, . - _; with SERVICEBUS_TOPIC_NAME"),
          new Variable("WORKER_ROLE", "orders", "orders | " + CustomerConsumers.Role.names()),
          new Variable(
              "COSMOS_ENDPOINT", null, "an https URL such as https://x.documents.azure.com:443/"),
          new Variable("COSMOS_KEY", null, "an account key; unset to use Entra ID"),
          new Variable("COSMOS_DATABASE", "idemworker", "1-255 characters without / \\ ? #"),
          new Variable(
              "COSMOS_CONTAINER",
              "orders",
              "1-255 characters without / \\ ? # (default customers for the consumer roles)"),
          new Variable("COSMOS_CONNECTION_MODE", "gateway", "gateway | direct"),
          new Variable("COSMOS_CREATE_CONTAINER", "false", "true | false"),
          new Variable("WORKER_MAX_CONCURRENT_CALLS", "16", "an integer from 1 to 1000"),
          new Variable("WORKER_PREFETCH_COUNT", "0", "an integer from 0 to 10000"),
          new Variable(
              "WORKER_MAX_LOCK_RENEWAL", "PT5M", "an ISO 8601 duration from PT0S to PT24H"),
          new Variable("WORKER_KEY_STRATEGY", "message-id", "message-id | cloudevents"),
          new Variable("WORKER_CONSUMER_NAME", null, "1-64 of letters, digits, . - _"),
          new Variable("WORKER_MAX_BODY_BYTES", "262144", "an integer from 1024 to 104857600"),
          new Variable(
              "WORKER_SHUTDOWN_TIMEOUT", "PT30S", "an ISO 8601 duration from PT1S to PT10M"),
          new Variable("HEALTH_PORT", "8080", "an integer from 0 to 65535"),
          new Variable(
              "HEALTH_BIND",
              "127.0.0.1",
              "an IP address to listen on: 127.0.0.1 (loopback), 0.0.0.0 (every interface; the"
                  + " image sets it), or one interface's address"),
          new Variable(
              "WORKER_INBOX_TTL", "P14D", "an ISO 8601 duration from PT1M to P24855D, or never"),
          new Variable("WORKER_RESUBMIT_WINDOW", "P7D", "an ISO 8601 duration from PT0S to P3650D"),
          new Variable(
              "SERVICEBUS_LOCK_DURATION", "PT1M", "an ISO 8601 duration from PT5S to PT5M"),
          new Variable("SERVICEBUS_MAX_DELIVERY_COUNT", "10", "an integer from 1 to 2000"),
          new Variable("SERVICEBUS_MESSAGE_TTL", "P6D", "an ISO 8601 duration from PT1S to P3650D"),
          new Variable(
              "PAYMENTS_BASE_URL",
              null,
              "an http(s) URL of the payment provider; unset = PaymentCaptureRequested is"
                  + " dead-lettered"),
          new Variable(
              "PAYMENTS_API_KEY",
              null,
              "1-255 visible ASCII characters, the provider's API key; required with"
                  + " PAYMENTS_BASE_URL"),
          new Variable(
              "PAYMENTS_TIMEOUT",
              "PT10S",
              "an ISO 8601 duration from PT1S to PT2M; plus 2 s, shorter than PAYMENTS_LEASE and"
                  + " SERVICEBUS_LOCK_DURATION"),
          new Variable(
              "PAYMENTS_LEASE",
              "PT30S",
              "an ISO 8601 duration from PT2S to PT5M, longer than PAYMENTS_TIMEOUT plus 2 s: the"
                  + " most a claim's lease lasts (it ends at its delivery's lock end when that is"
                  + " sooner)"),
          new Variable("RELAY_ENABLED", "true", "true | false"),
          new Variable("RELAY_TOPIC_NAME", "order-events", "1-260 of letters, digits, . - _ /"),
          new Variable("RELAY_LEASE_DURATION", "PT30S", "an ISO 8601 duration from PT5S to PT10M"),
          new Variable(
              "RELAY_POLL_INTERVAL",
              "PT1S",
              "an ISO 8601 duration from PT0.1S to PT1M, at most a third of RELAY_LEASE_DURATION"),
          new Variable("RELAY_BATCH_SIZE", "100", "an integer from 1 to 1000"),
          new Variable(
              "SERVICEBUS_SESSIONS",
              "false",
              "true | false; true needs the queue (WORKER_ROLE orders) or the subscription (a consumer"
                  + " role) to require sessions"),
          new Variable("WORKER_MAX_CONCURRENT_SESSIONS", "8", "an integer from 1 to 1000"),
          new Variable("WORKER_GAP_TIMEOUT", "PT5M", "an ISO 8601 duration from PT0S to P7D"),
          new Variable("WORKER_PARK_MAX_MESSAGES", "100", "an integer from 1 to 1000"),
          new Variable("WORKER_PARK_MAX_AGE", "P1D", "an ISO 8601 duration from PT1M to P3650D"));

  /** Cosmos DB's largest item TTL: a 32-bit count of seconds (about 68 years). */
  private static final Duration MAX_TTL = Duration.ofSeconds(Integer.MAX_VALUE);

  private static final Pattern API_KEY = Pattern.compile("[\\x21-\\x7E]{1,255}");

  private static final Pattern QUEUE = Pattern.compile("[A-Za-z0-9._/\\-]{1,260}");
  private static final Pattern COSMOS_NAME = Pattern.compile("[^/\\\\?#]{1,255}");
  private static final Pattern SUBSCRIPTION = Pattern.compile("[A-Za-z0-9._\\-]{1,50}");
  private static final Pattern CONSUMER = Pattern.compile("[A-Za-z0-9._\\-]{1,64}");
  private static final Pattern HOST = Pattern.compile("[A-Za-z0-9.\\-]{1,253}");

  /** Key strategies offered through {@code WORKER_KEY_STRATEGY}. */
  enum KeyStrategyName {
    MESSAGE_ID,
    CLOUDEVENTS
  }

  /**
   * One environment variable.
   *
   * @param name the name
   * @param defaultValue the default, or null when there is none
   * @param allowed the allowed values, for error messages and the README
   */
  record Variable(String name, String defaultValue, String allowed) {}

  /**
   * Reads and checks the configuration.
   *
   * @param env the environment
   * @return the configuration
   * @throws ConfigurationException naming every bad variable and its allowed values
   */
  static WorkerConfig fromEnvironment(Map<String, String> env) {
    EnvironmentReader r = new EnvironmentReader(env, VARIABLES);
    Optional<String> connectionString = r.optional("SERVICEBUS_CONNECTION_STRING");
    Optional<String> namespace = r.optional("SERVICEBUS_FULLY_QUALIFIED_NAMESPACE");
    if (connectionString.isPresent() == namespace.isPresent()) {
      r.problems.add(
          "SERVICEBUS_CONNECTION_STRING or SERVICEBUS_FULLY_QUALIFIED_NAMESPACE: set exactly one"
              + " (the connection string for emulators, the namespace for Azure with Entra ID)");
    }
    namespace
        .filter(ns -> !HOST.matcher(ns).matches())
        .ifPresent(
            ns ->
                r.problems.add(
                    "SERVICEBUS_FULLY_QUALIFIED_NAMESPACE: must be a host name such as"
                        + " sb-orders.servicebus.windows.net, without scheme or path"));
    connectionString
        .filter(cs -> !cs.contains("Endpoint=sb://"))
        .ifPresent(
            cs ->
                r.problems.add(
                    "SERVICEBUS_CONNECTION_STRING: must contain Endpoint=sb://HOST (value not"
                        + " shown)"));
    r.accountKey("COSMOS_KEY");
    r.problems.addAll(TelemetryExport.problems(env));
    Optional<CustomerConsumers.Role> role = role(r);
    Optional<ProcessorSettings.Subscription> subscription = subscription(r, role);
    String container =
        role.isPresent() && r.optional("COSMOS_CONTAINER").isEmpty()
            ? CUSTOMERS_CONTAINER
            : r.matching("COSMOS_CONTAINER", COSMOS_NAME);
    WorkerConfig config =
        new WorkerConfig(
            connectionString,
            namespace,
            r.matching("SERVICEBUS_QUEUE_NAME", QUEUE),
            r.endpoint("COSMOS_ENDPOINT"),
            r.optional("COSMOS_KEY"),
            r.matching("COSMOS_DATABASE", COSMOS_NAME),
            container,
            r.choice("COSMOS_CONNECTION_MODE", "gateway", "direct").equals("gateway"),
            r.choice("COSMOS_CREATE_CONTAINER", "true", "false").equals("true"),
            r.integer("WORKER_MAX_CONCURRENT_CALLS", 1, 1000),
            r.integer("WORKER_PREFETCH_COUNT", 0, 10_000),
            r.duration("WORKER_MAX_LOCK_RENEWAL", Duration.ZERO, Duration.ofHours(24)),
            r.choice("WORKER_KEY_STRATEGY", "message-id", "cloudevents").equals("cloudevents")
                ? KeyStrategyName.CLOUDEVENTS
                : KeyStrategyName.MESSAGE_ID,
            r.optionalMatching("WORKER_CONSUMER_NAME", CONSUMER),
            r.integer("WORKER_MAX_BODY_BYTES", 1024, 100 * 1024 * 1024),
            r.duration("WORKER_SHUTDOWN_TIMEOUT", Duration.ofSeconds(1), Duration.ofMinutes(10)),
            r.integer("HEALTH_PORT", 0, 65_535),
            r.ipAddress("HEALTH_BIND"),
            r.durationOrNever("WORKER_INBOX_TTL", Duration.ofMinutes(1), MAX_TTL),
            new MarkerRetention(
                r.duration(
                    "SERVICEBUS_LOCK_DURATION", Duration.ofSeconds(5), Duration.ofMinutes(5)),
                r.integer("SERVICEBUS_MAX_DELIVERY_COUNT", 1, 2000),
                r.duration("SERVICEBUS_MESSAGE_TTL", Duration.ofSeconds(1), Duration.ofDays(3650)),
                r.duration("WORKER_RESUBMIT_WINDOW", Duration.ZERO, Duration.ofDays(3650))),
            payments(r),
            role,
            subscription,
            new RelayConfig(
                r.choice("RELAY_ENABLED", "true", "false").equals("true"),
                r.matching("RELAY_TOPIC_NAME", QUEUE),
                r.duration("RELAY_LEASE_DURATION", Duration.ofSeconds(5), Duration.ofMinutes(10)),
                r.duration("RELAY_POLL_INTERVAL", Duration.ofMillis(100), Duration.ofMinutes(1)),
                r.integer("RELAY_BATCH_SIZE", 1, 1000)),
            sessions(r));
    if (r.problems.isEmpty()) {
      RelayConfig relay = config.relay();
      if (relay.pollInterval().compareTo(relay.leaseDuration().dividedBy(3)) > 0) {
        r.problems.add(
            "RELAY_POLL_INTERVAL, RELAY_LEASE_DURATION: the poll interval "
                + relay.pollInterval()
                + " must be at most a third of the lease "
                + relay.leaseDuration()
                + ", or the lease would lapse between cycles");
      }
      config
          .payments()
          .filter(
              p -> {
                Duration callNeeds = p.timeout().plus(Change.TwoPhase.CALL_MARGIN);
                return callNeeds.compareTo(p.lease()) >= 0
                    || callNeeds.compareTo(config.retention().lockDuration()) >= 0;
              })
          .ifPresent(
              p ->
                  r.problems.add(
                      "PAYMENTS_TIMEOUT, PAYMENTS_LEASE, SERVICEBUS_LOCK_DURATION: need timeout "
                          + p.timeout()
                          + " + "
                          + Change.TwoPhase.CALL_MARGIN
                          + " < lease "
                          + p.lease()
                          + " and < lock duration "
                          + config.retention().lockDuration()
                          + ": a provider call starts only when its lease and its message's lock"
                          + " both have that much left"));
      // Only a configuration whose parts are each valid can be checked as a whole.
      config
          .retention()
          .problemWith(config.inboxTtl())
          .ifPresent(
              problem ->
                  r.problems.add(
                      "WORKER_INBOX_TTL, SERVICEBUS_LOCK_DURATION, SERVICEBUS_MAX_DELIVERY_COUNT,"
                          + " SERVICEBUS_MESSAGE_TTL, WORKER_RESUBMIT_WINDOW: "
                          + problem));
    }
    if (!r.problems.isEmpty()) {
      throw new ConfigurationException(r.problems);
    }
    return config;
  }

  private static Optional<CustomerConsumers.Role> role(EnvironmentReader r) {
    String name = r.optional("WORKER_ROLE").orElse("orders");
    if (name.equalsIgnoreCase("orders")) {
      return Optional.empty();
    }
    Optional<CustomerConsumers.Role> role = CustomerConsumers.Role.named(name);
    if (role.isEmpty()) {
      r.problems.add("WORKER_ROLE: must be " + r.allowed("WORKER_ROLE") + ", was '" + name + "'");
    }
    return role;
  }

  /**
   * The topic subscription a consumer role reads. The queue variable has a default, so only an
   * explicitly set one conflicts with a topic.
   */
  private static Optional<ProcessorSettings.Subscription> subscription(
      EnvironmentReader r, Optional<CustomerConsumers.Role> role) {
    Optional<String> topic = r.optionalMatching("SERVICEBUS_TOPIC_NAME", QUEUE);
    Optional<String> name = r.optionalMatching("SERVICEBUS_SUBSCRIPTION_NAME", SUBSCRIPTION);
    boolean topicSet = r.optional("SERVICEBUS_TOPIC_NAME").isPresent();
    boolean subscriptionSet = r.optional("SERVICEBUS_SUBSCRIPTION_NAME").isPresent();
    if (topicSet && r.optional("SERVICEBUS_QUEUE_NAME").isPresent()) {
      r.problems.add(
          "SERVICEBUS_QUEUE_NAME, SERVICEBUS_TOPIC_NAME: set one, not both (a queue for WORKER_ROLE"
              + " orders, a topic with SERVICEBUS_SUBSCRIPTION_NAME for the consumer roles)");
    }
    if (topicSet != subscriptionSet) {
      r.problems.add(
          "SERVICEBUS_TOPIC_NAME, SERVICEBUS_SUBSCRIPTION_NAME: set both or neither (the"
              + " subscription is this consumer's copy of the topic)");
    }
    if (role.isPresent() && !topicSet && !subscriptionSet) {
      r.problems.add(
          "WORKER_ROLE "
              + role.get().roleName()
              + " reads a topic subscription: set SERVICEBUS_TOPIC_NAME and"
              + " SERVICEBUS_SUBSCRIPTION_NAME");
    }
    boolean ordersRole =
        r.optional("WORKER_ROLE").map(value -> value.equalsIgnoreCase("orders")).orElse(true);
    if (ordersRole && (topicSet || subscriptionSet)) {
      r.problems.add(
          "WORKER_ROLE: orders reads the queue SERVICEBUS_QUEUE_NAME; set WORKER_ROLE to "
              + CustomerConsumers.Role.names()
              + " to read SERVICEBUS_TOPIC_NAME/SERVICEBUS_SUBSCRIPTION_NAME");
    }
    if (role.isPresent() && topic.isPresent() && name.isPresent()) {
      return Optional.of(new ProcessorSettings.Subscription(topic.get(), name.get()));
    }
    return Optional.empty();
  }

  /** Session mode's settings, read (and checked) whether or not it is on. */
  private static Optional<SessionSettings> sessions(EnvironmentReader r) {
    boolean on = r.choice("SERVICEBUS_SESSIONS", "true", "false").equals("true");
    int sessions = r.integer("WORKER_MAX_CONCURRENT_SESSIONS", 1, 1000);
    Duration gap = r.duration("WORKER_GAP_TIMEOUT", Duration.ZERO, Duration.ofDays(7));
    int waiting = r.integer("WORKER_PARK_MAX_MESSAGES", 1, 1000);
    Duration age = r.duration("WORKER_PARK_MAX_AGE", Duration.ofMinutes(1), Duration.ofDays(3650));
    if (!on) {
      return Optional.empty();
    }
    // A consumer role takes only the sessions at once: it keeps no session state, so nothing waits
    // for a gap or is parked (docs/sessions.md), and those variables are checked but unused.
    return Optional.of(
        new SessionSettings(
            sessions,
            SessionSettings.defaults().sessionIdleTimeout(),
            gap,
            waiting,
            age,
            OrderDocumentIds.PARTITION_KEY_FIELD));
  }

  private static Optional<PaymentsConfig> payments(EnvironmentReader r) {
    Duration timeout = r.duration("PAYMENTS_TIMEOUT", Duration.ofSeconds(1), Duration.ofMinutes(2));
    Duration lease = r.duration("PAYMENTS_LEASE", Duration.ofSeconds(2), Duration.ofMinutes(5));
    Optional<String> url = r.optional("PAYMENTS_BASE_URL");
    Optional<String> key = r.optional("PAYMENTS_API_KEY");
    if (url.isEmpty()) {
      if (key.isPresent()) {
        r.problems.add(
            "PAYMENTS_API_KEY: is set but PAYMENTS_BASE_URL is not; set both, or neither");
      }
      return Optional.empty();
    }
    URI baseUrl = null;
    try {
      URI parsed = URI.create(url.get());
      if (("https".equalsIgnoreCase(parsed.getScheme())
              || "http".equalsIgnoreCase(parsed.getScheme()))
          && parsed.getHost() != null) {
        baseUrl = parsed;
      }
    } catch (IllegalArgumentException e) {
      // reported below
    }
    if (baseUrl == null) {
      r.problems.add("PAYMENTS_BASE_URL: must be " + r.allowed("PAYMENTS_BASE_URL"));
    }
    if (key.isEmpty()) {
      r.problems.add("PAYMENTS_API_KEY: is required when PAYMENTS_BASE_URL is set");
    } else if (!API_KEY.matcher(key.get()).matches()) {
      r.problems.add(
          "PAYMENTS_API_KEY: must be " + r.allowed("PAYMENTS_API_KEY") + " (value not shown)");
      return Optional.empty();
    }
    if (baseUrl == null || key.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new PaymentsConfig(baseUrl, key.get(), timeout, lease));
  }

  /** Thrown when the configuration is invalid; its message lists every problem. */
  static final class ConfigurationException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final List<String> problems;

    ConfigurationException(List<String> problems) {
      super("invalid configuration:\n  " + String.join("\n  ", problems));
      this.problems = List.copyOf(problems);
    }

    List<String> problems() {
      return problems;
    }
  }
}
