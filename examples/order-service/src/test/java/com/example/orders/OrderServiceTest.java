package com.example.orders;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosClientBuilder;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.models.CosmosQueryRequestOptions;
import com.azure.cosmos.models.PartitionKey;
import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusReceiverClient;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.emulator.cosmos.Fault;
import io.idemworker.emulator.cosmos.Operation;
import io.idemworker.emulator.junit.AzureEmulators;
import io.idemworker.emulator.junit.Emulators;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

@AzureEmulators(containers = "shop/orders:/orderId")
class OrderServiceTest {
  Emulators azure;
  private String queue;
  private CosmosClient cosmos;
  private ServiceBusSenderClient sender;
  private ServiceBusReceiverClient receiver;
  private OrderService service;

  @BeforeEach
  void connect() {
    queue = azure.newQueue("orders"); // a queue of this test's own
    cosmos =
        new CosmosClientBuilder()
            .endpoint(azure.cosmosEndpoint())
            .key(azure.cosmosKey())
            .gatewayMode()
            .buildClient();
    ServiceBusClientBuilder bus =
        new ServiceBusClientBuilder().connectionString(azure.serviceBusConnectionString());
    sender = bus.sender().queueName(queue).buildClient();
    receiver = bus.receiver().queueName(queue).disableAutoComplete().buildClient();
    service = new OrderService(receiver, cosmos.getDatabase("shop").getContainer("orders"));
  }

  @AfterEach
  void close() {
    sender.close();
    receiver.close();
    cosmos.close();
  }

  @Test
  void theSameOrderSentTwice_isStoredOnce() {
    String orderId = azure.uniqueName("ord");
    String body = "{\"orderId\":\"" + orderId + "\",\"total\":19.98}";
    sender.sendMessage(new ServiceBusMessage(body).setMessageId(orderId));
    sender.sendMessage(new ServiceBusMessage(body).setMessageId(orderId));

    List<OrderService.Outcome> outcomes = drain(2);

    assertThat(outcomes)
        .containsExactlyInAnyOrder(OrderService.Outcome.STORED, OrderService.Outcome.DUPLICATE);
    assertThat(count(orderId)).isEqualTo(1);
    assertThat(azure.serviceBus().messageCount(queue)).isZero();
  }

  @Test
  void aStoreOutage_isRetried_thenStoredOnce() {
    String orderId = azure.uniqueName("ord");
    azure.cosmos().faults().failNth(Operation.CREATE, 1, Fault.status(503));
    sender.sendMessage(
        new ServiceBusMessage("{\"orderId\":\"" + orderId + "\"}").setMessageId(orderId));

    List<OrderService.Outcome> outcomes = drain(1);

    assertThat(outcomes).containsExactly(OrderService.Outcome.RETRIED, OrderService.Outcome.STORED);
    assertThat(count(orderId)).isEqualTo(1);
  }

  @Test
  void anUnreadableMessage_isDeadLettered() {
    sender.sendMessage(new ServiceBusMessage("not json").setMessageId(azure.uniqueName("bad")));

    assertThat(drain(1)).containsExactly(OrderService.Outcome.DEAD_LETTERED);
    assertThat(azure.serviceBus().messageCount(queue + "/$deadletterqueue")).isEqualTo(1);
  }

  /** Polls until {@code settled} messages ended as stored, duplicate or dead-lettered (bounded). */
  private List<OrderService.Outcome> drain(int settled) {
    List<OrderService.Outcome> outcomes = new ArrayList<>();
    for (int round = 0;
        round < 20
            && outcomes.stream().filter(o -> o != OrderService.Outcome.RETRIED).count() < settled;
        round++) {
      outcomes.addAll(service.poll(10, Duration.ofSeconds(2)));
    }
    return outcomes;
  }

  private long count(String orderId) {
    CosmosContainer orders = cosmos.getDatabase("shop").getContainer("orders");
    return orders
        .queryItems(
            "SELECT * FROM c",
            new CosmosQueryRequestOptions().setPartitionKey(new PartitionKey(orderId)),
            ObjectNode.class)
        .stream()
        .count();
  }
}
