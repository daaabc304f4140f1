package io.idemworker.relay;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosClientBuilder;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.models.PartitionKey;
import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusReceiverClient;
import com.azure.messaging.servicebus.models.ServiceBusReceiveMode;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.cosmos.CosmosContainers;
import io.idemworker.emulator.cosmos.CosmosEmulator;
import io.idemworker.emulator.servicebus.ServiceBusEmulator;
import io.idemworker.emulator.servicebus.SubscriptionSettings;
import io.idemworker.emulator.servicebus.TopicSettings;
import io.idemworker.orders.OrderDocumentIds;
import io.idemworker.testing.MutableClock;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What the relay tests share: a Cosmos DB emulator on a test clock (lease expiry and lag move only
 * when a test moves it), fresh containers, topics with duplicate detection on a Service Bus
 * emulator, and a listener that counts.
 */
final class RelayFixture {
  static final String SUBSCRIPTION = "audit";
  static final Duration LEASE = Duration.ofSeconds(30);

  private RelayFixture() {}

  static CosmosClient cosmosClient(CosmosEmulator emulator) {
    return new CosmosClientBuilder()
        .endpoint(emulator.endpoint())
        .key(emulator.key())
        .gatewayMode()
        .contentResponseOnWriteEnabled(false)
        .buildClient();
  }

  static CosmosContainer freshContainer(CosmosClient client) {
    return CosmosContainers.ensureExists(
        client,
        "relay",
        "c-" + UUID.randomUUID().toString().substring(0, 8),
        OrderDocumentIds.PARTITION_KEY_PATH);
  }

  /** A topic with duplicate detection (window 10 minutes) and one subscription taking all. */
  static String newTopic(ServiceBusEmulator serviceBus) {
    String name = "t-" + UUID.randomUUID().toString().substring(0, 8);
    serviceBus.createTopic(topic(name));
    return name;
  }

  static TopicSettings topic(String name) {
    return TopicSettings.defaults(name)
        .withRequiresDuplicateDetection(true)
        .withSubscription(SubscriptionSettings.defaults(SUBSCRIPTION));
  }

  static RelaySettings settings(String topic, String owner) {
    return new RelaySettings(topic, owner, LEASE, Duration.ofDays(7), 10, Duration.ofMillis(200));
  }

  /** A relay on the given clock; its executor runs the cycles when a test starts it. */
  static OutboxRelay relay(
      CosmosContainer container,
      ServiceBusClientBuilder serviceBus,
      String topic,
      String owner,
      RelayListener listener,
      Clock clock) {
    ScheduledExecutorService executor =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread thread = new Thread(r, "relay-" + owner);
              thread.setDaemon(true);
              return thread;
            });
    return OutboxRelay.create(
        container,
        serviceBus.sender().topicName(topic).buildClient(),
        settings(topic, owner),
        listener,
        clock,
        executor);
  }

  /** Writes a pending outbox event the way the worker does; returns its id. */
  static String writeEvent(CosmosContainer container, String orderId, MutableClock clock) {
    String id = UUID.randomUUID().toString();
    ObjectNode event = JsonNodeFactory.instance.objectNode();
    event.put("id", id);
    event.put("orderId", orderId);
    event.put("type", "outbox");
    event.put("eventType", "OrderAccepted");
    event.put("ttl", Duration.ofDays(7).toSeconds());
    event.put("causationId", orderId);
    event.put("correlationId", "corr-" + orderId);
    event.put("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
    event.put("createdAt", clock.instant().toString());
    event.putObject("payload").put("orderId", orderId).put("total", "12.50");
    container.createItem(event);
    return id;
  }

  /** Writes an order document (not an event): the relay must skip it. */
  static void writeOrder(CosmosContainer container, String orderId) {
    container.createItem(
        JsonNodeFactory.instance
            .objectNode()
            .put("id", orderId)
            .put("orderId", orderId)
            .put("type", "order"));
  }

  static JsonNode read(CosmosContainer container, String orderId, String id) {
    return container.readItem(id, new PartitionKey(orderId), JsonNode.class).getItem();
  }

  /**
   * Receives (and deletes) messages from the subscription until {@code expected} arrived or {@code
   * wait} passed, then waits up to {@code quiet} more for any extra copy.
   */
  static List<ServiceBusReceivedMessage> receive(
      ServiceBusClientBuilder serviceBus,
      String topic,
      int expected,
      Duration wait,
      Duration quiet) {
    List<ServiceBusReceivedMessage> all = new ArrayList<>();
    try (ServiceBusReceiverClient receiver =
        serviceBus
            .receiver()
            .topicName(topic)
            .subscriptionName(SUBSCRIPTION)
            .receiveMode(ServiceBusReceiveMode.RECEIVE_AND_DELETE)
            .buildClient()) {
      long deadline = System.nanoTime() + wait.toNanos();
      while (all.size() < expected && System.nanoTime() < deadline) {
        receiver.receiveMessages(expected - all.size(), Duration.ofMillis(500)).forEach(all::add);
      }
      receiver.receiveMessages(10, quiet).forEach(all::add);
    }
    return all;
  }

  /** Counts what the relay reports. Thread-safe. */
  static final class Counts implements RelayListener {
    final AtomicInteger published = new AtomicInteger();
    final AtomicInteger republished = new AtomicInteger();
    final ConcurrentHashMap<String, AtomicInteger> failures = new ConcurrentHashMap<>();

    @Override
    public void published(String eventType, int count, int republishedCount) {
      published.addAndGet(count);
      republished.addAndGet(republishedCount);
    }

    @Override
    public void publishFailed(String reason, int count) {
      failures.computeIfAbsent(reason, k -> new AtomicInteger()).addAndGet(count);
    }

    int failures(String reason) {
      AtomicInteger count = failures.get(reason);
      return count == null ? 0 : count.get();
    }
  }
}
