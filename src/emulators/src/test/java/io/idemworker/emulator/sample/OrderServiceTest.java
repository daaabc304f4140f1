package io.idemworker.emulator.sample;

// The kit's page (src/emulators/README.md) shows the regions below; KitPageTest holds them equal.
// BEGIN: kit-page-use
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
import com.fasterxml.jackson.databind.JsonNode;
import io.idemworker.emulator.cosmos.Fault;
import io.idemworker.emulator.cosmos.Operation;
import io.idemworker.emulator.junit.AzureEmulators;
import io.idemworker.emulator.junit.Emulators;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

@AzureEmulators(queues = "orders", containers = "shop/orders:/orderId")
class OrderServiceTest {
  Emulators azure; // injected, like a parameter of this type

  CosmosClient cosmos() {
    return new CosmosClientBuilder()
        .endpoint(azure.cosmosEndpoint())
        .key(azure.cosmosKey())
        .gatewayMode()
        .buildClient();
  }

  @Test
  void storesAnOrderAndAnnouncesIt() {
    var serviceBus =
        new ServiceBusClientBuilder().connectionString(azure.serviceBusConnectionString());
    try (CosmosClient cosmos = cosmos();
        ServiceBusSenderClient sender = serviceBus.sender().queueName("orders").buildClient();
        ServiceBusReceiverClient receiver =
            serviceBus.receiver().queueName("orders").buildClient()) {
      CosmosContainer orders = cosmos.getDatabase("shop").getContainer("orders");
      orders.createItem(Map.of("id", "o-1", "orderId", "o-1"));
      sender.sendMessage(new ServiceBusMessage("placed").setMessageId("o-1"));

      List<ServiceBusReceivedMessage> got =
          receiver.receiveMessages(1, Duration.ofSeconds(10)).stream().toList();
      got.forEach(receiver::complete);

      JsonNode stored = orders.readItem("o-1", new PartitionKey("o-1"), JsonNode.class).getItem();
      assertThat(stored.get("orderId").asText()).isEqualTo("o-1");
      assertThat(got).extracting(ServiceBusReceivedMessage::getMessageId).containsExactly("o-1");
    }
  }

  @Test
  void aThrottledCreate_isRetriedByTheSdk() {
    String orders = azure.newContainer("shop", "orders", "/orderId"); // this test's own
    var faults = azure.cosmos().faults().container("shop", orders); // this container's only
    faults.inject(Operation.CREATE, Fault.status(429).times(1)); // disarmed after the test

    try (CosmosClient cosmos = cosmos()) {
      CosmosContainer container = cosmos.getDatabase("shop").getContainer(orders);
      container.createItem(Map.of("id", "o-2", "orderId", "o-2"));
    }

    var stats = azure.cosmos().stats().container("shop", orders);
    assertThat(stats.count(Operation.CREATE)).isEqualTo(2); // the 429, then the SDK's retry
  }
}
// END: kit-page-use
