package io.idemworker.servicebus.deadletter;

import static io.idemworker.testing.RecordingObserver.is;
import static org.assertj.core.api.Assertions.assertThat;

import com.azure.cosmos.models.PartitionKey;
import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusReceiverClient;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import com.azure.messaging.servicebus.models.SubQueue;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.app.OrderMessages;
import io.idemworker.core.Outcome;
import io.idemworker.core.TestFlow;
import io.idemworker.cosmos.CosmosEffectStore;
import io.idemworker.emulator.junit.AzureEmulators;
import io.idemworker.emulator.junit.Emulators;
import io.idemworker.emulator.servicebus.QueueSettings;
import io.idemworker.emulator.servicebus.ServiceBusEmulator;
import io.idemworker.orders.OrderDecoder;
import io.idemworker.orders.OrderDocumentIds;
import io.idemworker.orders.Orders;
import io.idemworker.servicebus.ProcessorSettings;
import io.idemworker.servicebus.ServiceBusConnection;
import io.idemworker.servicebus.processor.ServiceBusWorker;
import io.idemworker.testing.EmulatorClients;
import io.idemworker.testing.MutableClock;
import io.idemworker.testing.RecordingObserver;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Dead-letter resubmission against a real worker on a queue with duplicate detection: what the
 * chaos run found (a reused order id resubmitted from the dead-letter queue vanished from it).
 */
@AzureEmulators(serviceBus = false)
class DeadLetterResubmissionTest {
  static Emulators azure; // injected by @AzureEmulators
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final Duration WINDOW = Duration.ofMinutes(1);
  private static final String QUEUE = "orders";

  private final MutableClock brokerClock = new MutableClock();
  private final RecordingObserver observer = new RecordingObserver();
  private ServiceBusEmulator serviceBus;
  private ServiceBusWorker worker;
  private ServiceBusSenderClient sender;

  @BeforeEach
  void start() {
    serviceBus =
        ServiceBusEmulator.builder()
            .port(0)
            .clock(brokerClock)
            .queue(
                QueueSettings.defaults(QUEUE)
                    .withRequiresDuplicateDetection(true)
                    .withDuplicateDetectionHistoryTimeWindow(WINDOW))
            .start();
    sender = client().sender().queueName(QUEUE).buildClient();
    worker =
        new ServiceBusWorker(
            new ServiceBusConnection.ConnectionString(serviceBus.connectionString()),
            ProcessorSettings.defaults(QUEUE)
                .withMaxConcurrentCalls(2)
                .withMaxRetryBackoff(Duration.ofMillis(50))
                .withProbeInterval(Duration.ofMillis(200)),
            TestFlow.of(
                    new OrderDecoder(true),
                    new CosmosEffectStore(
                        EmulatorClients.orders(azure),
                        (o, s, c, l) -> {},
                        OrderDocumentIds.PARTITION_KEY_PATH))
                .build(),
            new CosmosEffectStore(
                EmulatorClients.orders(azure),
                (o, s, c, l) -> {},
                OrderDocumentIds.PARTITION_KEY_PATH),
            observer,
            Clock.systemUTC());
    worker.start();
  }

  @AfterEach
  void stop() {
    worker.shutdown(Duration.ofSeconds(10));
    sender.close();
    serviceBus.close();
  }

  @Test
  void reusedKeyResubmitted_comesBackToTheDeadLetterQueueOnce_andIsNotResentInsideTheWindow() {
    // Given an order, and a copy of its id with another customer dead-lettered as a conflict
    String orderId = "ord-" + UUID.randomUUID().toString().substring(0, 13);
    sender.sendMessage(OrderMessages.orderPlaced(orderId, Orders.body(orderId, "cust-42"), "c1"));
    observer.await(1, is(Outcome.Processed.class), WAIT);
    brokerClock.advance(WINDOW.plusSeconds(1));
    sender.sendMessage(OrderMessages.orderPlaced(orderId, Orders.body(orderId, "cust-99"), "c2"));
    observer.await(1, is(Outcome.DeadLettered.class), WAIT);
    brokerClock.advance(WINDOW.plusSeconds(1));

    // When it is resubmitted while the worker runs (the worker refuses it again at once)
    List<DeadLetterResubmitter.Entry> entries =
        new DeadLetterResubmitter(
                new ServiceBusConnection.ConnectionString(serviceBus.connectionString()), QUEUE)
            .resubmit(Set.of("IdempotencyConflict"), 100, false, Duration.ofSeconds(3));

    // Then it was sent once, refused again, and lies in the dead-letter queue with its reason;
    // sent a second time inside the window, the broker would have dropped it and it would be gone
    assertThat(entries).filteredOn(DeadLetterResubmitter.Entry::resubmitted).hasSize(1);
    observer.await(2, is(Outcome.DeadLettered.class), WAIT);
    List<ServiceBusReceivedMessage> deadLetters = deadLetters();
    assertThat(deadLetters)
        .extracting(ServiceBusReceivedMessage::getMessageId)
        .containsExactly(orderId);
    assertThat(deadLetters.get(0).getDeadLetterReason()).isEqualTo("IdempotencyConflict");
    assertThat(observer.finished())
        .filteredOn(is(Outcome.Duplicate.class).or(is(Outcome.Processed.class)))
        .hasSize(1);
    assertThat(
            EmulatorClients.orders(azure)
                .readItem(orderId, new PartitionKey(orderId), ObjectNode.class)
                .getItem()
                .get("customerId")
                .asText())
        .isEqualTo("cust-42");
  }

  private ServiceBusClientBuilder client() {
    return new ServiceBusClientBuilder().connectionString(serviceBus.connectionString());
  }

  private List<ServiceBusReceivedMessage> deadLetters() {
    try (ServiceBusReceiverClient receiver =
        client().receiver().queueName(QUEUE).subQueue(SubQueue.DEAD_LETTER_QUEUE).buildClient()) {
      List<ServiceBusReceivedMessage> all = new ArrayList<>();
      receiver.peekMessages(100).forEach(all::add);
      return all;
    }
  }
}
