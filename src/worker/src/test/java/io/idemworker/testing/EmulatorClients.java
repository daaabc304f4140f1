package io.idemworker.testing;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosClientBuilder;
import com.azure.cosmos.CosmosContainer;
import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusReceiverClient;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import com.azure.messaging.servicebus.models.SubQueue;
import io.idemworker.cosmos.CosmosContainers;
import io.idemworker.emulator.junit.Emulators;
import io.idemworker.orders.OrderDocumentIds;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The worker tests' Azure SDK clients of the emulators an {@code @AzureEmulators} test kit handle
 * runs (the kit itself carries no SDK): one gateway-mode Cosmos DB client per emulator, shared by
 * the classes that share the emulator, the orders container, Service Bus builders and senders, and
 * a dead-letter drain. The emulators' lifecycle is the kit's; this class starts none.
 */
public final class EmulatorClients {
  private static final Map<String, CosmosClient> COSMOS_CLIENTS = new ConcurrentHashMap<>();

  private EmulatorClients() {}

  /**
   * A gateway-mode client of the kit's Cosmos DB emulator, one per emulator (its endpoint).
   *
   * @param azure the kit's handle
   * @return the client; do not close it
   */
  public static CosmosClient cosmosClient(Emulators azure) {
    return COSMOS_CLIENTS.computeIfAbsent(
        azure.cosmosEndpoint(),
        endpoint ->
            new CosmosClientBuilder()
                .endpoint(endpoint)
                .key(azure.cosmosKey())
                .gatewayMode()
                .contentResponseOnWriteEnabled(false)
                .buildClient());
  }

  /**
   * The orders container (database {@code it}, partition key {@code /orderId}), created if missing.
   *
   * @param azure the kit's handle
   * @return the container
   */
  public static CosmosContainer orders(Emulators azure) {
    return CosmosContainers.ensureExists(
        cosmosClient(azure), "it", "orders", OrderDocumentIds.PARTITION_KEY_PATH);
  }

  /**
   * A client builder for the kit's Service Bus emulator.
   *
   * @param azure the kit's handle
   * @return the builder
   */
  public static ServiceBusClientBuilder serviceBusClient(Emulators azure) {
    return new ServiceBusClientBuilder().connectionString(azure.serviceBusConnectionString());
  }

  /**
   * A sender to a queue.
   *
   * @param azure the kit's handle
   * @param queue the queue
   * @return the sender; close it
   */
  public static ServiceBusSenderClient sender(Emulators azure, String queue) {
    return serviceBusClient(azure).sender().queueName(queue).buildClient();
  }

  /**
   * Receives (and completes) up to {@code max} messages from a queue's dead-letter queue, waiting
   * at most {@code wait} for each batch.
   *
   * @param azure the kit's handle
   * @param queue the queue
   * @param max the most messages to take
   * @param wait how long to wait
   * @return the dead-lettered messages
   */
  public static List<ServiceBusReceivedMessage> deadLetters(
      Emulators azure, String queue, int max, Duration wait) {
    List<ServiceBusReceivedMessage> all = new ArrayList<>();
    try (ServiceBusReceiverClient receiver =
        serviceBusClient(azure)
            .receiver()
            .queueName(queue)
            .subQueue(SubQueue.DEAD_LETTER_QUEUE)
            .buildClient()) {
      long deadline = System.nanoTime() + wait.toNanos();
      while (all.size() < max && System.nanoTime() < deadline) {
        for (ServiceBusReceivedMessage message :
            receiver.receiveMessages(max - all.size(), Duration.ofMillis(500))) {
          receiver.complete(message);
          all.add(message);
        }
      }
    }
    return all;
  }
}
