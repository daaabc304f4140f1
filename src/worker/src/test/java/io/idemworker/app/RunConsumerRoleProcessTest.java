package io.idemworker.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosException;
import com.azure.cosmos.models.PartitionKey;
import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.emulator.junit.AzureEmulators;
import io.idemworker.emulator.junit.Emulators;
import io.idemworker.emulator.servicebus.CorrelationFilter;
import io.idemworker.emulator.servicebus.SubscriptionRule;
import io.idemworker.emulator.servicebus.SubscriptionSettings;
import io.idemworker.emulator.servicebus.TopicSettings;
import io.idemworker.testing.EmulatorClients;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** {@code run} with a consumer role, as a real process configured by environment variables. */
@AzureEmulators
class RunConsumerRoleProcessTest {
  static Emulators azure; // injected by @AzureEmulators
  private static final Duration WAIT = Duration.ofSeconds(90);

  private Process process;

  @AfterEach
  void cleanUp() {
    if (process != null) {
      process.destroyForcibly();
    }
  }

  private static String newTopic() {
    String topic = "t-" + UUID.randomUUID().toString().substring(0, 8);
    azure
        .serviceBus()
        .createTopic(
            TopicSettings.defaults(topic)
                .withSubscription(
                    SubscriptionSettings.defaults("customer-stats")
                        .withRule(
                            SubscriptionRule.correlation(
                                "accepted", CorrelationFilter.subject("OrderAccepted")))));
    return topic;
  }

  private static Map<String, String> env(String topic, String database) {
    Map<String, String> env = new HashMap<>();
    env.put("SERVICEBUS_CONNECTION_STRING", azure.serviceBus().connectionString());
    env.put("WORKER_ROLE", "customer-stats");
    env.put("SERVICEBUS_TOPIC_NAME", topic);
    env.put("SERVICEBUS_SUBSCRIPTION_NAME", "customer-stats");
    env.put("COSMOS_ENDPOINT", azure.cosmos().endpoint());
    env.put("COSMOS_KEY", azure.cosmos().key());
    env.put("COSMOS_DATABASE", database);
    env.put("COSMOS_CREATE_CONTAINER", "true");
    env.put("HEALTH_PORT", "0");
    return env;
  }

  @Tag("e2e")
  @Test
  void consumerRole_readsItsSubscriptionIntoTheCustomersContainer() throws Exception {
    // given a customer-stats worker process on its subscription
    String topic = newTopic();
    String database = "it-" + UUID.randomUUID().toString().substring(0, 8);
    process = command(env(topic, database)).redirectErrorStream(true).start();
    drain(process);

    // when two events (one of them sent twice) are published
    try (ServiceBusSenderClient sender =
        EmulatorClients.serviceBusClient(azure).sender().topicName(topic).buildClient()) {
      for (String[] event :
          new String[][] {
            {"evt-1", "ord-1", "12.25"}, {"evt-2", "ord-2", "0.75"}, {"evt-2", "ord-2", "0.75"}
          }) {
        sender.sendMessage(
            new ServiceBusMessage(
                    """
                    {"orderId":"%s","customerId":"cust-9","currency":"EUR","total":%s,
                     "lineCount":1,"placedAt":"2026-11-30T10:00:00Z"}
                    """
                        .formatted(event[1], event[2]))
                .setMessageId(event[0])
                .setSubject("OrderAccepted")
                .setContentType("application/json"));
      }
    }

    // then the statistics count each order once, in the container the role created
    CosmosContainer customers =
        EmulatorClients.cosmosClient(azure).getDatabase(database).getContainer("customers");
    ObjectNode stats = awaitDocument(customers, "cust-9", "cust-9:stats:EUR", 2);
    assertThat(stats.path("spentUnits").asLong()).isEqualTo(130_000);
    assertThat(process.isAlive()).isTrue();
  }

  @Test
  void consumerRoleOnTheOrdersContainer_exitsTwoNamingTheContainer() throws Exception {
    // given a container partitioned by /orderId
    EmulatorClients.orders(azure);
    Map<String, String> env = env(newTopic(), "it");
    env.put("COSMOS_CONTAINER", "orders");

    ChildJvm.Exited exited = ChildJvm.runToExit(command(env), WAIT);
    process = exited.process();
    String output = exited.output();

    assertThat(process.exitValue()).isEqualTo(2);
    assertThat(output)
        .contains("COSMOS_CONTAINER, WORKER_ROLE: container orders is partitioned by /orderId")
        .contains("/customerId");
  }

  @Test
  void consumerRoleInSessionMode_onASubscriptionWithoutSessions_exitsTwoNamingIt()
      throws Exception {
    // given SERVICEBUS_SESSIONS=true for a consumer whose subscription has no sessions
    String topic = newTopic();
    Map<String, String> env = env(topic, "it-" + UUID.randomUUID().toString().substring(0, 8));
    env.put("SERVICEBUS_SESSIONS", "true");

    ChildJvm.Exited exited = ChildJvm.runToExit(command(env), WAIT);
    process = exited.process();
    String output = exited.output();

    // then start-up stops with exit code 2, naming the variable and the subscription
    assertThat(process.exitValue()).isEqualTo(2);
    assertThat(output)
        .contains(
            "SERVICEBUS_SESSIONS is true, but subscription "
                + topic
                + "/customer-stats does not require sessions");
  }

  private ObjectNode awaitDocument(
      CosmosContainer container, String partition, String id, long orderCount)
      throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    Optional<ObjectNode> last = Optional.empty();
    while (System.nanoTime() < deadline) {
      assertThat(process.isAlive()).as("the worker process is running").isTrue();
      try {
        last =
            Optional.of(
                container.readItem(id, new PartitionKey(partition), ObjectNode.class).getItem());
        if (last.get().path("orderCount").asLong() >= orderCount) {
          return last.get();
        }
      } catch (CosmosException e) {
        if (e.getStatusCode() != 404) {
          throw e;
        }
      }
      // Polling another process's effect: there is nothing in this JVM to wait on.
      TimeUnit.MILLISECONDS.sleep(200);
    }
    throw new AssertionError("document " + id + " did not reach " + orderCount + ": " + last);
  }

  private static void drain(Process started) {
    Thread reader =
        new Thread(
            () -> {
              try {
                started.getInputStream().transferTo(java.io.OutputStream.nullOutputStream());
              } catch (java.io.IOException e) {
                // the process ended
              }
            },
            "child-output");
    reader.setDaemon(true);
    reader.start();
  }

  private static ProcessBuilder command(Map<String, String> env) {
    return ChildJvm.command("run", env);
  }
}
