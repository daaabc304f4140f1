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
import io.idemworker.emulator.cosmos.CosmosEmulator;
import io.idemworker.emulator.servicebus.QueueSettings;
import io.idemworker.emulator.servicebus.ServiceBusEmulator;
import io.idemworker.orders.OrderDocumentIds;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.UnaryOperator;

/**
 * Both emulators, started once per test JVM on free ports and shared by the tests that need them;
 * tests isolate themselves with fresh queue names and fresh order ids.
 *
 * <p>Left for the tests of {@code src/proof} (through this module's test jar) until they move to
 * {@code @AzureEmulators}; this module's tests take their emulators from that kit, and their SDK
 * clients from {@link EmulatorClients}.
 */
public final class Emulators {
  private static ServiceBusEmulator serviceBus;
  private static CosmosEmulator cosmos;
  private static CosmosClient cosmosClient;

  private Emulators() {}

  /**
   * The shared Service Bus emulator.
   *
   * @return the emulator
   */
  public static synchronized ServiceBusEmulator serviceBus() {
    if (serviceBus == null) {
      serviceBus = ServiceBusEmulator.builder().port(0).start();
    }
    return serviceBus;
  }

  /**
   * The shared Cosmos DB emulator.
   *
   * @return the emulator
   */
  public static synchronized CosmosEmulator cosmos() {
    if (cosmos == null) {
      cosmos = CosmosEmulator.builder().port(0).start();
    }
    return cosmos;
  }

  /**
   * A gateway-mode client of the shared Cosmos DB emulator.
   *
   * @return the client
   */
  public static synchronized CosmosClient cosmosClient() {
    if (cosmosClient == null) {
      cosmosClient =
          new CosmosClientBuilder()
              .endpoint(cosmos().endpoint())
              .key(cosmos().key())
              .gatewayMode()
              .contentResponseOnWriteEnabled(false)
              .buildClient();
    }
    return cosmosClient;
  }

  /**
   * The orders container (partition key {@code /orderId}), created if missing.
   *
   * @return the container
   */
  public static CosmosContainer orders() {
    return CosmosContainers.ensureExists(
        cosmosClient(), "it", "orders", OrderDocumentIds.PARTITION_KEY_PATH);
  }

  /**
   * Creates a queue with a fresh name.
   *
   * @param settings adjusts the default settings
   * @return the queue name
   */
  public static String newQueue(UnaryOperator<QueueSettings> settings) {
    String name = "q-" + UUID.randomUUID().toString().substring(0, 8);
    serviceBus().createQueue(settings.apply(QueueSettings.defaults(name)));
    return name;
  }

  /**
   * A client builder for the shared Service Bus emulator.
   *
   * @return the builder
   */
  public static ServiceBusClientBuilder serviceBusClient() {
    return new ServiceBusClientBuilder().connectionString(serviceBus().connectionString());
  }

  /**
   * A sender to a queue.
   *
   * @param queue the queue
   * @return the sender; close it
   */
  public static ServiceBusSenderClient sender(String queue) {
    return serviceBusClient().sender().queueName(queue).buildClient();
  }

  /**
   * Receives (and completes) up to {@code max} messages from a queue's dead-letter queue, waiting
   * at most {@code wait} for each batch.
   *
   * @param queue the queue
   * @param max the most messages to take
   * @param wait how long to wait
   * @return the dead-lettered messages
   */
  public static List<ServiceBusReceivedMessage> deadLetters(String queue, int max, Duration wait) {
    List<ServiceBusReceivedMessage> all = new ArrayList<>();
    try (ServiceBusReceiverClient receiver =
        serviceBusClient()
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
