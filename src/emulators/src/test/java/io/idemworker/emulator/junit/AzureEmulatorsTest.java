package io.idemworker.emulator.junit;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosClientBuilder;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.models.PartitionKey;
import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusReceiverClient;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.emulator.cosmos.CosmosEmulator;
import io.idemworker.emulator.servicebus.ServiceBusEmulator;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The test kit as a team would use it: one annotation, entities declared inline and from an
 * official-format Config.json, everything reached through the real Azure SDK clients.
 */
@AzureEmulators(
    payments = true,
    queues = "kit-orders",
    topics = "kit-events/audit,billing",
    containers = "kit/orders:/orderId",
    serviceBusConfig = "kit/Config.json")
class AzureEmulatorsTest {
  private Emulators azure;

  private ServiceBusClientBuilder serviceBus(Emulators emulators) {
    return new ServiceBusClientBuilder().connectionString(emulators.serviceBusConnectionString());
  }

  @Test
  void declaredQueue_carriesAMessageThroughTheRealSdk(Emulators emulators) {
    try (ServiceBusSenderClient sender =
            serviceBus(emulators).sender().queueName("kit-orders").buildClient();
        ServiceBusReceiverClient receiver =
            serviceBus(emulators).receiver().queueName("kit-orders").buildClient()) {
      sender.sendMessage(new ServiceBusMessage("{\"orderId\":\"o-1\"}").setMessageId("o-1"));

      List<ServiceBusReceivedMessage> got =
          receiver.receiveMessages(1, Duration.ofSeconds(10)).stream().toList();

      assertThat(got).singleElement().satisfies(m -> assertThat(m.getMessageId()).isEqualTo("o-1"));
      receiver.complete(got.get(0));
    }
  }

  @Test
  void declaredTopic_fansOutToEachSubscription() {
    try (ServiceBusSenderClient sender =
            serviceBus(azure).sender().topicName("kit-events").buildClient();
        ServiceBusReceiverClient audit =
            serviceBus(azure)
                .receiver()
                .topicName("kit-events")
                .subscriptionName("audit")
                .buildClient();
        ServiceBusReceiverClient billing =
            serviceBus(azure)
                .receiver()
                .topicName("kit-events")
                .subscriptionName("billing")
                .buildClient()) {
      sender.sendMessage(new ServiceBusMessage("placed").setMessageId("e-1"));

      assertThat(audit.receiveMessages(1, Duration.ofSeconds(10)).stream().toList()).hasSize(1);
      assertThat(billing.receiveMessages(1, Duration.ofSeconds(10)).stream().toList()).hasSize(1);
    }
  }

  @Test
  void queueFromConfigJson_hasItsSettings() {
    try (ServiceBusReceiverClient receiver =
        serviceBus(azure).receiver().queueName("kit-config-queue").buildClient()) {
      assertThat(receiver.peekMessage()).isNull();
    }
    assertThat(azure.serviceBus().messageCount("kit-config-queue")).isZero();
  }

  @Test
  void declaredContainer_takesItemsThroughTheRealCosmosSdk() {
    try (CosmosClient client =
        new CosmosClientBuilder()
            .endpoint(azure.cosmosEndpoint())
            .key(azure.cosmosKey())
            .gatewayMode()
            .buildClient()) {
      CosmosContainer orders = client.getDatabase("kit").getContainer("orders");
      ObjectNode order =
          JsonNodeFactory.instance.objectNode().put("id", "o-1").put("orderId", "o-1");

      orders.createItem(order);

      assertThat(
              orders
                  .readItem("o-1", new PartitionKey("o-1"), ObjectNode.class)
                  .getItem()
                  .get("orderId")
                  .asText())
          .isEqualTo("o-1");
    }
  }

  @Test
  void paymentsDouble_acceptsItsKey_andRefusesNone() throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    URI captures = URI.create(azure.paymentsBaseUrl() + "/v1/captures");

    int withKey =
        http.send(
                HttpRequest.newBuilder(captures)
                    .header("Authorization", "Bearer " + azure.paymentsApiKey())
                    .build(),
                HttpResponse.BodyHandlers.discarding())
            .statusCode();
    int withoutKey =
        http.send(HttpRequest.newBuilder(captures).build(), HttpResponse.BodyHandlers.discarding())
            .statusCode();

    assertThat(withKey).isNotEqualTo(401);
    assertThat(withoutKey).isEqualTo(401);
  }

  @Test
  void fieldAndParameters_areTheSameRunningEmulators(
      ServiceBusEmulator serviceBus, CosmosEmulator cosmos) {
    assertThat(azure.serviceBus()).isSameAs(serviceBus);
    assertThat(azure.cosmos()).isSameAs(cosmos);
    assertThat(azure.serviceBusConnectionString()).contains(":" + serviceBus.port() + ";");
  }

  @Test
  void uniqueNames_neverRepeat_andNewQueuesAreUsable() {
    Set<String> names = new HashSet<>();
    for (int i = 0; i < 1000; i++) {
      names.add(azure.uniqueName("t"));
    }
    String queue = azure.newQueue("isolated");

    assertThat(names).hasSize(1000).allMatch(n -> n.matches("t-[0-9a-f]{12}"));
    assertThat(azure.serviceBus().messageCount(queue)).isZero();
  }
}
