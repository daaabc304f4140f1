package io.idemworker.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idemworker.consumers.CustomerConsumers;
import io.idemworker.core.IdempotencyKey;
import io.idemworker.core.IncomingMessage;
import io.idemworker.core.KeyStrategy;
import io.idemworker.servicebus.ProcessorSettings;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class WorkerRoleConfigTest {
  private static Map<String, String> consumer(String role) {
    Map<String, String> env = new HashMap<>();
    env.put(
        "SERVICEBUS_CONNECTION_STRING",
        "Endpoint=sb://localhost:5672;SharedAccessKeyName=RootManageSharedAccessKey;"
            + "SharedAccessKey=SAS_KEY_VALUE;UseDevelopmentEmulator=true;");
    env.put("COSMOS_ENDPOINT", "https://localhost:8081/");
    env.put("WORKER_ROLE", role);
    env.put("SERVICEBUS_TOPIC_NAME", "order-events");
    env.put("SERVICEBUS_SUBSCRIPTION_NAME", role);
    return env;
  }

  private static List<String> problems(Map<String, String> env) {
    try {
      WorkerConfig.fromEnvironment(env);
    } catch (WorkerConfig.ConfigurationException e) {
      return e.problems();
    }
    throw new AssertionError("the configuration was accepted");
  }

  @Test
  void consumerRole_readsItsSubscriptionAndWritesTheCustomersContainer() {
    WorkerConfig config = WorkerConfig.fromEnvironment(consumer("loyalty"));

    assertThat(config.consumerRole()).contains(CustomerConsumers.Role.LOYALTY);
    assertThat(config.source())
        .isEqualTo(new ProcessorSettings.Subscription("order-events", "loyalty"));
    assertThat(config.cosmosContainer()).isEqualTo("customers");
    assertThat(config.markerConsumer()).isEqualTo("loyalty");
    assertThat(Wiring.partitionKeyPath(config)).isEqualTo("/customerId");
  }

  @Test
  void explicitConsumerName_namesTheMarkersButDoesNotPrefixTheKey() {
    Map<String, String> env = consumer("customer-stats");
    env.put("WORKER_CONSUMER_NAME", "stats-v2");
    WorkerConfig config = WorkerConfig.fromEnvironment(env);
    IncomingMessage event =
        new IncomingMessage(
            Optional.of("evt-1"),
            Optional.empty(),
            Optional.of("OrderAccepted"),
            Optional.empty(),
            Map.of(),
            new byte[0],
            0);

    assertThat(config.markerConsumer()).isEqualTo("stats-v2");
    assertThat(Wiring.keyStrategy(config).keyOf(event))
        .isEqualTo(new KeyStrategy.Found(new IdempotencyKey("evt-1")));
  }

  @Test
  void ordersRole_isTheDefaultAndReadsTheQueue() {
    Map<String, String> env = consumer("orders");
    env.remove("WORKER_ROLE");
    env.remove("SERVICEBUS_TOPIC_NAME");
    env.remove("SERVICEBUS_SUBSCRIPTION_NAME");
    WorkerConfig config = WorkerConfig.fromEnvironment(env);

    assertThat(config.consumerRole()).isEmpty();
    assertThat(config.source()).isEqualTo(new ProcessorSettings.Queue("orders"));
    assertThat(config.cosmosContainer()).isEqualTo("orders");
    assertThat(config.markerConsumer()).isEqualTo("orders");
  }

  @Test
  void consumerRoleWithoutATopic_isRefusedNamingTheVariables() {
    Map<String, String> env = consumer("loyalty");
    env.remove("SERVICEBUS_TOPIC_NAME");
    env.remove("SERVICEBUS_SUBSCRIPTION_NAME");

    assertThat(problems(env))
        .singleElement()
        .satisfies(
            p ->
                assertThat(p)
                    .contains(
                        "WORKER_ROLE loyalty",
                        "SERVICEBUS_TOPIC_NAME",
                        "SERVICEBUS_SUBSCRIPTION_NAME"));
  }

  @Test
  void topicTogetherWithAQueue_isRefusedNamingBoth() {
    Map<String, String> env = consumer("loyalty");
    env.put("SERVICEBUS_QUEUE_NAME", "orders");

    assertThat(problems(env))
        .singleElement()
        .satisfies(p -> assertThat(p).startsWith("SERVICEBUS_QUEUE_NAME, SERVICEBUS_TOPIC_NAME:"));
  }

  @Test
  void topicWithoutSubscription_isRefusedNamingBoth() {
    Map<String, String> env = consumer("loyalty");
    env.remove("SERVICEBUS_SUBSCRIPTION_NAME");

    assertThat(problems(env))
        .singleElement()
        .satisfies(
            p -> assertThat(p).startsWith("SERVICEBUS_TOPIC_NAME, SERVICEBUS_SUBSCRIPTION_NAME:"));
  }

  @Test
  void ordersRoleOnATopic_isRefused() {
    Map<String, String> env = consumer("orders");

    assertThat(problems(env))
        .singleElement()
        .satisfies(p -> assertThat(p).startsWith("WORKER_ROLE: orders reads the queue"));
  }

  @Test
  void unknownRole_isRefusedWithTheAllowedValues() {
    assertThatThrownBy(() -> WorkerConfig.fromEnvironment(consumer("loyality")))
        .isInstanceOfSatisfying(
            WorkerConfig.ConfigurationException.class,
            e ->
                assertThat(e.problems())
                    .singleElement()
                    .isEqualTo(
                        "WORKER_ROLE: must be orders | loyalty | customer-stats, was 'loyality'"));
  }
}
