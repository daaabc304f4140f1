package io.idemworker.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.models.PartitionKey;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusReceiverClient;
import com.azure.messaging.servicebus.models.ServiceBusReceiveMode;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.cosmos.CosmosContainers;
import io.idemworker.emulator.junit.AzureEmulators;
import io.idemworker.emulator.junit.Emulators;
import io.idemworker.emulator.servicebus.SubscriptionSettings;
import io.idemworker.emulator.servicebus.TopicSettings;
import io.idemworker.orders.OrderDocumentIds;
import io.idemworker.testing.EmulatorClients;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The {@code relay} command as a real process: configured like {@code run}, ready on its port,
 * publishing what is pending, and giving its lease up on SIGTERM.
 */
@AzureEmulators
class RelayCommandProcessTest {
  static Emulators azure; // injected by @AzureEmulators
  private static final Duration WAIT = Duration.ofSeconds(90);
  private Process process;

  @AfterEach
  void cleanUp() {
    if (process != null) {
      process.destroyForcibly();
    }
  }

  @Tag("e2e")
  @Test
  void relayCommand_publishesPendingEvents_andOnSigtermReleasesItsLeaseAndExitsZero()
      throws Exception {
    // given pending events in a fresh database and a topic with a subscription
    String topic = "t-" + UUID.randomUUID().toString().substring(0, 8);
    azure
        .serviceBus()
        .createTopic(
            TopicSettings.defaults(topic)
                .withRequiresDuplicateDetection(true)
                .withSubscription(SubscriptionSettings.defaults("all")));
    String database = "relay-" + UUID.randomUUID().toString().substring(0, 8);
    CosmosContainer container =
        CosmosContainers.ensureExists(
            EmulatorClients.cosmosClient(azure),
            database,
            "orders",
            OrderDocumentIds.PARTITION_KEY_PATH);
    Set<String> ids = new HashSet<>();
    for (int i = 0; i < 5; i++) {
      ObjectNode event = JsonNodeFactory.instance.objectNode();
      String id = UUID.randomUUID().toString();
      event.put("id", id);
      event.put("orderId", "ord-" + i);
      event.put("type", "outbox");
      event.put("status", "pending");
      event.put("eventType", "OrderAccepted");
      event.put("createdAt", Instant.now().toString());
      event.putObject("payload").put("orderId", "ord-" + i);
      container.createItem(event);
      ids.add(id);
    }
    int healthPort = ChildJvm.freePort();

    // when the relay runs as its own process
    process = command(topic, database, healthPort).start();
    ChildJvm.awaitReadiness(process, "relay process", healthPort, 200, WAIT);
    List<String> received = receive(topic, ids.size());

    // then every event arrives once
    assertThat(received).containsExactlyInAnyOrderElementsOf(ids);
    // and SIGTERM stops it cleanly, giving the lease up with the checkpoint kept
    process.toHandle().destroy();
    assertThat(process.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).isZero();
    JsonNode lease =
        container
            .readItem("relay-lease", new PartitionKey("relay:" + topic), JsonNode.class)
            .getItem();
    assertThat(Instant.parse(lease.get("expiresAt").asText())).isBeforeOrEqualTo(Instant.now());
    assertThat(lease.get("continuation").asText()).isNotBlank();
    io.idemworker.relay.RelayProgress progress =
        io.idemworker.relay.RelayProgress.read(container, topic, 100);
    for (int i = 0; i < 5; i++) {
      container
          .queryItems(
              "SELECT * FROM c WHERE c.type = 'outbox'",
              new com.azure.cosmos.models.CosmosQueryRequestOptions()
                  .setPartitionKey(new PartitionKey("ord-" + i)),
              JsonNode.class)
          .forEach(
              e ->
                  assertThat(progress.of(e))
                      .isEqualTo(io.idemworker.relay.RelayProgress.State.PUBLISHED));
    }
  }

  private static ProcessBuilder command(String topic, String database, int healthPort) {
    return ChildJvm.command(
            "relay",
            Map.of(
                "SERVICEBUS_CONNECTION_STRING", azure.serviceBus().connectionString(),
                "COSMOS_ENDPOINT", azure.cosmos().endpoint(),
                "COSMOS_KEY", azure.cosmos().key(),
                "COSMOS_DATABASE", database,
                "RELAY_TOPIC_NAME", topic,
                "RELAY_POLL_INTERVAL", "PT0.2S",
                "HEALTH_PORT", Integer.toString(healthPort)))
        .redirectError(ProcessBuilder.Redirect.DISCARD)
        .redirectOutput(ProcessBuilder.Redirect.DISCARD);
  }

  private static List<String> receive(String topic, int expected) {
    List<String> ids = new ArrayList<>();
    try (ServiceBusReceiverClient receiver =
        EmulatorClients.serviceBusClient(azure)
            .receiver()
            .topicName(topic)
            .subscriptionName("all")
            .receiveMode(ServiceBusReceiveMode.RECEIVE_AND_DELETE)
            .buildClient()) {
      long deadline = System.nanoTime() + WAIT.toNanos();
      while (ids.size() < expected && System.nanoTime() < deadline) {
        for (ServiceBusReceivedMessage message :
            receiver.receiveMessages(expected - ids.size(), Duration.ofSeconds(1))) {
          ids.add(message.getMessageId());
        }
      }
      receiver.receiveMessages(10, Duration.ofSeconds(1)).forEach(m -> ids.add(m.getMessageId()));
    }
    return ids;
  }
}
