package io.idemworker.proof.chaos;

import io.idemworker.proof.emulators.EventTopic;
import java.net.URI;
import java.util.HashMap;
import java.util.Map;

/**
 * The environment of the chaos run's worker processes: what a deployment would give {@code run}
 * ({@code local/worker.env}'s variables), pointed at the run's broker, database and payment
 * provider double.
 */
final class ChaosEnvironment {
  static final String CUSTOMERS = "customers";

  private ChaosEnvironment() {}

  /**
   * What every process shares.
   *
   * @param serviceBusConnectionString the namespace
   * @param cosmosEndpoint the account
   * @param cosmosKey its key
   * @param database the database holding the run's containers (which must exist: nothing is
   *     created)
   */
  static Map<String, String> base(
      String serviceBusConnectionString, URI cosmosEndpoint, String cosmosKey, String database) {
    Map<String, String> env = new HashMap<>();
    env.put("SERVICEBUS_CONNECTION_STRING", serviceBusConnectionString);
    env.put("COSMOS_ENDPOINT", cosmosEndpoint.toString());
    env.put("COSMOS_KEY", cosmosKey);
    env.put("COSMOS_DATABASE", database);
    env.put("COSMOS_CONNECTION_MODE", "gateway");
    env.put("COSMOS_CREATE_CONTAINER", "false");
    env.put("WORKER_MAX_CONCURRENT_CALLS", "16");
    env.put("WORKER_PREFETCH_COUNT", "0");
    env.put("WORKER_MAX_LOCK_RENEWAL", "PT5M");
    env.put("WORKER_KEY_STRATEGY", "message-id");
    env.put("WORKER_MAX_BODY_BYTES", String.valueOf(ChaosCommand.MAX_BODY_BYTES));
    env.put("WORKER_SHUTDOWN_TIMEOUT", "PT10S");
    env.put("HEALTH_PORT", "0");
    env.put("WORKER_INBOX_TTL", "P14D");
    env.put("WORKER_RESUBMIT_WINDOW", "P7D");
    env.put("SERVICEBUS_LOCK_DURATION", "PT1M");
    env.put("SERVICEBUS_MAX_DELIVERY_COUNT", "10");
    env.put("SERVICEBUS_MESSAGE_TTL", "P1D");
    env.put("OTEL_SERVICE_NAME", "idemworker-chaos");
    return env;
  }

  /** An orders-role worker with the outbox relay on, paying through {@code provider}. */
  static Map<String, String> orders(Map<String, String> base, URI provider, String apiKey) {
    Map<String, String> env = new HashMap<>(base);
    env.put("WORKER_ROLE", "orders");
    env.put("SERVICEBUS_QUEUE_NAME", ChaosCommand.QUEUE);
    env.put("COSMOS_CONTAINER", ChaosCommand.QUEUE);
    env.put("RELAY_ENABLED", "true");
    env.put("RELAY_TOPIC_NAME", EventTopic.NAME);
    env.put("RELAY_LEASE_DURATION", "PT5S");
    env.put("RELAY_POLL_INTERVAL", "PT0.2S");
    env.put("RELAY_BATCH_SIZE", "100");
    env.put("PAYMENTS_BASE_URL", provider.toString());
    env.put("PAYMENTS_API_KEY", apiKey);
    env.put("PAYMENTS_TIMEOUT", "PT2S");
    // Short, to make takeovers quick; longer than the timeout plus the call's 2 s margin.
    env.put("PAYMENTS_LEASE", "PT5S");
    return env;
  }

  /** A topic consumer of {@code role} on its subscription. */
  static Map<String, String> consumer(Map<String, String> base, String role) {
    Map<String, String> env = new HashMap<>(base);
    env.put("WORKER_ROLE", role);
    env.put("SERVICEBUS_TOPIC_NAME", EventTopic.NAME);
    env.put("SERVICEBUS_SUBSCRIPTION_NAME", role);
    env.put("COSMOS_CONTAINER", CUSTOMERS);
    env.put("RELAY_ENABLED", "false");
    return env;
  }
}
