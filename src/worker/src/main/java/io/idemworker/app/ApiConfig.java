package io.idemworker.app;

import io.idemworker.http.server.ServerLimits;
import io.idemworker.webhooks.WebhookSecret;
import java.net.InetAddress;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The {@code api} command's configuration, read from environment variables and checked as a whole
 * like {@link WorkerConfig}: every bad variable is one line naming it and its allowed values. The
 * Cosmos DB variables mean what they mean for the worker (the api writes into the same orders
 * container); Service Bus is not needed.
 *
 * @param cosmosEndpoint {@code COSMOS_ENDPOINT}
 * @param cosmosKey {@code COSMOS_KEY}; absent means Entra ID ({@code DefaultAzureCredential})
 * @param cosmosDatabase {@code COSMOS_DATABASE}
 * @param cosmosContainer {@code COSMOS_CONTAINER}
 * @param cosmosGatewayMode {@code COSMOS_CONNECTION_MODE} is {@code gateway}
 * @param createContainer {@code COSMOS_CREATE_CONTAINER}
 * @param port {@code API_PORT}: orders and health on one port
 * @param auth {@code API_AUTH}
 * @param apiKey {@code API_KEY}: present exactly with {@code apikey}
 * @param window {@code API_IDEMPOTENCY_TTL}: how long an answer is replayed for its key
 * @param lease {@code API_LEASE}: how long a request in flight keeps its key from others
 * @param maxBodyBytes {@code API_MAX_BODY_BYTES}
 * @param bind {@code API_BIND}: the address to listen on; loopback unless set (the image sets the
 *     wildcard, as the platform's ingress reaches the container's interface)
 * @param entraAllowedApplications {@code API_ENTRA_ALLOWED_APPLICATIONS}: with {@code entra}, the
 *     client application ids allowed to call (checked in code as well as by the platform)
 * @param limits {@code API_MAX_IN_FLIGHT}, {@code API_MAX_IN_FLIGHT_PER_CALLER}, {@code
 *     API_MAX_CONNECTIONS}, {@code API_MAX_CONNECTIONS_PER_CLIENT}, {@code API_HEADER_TIMEOUT},
 *     {@code API_BODY_TIMEOUT}: what one client may hold
 * @param webhookSecret {@code PAYMENTS_WEBHOOK_SECRET}: the secret the payment provider signs its
 *     webhooks with; empty = {@code POST /webhooks/payments} answers 503 naming the variable
 * @param webhookMarkerTtl {@code PAYMENTS_WEBHOOK_MARKER_TTL}: how long a {@code webhook:{eventId}}
 *     marker lives; empty = {@code never}. It must outlive the provider's redelivery window (how
 *     long it keeps resending an event it got no 2xx for), or a late copy is applied twice
 */
record ApiConfig(
    URI cosmosEndpoint,
    Optional<String> cosmosKey,
    String cosmosDatabase,
    String cosmosContainer,
    boolean cosmosGatewayMode,
    boolean createContainer,
    int port,
    AuthMode auth,
    Optional<String> apiKey,
    Duration window,
    Duration lease,
    int maxBodyBytes,
    InetAddress bind,
    java.util.Set<String> entraAllowedApplications,
    ServerLimits limits,
    Optional<WebhookSecret> webhookSecret,
    Optional<Duration> webhookMarkerTtl) {

  /** {@code API_AUTH}. */
  enum AuthMode {
    /** {@code X-Api-Key} against {@code API_KEY}. */
    APIKEY,
    /** Container Apps' built-in authentication with Entra ID in front. */
    ENTRA,
    /** No authentication: only against a loopback Cosmos DB endpoint (emulators). */
    NONE
  }

  /** Every variable the api reads, with its default ({@code null}: none) and allowed values. */
  static final List<WorkerConfig.Variable> VARIABLES =
      List.of(
          new WorkerConfig.Variable(
              "COSMOS_ENDPOINT", null, "an https URL such as https://x.documents.azure.com:443/"),
          new WorkerConfig.Variable("COSMOS_KEY", null, "an account key; unset to use Entra ID"),
          new WorkerConfig.Variable(
              "COSMOS_DATABASE", "idemworker", "1-255 characters without / \\ ? #"),
          new WorkerConfig.Variable(
              "COSMOS_CONTAINER", "orders", "1-255 characters without / \\ ? #"),
          new WorkerConfig.Variable("COSMOS_CONNECTION_MODE", "gateway", "gateway | direct"),
          new WorkerConfig.Variable("COSMOS_CREATE_CONTAINER", "false", "true | false"),
          new WorkerConfig.Variable("API_PORT", "8080", "an integer from 0 to 65535"),
          new WorkerConfig.Variable(
              "API_AUTH",
              "apikey",
              "apikey | entra | none (none only with a loopback COSMOS_ENDPOINT and API_BIND)"),
          new WorkerConfig.Variable(
              "API_KEY", null, "16-255 visible ASCII characters; required with API_AUTH apikey"),
          new WorkerConfig.Variable(
              "API_IDEMPOTENCY_TTL", "P1D", "an ISO 8601 duration from PT1M to P30D"),
          new WorkerConfig.Variable(
              "API_LEASE",
              "PT30S",
              "an ISO 8601 duration from PT1S to PT5M, shorter than API_IDEMPOTENCY_TTL"),
          new WorkerConfig.Variable(
              "API_MAX_BODY_BYTES", "262144", "an integer from 1024 to 1048576"),
          new WorkerConfig.Variable(
              "API_BIND",
              "127.0.0.1",
              "an IP address to listen on: 127.0.0.1 (loopback), 0.0.0.0 (every interface; the"
                  + " image sets it), or one interface's address"),
          new WorkerConfig.Variable(
              "API_ENTRA_ALLOWED_APPLICATIONS",
              null,
              "with API_AUTH entra, required: comma-separated client application ids (GUIDs)"
                  + " allowed to call; refused otherwise"),
          new WorkerConfig.Variable(
              "API_MAX_IN_FLIGHT",
              "16",
              "an integer from 1 to 256: requests whose work (store round trips) runs at once;"
                  + " more are answered 503 Busy"),
          new WorkerConfig.Variable(
              "API_MAX_IN_FLIGHT_PER_CALLER",
              "64",
              "an integer from 1 to 10000: requests one caller (principal, or address for"
                  + " webhooks) has admitted at once; more are answered 429"),
          new WorkerConfig.Variable(
              "API_MAX_CONNECTIONS",
              "1024",
              "an integer from 1 to 100000: open connections; more wait in the backlog"),
          new WorkerConfig.Variable(
              "API_MAX_CONNECTIONS_PER_CLIENT",
              "256",
              "an integer from 1 to API_MAX_CONNECTIONS: open connections from one address; more"
                  + " are closed"),
          new WorkerConfig.Variable(
              "API_HEADER_TIMEOUT",
              "PT10S",
              "an ISO 8601 duration from PT1S to PT5M: time to send a request head; then 408"),
          new WorkerConfig.Variable(
              "API_BODY_TIMEOUT",
              "PT30S",
              "an ISO 8601 duration from PT1S to PT5M: time to send a request body; then 408"),
          new WorkerConfig.Variable(
              "PAYMENTS_WEBHOOK_SECRET",
              null,
              WebhookSecret.ALLOWED
                  + ", the payment provider's webhook signing secret; unset = POST"
                  + " /webhooks/payments answers 503"),
          new WorkerConfig.Variable(
              "PAYMENTS_WEBHOOK_MARKER_TTL",
              "P14D",
              "an ISO 8601 duration from PT1M to P24855D, or never; longer than the provider's"
                  + " redelivery window"));

  /** Cosmos DB's largest item TTL: a 32-bit count of seconds (about 68 years). */
  private static final Duration MAX_TTL = Duration.ofSeconds(Integer.MAX_VALUE);

  private static final Pattern COSMOS_NAME = Pattern.compile("[^/\\\\?#]{1,255}");
  private static final Pattern KEY = Pattern.compile("[\\x21-\\x7E]{16,255}");
  private static final Set<String> LOOPBACK = Set.of("localhost", "127.0.0.1", "[::1]", "::1");

  @Override
  public String toString() {
    return "ApiConfig["
        + cosmosEndpoint
        + ", "
        + cosmosDatabase
        + "/"
        + cosmosContainer
        + ", "
        + bind.getHostAddress()
        + ":"
        + port
        + ", auth "
        + auth
        + " (key redacted), window "
        + window
        + ", lease "
        + lease
        + ", webhook secret "
        + (webhookSecret.isPresent() ? "set (redacted)" : "unset")
        + ", webhook markers "
        + webhookMarkerTtl.map(Duration::toString).orElse("never")
        + "]";
  }

  /**
   * Reads and checks the configuration.
   *
   * @param env the environment
   * @return the configuration
   * @throws WorkerConfig.ConfigurationException naming every bad variable
   */
  static ApiConfig fromEnvironment(Map<String, String> env) {
    EnvironmentReader r = new EnvironmentReader(env, VARIABLES);
    List<String> problems = r.problems;
    URI endpoint = r.endpoint("COSMOS_ENDPOINT");
    Optional<String> cosmosKey = r.accountKey("COSMOS_KEY");
    AuthMode auth =
        AuthMode.valueOf(r.choice("API_AUTH", "apikey", "entra", "none").toUpperCase(Locale.ROOT));
    Optional<String> apiKey = r.optional("API_KEY");
    if (auth == AuthMode.APIKEY && apiKey.isEmpty()) {
      problems.add("API_KEY: is required with API_AUTH apikey; " + r.allowed("API_KEY"));
    } else if (auth == AuthMode.APIKEY && !KEY.matcher(apiKey.get()).matches()) {
      problems.add("API_KEY: must be " + r.allowed("API_KEY") + " (value not shown)");
    } else if (auth != AuthMode.APIKEY && apiKey.isPresent()) {
      problems.add("API_KEY: is set but API_AUTH is not apikey; unset it, or use apikey");
    }
    if (auth == AuthMode.NONE
        && endpoint.getHost() != null
        && !LOOPBACK.contains(endpoint.getHost().toLowerCase(Locale.ROOT))) {
      problems.add(
          "API_AUTH: none is only allowed with a loopback COSMOS_ENDPOINT (emulators); use apikey"
              + " or entra");
    }
    if (env.containsKey("API_THREADS")) {
      problems.add(
          "API_THREADS: is no longer read; API_MAX_IN_FLIGHT bounds the requests that work at once"
              + " and API_MAX_CONNECTIONS the connections; unset it");
    }
    InetAddress bind = r.ipAddress("API_BIND");
    if (auth == AuthMode.NONE && !bind.isLoopbackAddress()) {
      problems.add(
          "API_AUTH: none is only allowed when API_BIND is a loopback address (it is "
              + bind.getHostAddress()
              + "): anyone who reaches the port could write orders; use apikey or entra");
    }
    ServerLimits limits = limits(r);
    java.util.Set<String> allowedApplications = allowedApplications(r, auth);
    ApiConfig config =
        new ApiConfig(
            endpoint,
            cosmosKey,
            r.matching("COSMOS_DATABASE", COSMOS_NAME),
            r.matching("COSMOS_CONTAINER", COSMOS_NAME),
            r.choice("COSMOS_CONNECTION_MODE", "gateway", "direct").equals("gateway"),
            r.choice("COSMOS_CREATE_CONTAINER", "true", "false").equals("true"),
            r.integer("API_PORT", 0, 65_535),
            auth,
            auth == AuthMode.APIKEY ? apiKey : Optional.empty(),
            r.duration("API_IDEMPOTENCY_TTL", Duration.ofMinutes(1), Duration.ofDays(30)),
            r.duration("API_LEASE", Duration.ofSeconds(1), Duration.ofMinutes(5)),
            r.integer("API_MAX_BODY_BYTES", 1024, 1024 * 1024),
            bind,
            allowedApplications,
            limits,
            webhookSecret(r),
            r.durationOrNever("PAYMENTS_WEBHOOK_MARKER_TTL", Duration.ofMinutes(1), MAX_TTL));
    if (problems.isEmpty() && config.lease().compareTo(config.window()) >= 0) {
      problems.add(
          "API_LEASE, API_IDEMPOTENCY_TTL: the lease "
              + config.lease()
              + " must be shorter than the window "
              + config.window());
    }
    if (!problems.isEmpty()) {
      throw new WorkerConfig.ConfigurationException(problems);
    }
    return config;
  }

  private static java.util.Set<String> allowedApplications(EnvironmentReader r, AuthMode auth) {
    Optional<String> value = r.optional("API_ENTRA_ALLOWED_APPLICATIONS");
    if (auth != AuthMode.ENTRA) {
      if (value.isPresent()) {
        r.problems.add(
            "API_ENTRA_ALLOWED_APPLICATIONS: is set but API_AUTH is not entra; unset it, or use"
                + " entra");
      }
      return java.util.Set.of();
    }
    java.util.Set<String> ids = new java.util.LinkedHashSet<>();
    for (String id : value.orElse("").split(",")) {
      if (!id.isBlank()) {
        ids.add(id.strip());
      }
    }
    if (ids.isEmpty() || !ids.stream().allMatch(id -> GUID.matcher(id).matches())) {
      r.problems.add(
          "API_ENTRA_ALLOWED_APPLICATIONS: must be "
              + r.allowed("API_ENTRA_ALLOWED_APPLICATIONS")
              + ", was '"
              + value.orElse("")
              + "'");
      return java.util.Set.of();
    }
    return java.util.Set.copyOf(ids);
  }

  private static final Pattern GUID =
      Pattern.compile("[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}");

  private static ServerLimits limits(EnvironmentReader r) {
    int before = r.problems.size();
    int inFlight = r.integer("API_MAX_IN_FLIGHT", 1, 256);
    int perCaller = r.integer("API_MAX_IN_FLIGHT_PER_CALLER", 1, 10_000);
    int connections = r.integer("API_MAX_CONNECTIONS", 1, 100_000);
    int perClient = r.integer("API_MAX_CONNECTIONS_PER_CLIENT", 1, 100_000);
    Duration header =
        r.duration("API_HEADER_TIMEOUT", Duration.ofSeconds(1), Duration.ofMinutes(5));
    Duration body = r.duration("API_BODY_TIMEOUT", Duration.ofSeconds(1), Duration.ofMinutes(5));
    if (r.problems.size() == before && perClient > connections) {
      r.problems.add(
          "API_MAX_CONNECTIONS_PER_CLIENT: must be at most API_MAX_CONNECTIONS ("
              + connections
              + "), was "
              + perClient);
    }
    if (r.problems.size() > before) {
      return ServerLimits.defaults();
    }
    return new ServerLimits(connections, perClient, inFlight, perCaller, header, body, 8192);
  }

  private static Optional<WebhookSecret> webhookSecret(EnvironmentReader r) {
    Optional<String> value = r.optional("PAYMENTS_WEBHOOK_SECRET");
    if (value.isPresent() && !WebhookSecret.isValid(value.get())) {
      r.problems.add(
          "PAYMENTS_WEBHOOK_SECRET: must be "
              + r.allowed("PAYMENTS_WEBHOOK_SECRET")
              + " (value not shown)");
      return Optional.empty();
    }
    return value.map(WebhookSecret::new);
  }
}
