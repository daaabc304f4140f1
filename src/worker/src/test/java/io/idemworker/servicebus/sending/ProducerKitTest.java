package io.idemworker.servicebus.sending;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.azure.core.amqp.exception.AmqpException;
import com.azure.messaging.servicebus.ServiceBusErrorSource;
import com.azure.messaging.servicebus.ServiceBusException;
import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusReceiverClient;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import io.idemworker.app.OrderMessages;
import io.idemworker.core.DeliveryOrigin;
import io.idemworker.core.KeyStrategies;
import io.idemworker.core.KeyStrategy;
import io.idemworker.emulator.junit.AzureEmulators;
import io.idemworker.emulator.junit.Emulators;
import io.idemworker.orders.Orders;
import io.idemworker.servicebus.internal.Deliveries;
import io.idemworker.testing.EmulatorClients;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * The producer kit through the real Service Bus client against the emulator: what it puts on the
 * wire, and how a lost acknowledgement becomes attempt 2 of the same MessageId.
 */
@AzureEmulators(cosmos = false)
class ProducerKitTest {
  static Emulators azure; // injected by @AzureEmulators
  private static final Duration WAIT = Duration.ofSeconds(30);

  private static List<ServiceBusReceivedMessage> peekAll(String queue) {
    try (ServiceBusReceiverClient receiver =
        EmulatorClients.serviceBusClient(azure).receiver().queueName(queue).buildClient()) {
      List<ServiceBusReceivedMessage> all = new ArrayList<>();
      receiver.peekMessages(10).forEach(all::add);
      return all;
    }
  }

  private static int attemptOf(ServiceBusReceivedMessage message) {
    return Deliveries.producerAttempt(
        message.getApplicationProperties().get(ProducerStamps.SEND_ATTEMPT));
  }

  /** A send the broker took whose acknowledgement the client never saw (n times). */
  private static ProducerKit.Transport ackLost(ServiceBusSenderClient client, int times) {
    AtomicInteger lost = new AtomicInteger();
    return messages -> {
      client.sendMessages(messages);
      if (lost.getAndIncrement() < times) {
        throw new ServiceBusException(
            new AmqpException(true, "acknowledgement lost (test)", null),
            ServiceBusErrorSource.SEND);
      }
    };
  }

  @Test
  void send_keepsTheBusinessKeyAndStampsTheFirstAttempt() {
    String queue = azure.newQueue("q");
    int attempt;
    try (ProducerKit kit = new ProducerKit(EmulatorClients.sender(azure, queue))) {
      attempt = kit.send(OrderMessages.outgoing("ord-k1", Orders.body("ord-k1", "c"), "corr-k1"));
    }

    assertThat(attempt).isEqualTo(1);
    try (ServiceBusReceiverClient receiver =
        EmulatorClients.serviceBusClient(azure).receiver().queueName(queue).buildClient()) {
      ServiceBusReceivedMessage received = receiver.receiveMessages(1, WAIT).iterator().next();
      assertThat(received.getMessageId()).isEqualTo("ord-k1");
      assertThat(received.getSubject()).isEqualTo("OrderPlaced");
      assertThat(received.getContentType()).isEqualTo("application/json");
      assertThat(received.getCorrelationId()).isEqualTo("corr-k1");
      assertThat(attemptOf(received)).isEqualTo(1);
      assertThat(Deliveries.origin(received).map(DeliveryOrigin::producerAttempt)).contains(1);
    }
  }

  @Test
  void lostAcknowledgement_isSentAgainAsAttempt2UnderTheSameMessageId() {
    String queue = azure.newQueue("q");
    ServiceBusSenderClient client = EmulatorClients.sender(azure, queue);
    int attempt;
    try (ProducerKit kit =
        new ProducerKit(client, ackLost(client, 1), UnaryOperator.identity(), 3)) {
      attempt = kit.send(OrderMessages.outgoing("ord-k2", Orders.body("ord-k2", "c"), "c"));
    }

    assertThat(attempt).isEqualTo(2);
    List<ServiceBusReceivedMessage> queued = peekAll(queue);
    assertThat(queued).extracting(ServiceBusReceivedMessage::getMessageId).containsOnly("ord-k2");
    assertThat(queued).extracting(ProducerKitTest::attemptOf).containsExactly(1, 2);
  }

  @Test
  void lostAcknowledgement_insideTheDuplicateDetectionWindow_isDroppedByTheBroker() {
    String queue = azure.newQueue("q", "duplicateDetection");
    ServiceBusSenderClient client = EmulatorClients.sender(azure, queue);
    try (ProducerKit kit =
        new ProducerKit(client, ackLost(client, 1), UnaryOperator.identity(), 3)) {
      kit.send(OrderMessages.outgoing("ord-k3", Orders.body("ord-k3", "c"), "c"));
    }

    assertThat(peekAll(queue)).extracting(ProducerKitTest::attemptOf).containsExactly(1);
  }

  @Test
  void failures_areRetriedOnlyWhenTransientAndAtMostMaxAttemptsTimes() {
    AtomicInteger sends = new AtomicInteger();
    ProducerKit.Transport refused =
        messages -> {
          sends.incrementAndGet();
          throw new ServiceBusException(
              new AmqpException(false, "unauthorized (test)", null), ServiceBusErrorSource.SEND);
        };
    Outgoing message = OrderMessages.outgoing("ord-k4", "{}", "c");
    try (ProducerKit kit = new ProducerKit(null, refused, UnaryOperator.identity(), 3)) {
      assertThatThrownBy(() -> kit.send(message)).isInstanceOf(ServiceBusException.class);
    }
    assertThat(sends).hasValue(1);

    List<Integer> attempts = new ArrayList<>();
    ProducerKit.Transport alwaysLost =
        messages -> {
          attempts.add(attemptOf(messages.get(0)));
          throw new ServiceBusException(
              new AmqpException(true, "timeout (test)", null), ServiceBusErrorSource.SEND);
        };
    try (ProducerKit kit = new ProducerKit(null, alwaysLost, UnaryOperator.identity(), 3)) {
      assertThatThrownBy(() -> kit.send(message)).isInstanceOf(ServiceBusException.class);
    }
    assertThat(attempts).containsExactly(1, 2, 3);
  }

  private static int attemptOf(ServiceBusMessage message) {
    return (Integer) message.getApplicationProperties().get(ProducerStamps.SEND_ATTEMPT);
  }

  @Test
  void cloudEvent_isKeyedAsTheWorkersCloudEventsStrategyReadsIt() {
    String queue = azure.newQueue("q");
    try (ProducerKit kit = new ProducerKit(EmulatorClients.sender(azure, queue))) {
      kit.send(
          Outgoing.cloudEvent(
              "/shop/orders", "7f0c2a9e-41d7-4c1e-9a51-3b2d1c0e9f88", "OrderPlaced", "{}"),
          4);
    }

    ServiceBusReceivedMessage received = peekAll(queue).get(0);
    assertThat(received.getMessageId())
        .isEqualTo("/shop/orders|7f0c2a9e-41d7-4c1e-9a51-3b2d1c0e9f88");
    assertThat(attemptOf(received)).isEqualTo(4);
    KeyStrategy.KeyResult key = KeyStrategies.cloudEvents().keyOf(Deliveries.toIncoming(received));
    assertThat(key)
        .isEqualTo(
            new KeyStrategy.Found(new io.idemworker.core.IdempotencyKey(received.getMessageId())));
  }

  @Test
  void sessionId_isPutOnTheWireWhenGiven() {
    try (ProducerKit kit = new ProducerKit(null, messages -> {}, UnaryOperator.identity(), 1)) {
      ServiceBusMessage wire =
          kit.message(OrderMessages.outgoing("ord-k5", "{}", "c").withSessionId("ord-k5"), 1);
      ServiceBusMessage plain = kit.message(OrderMessages.outgoing("ord-k5", "{}", "c"), 1);

      assertThat(wire.getSessionId()).isEqualTo("ord-k5");
      assertThat(plain.getSessionId()).isNull();
    }
  }

  @Test
  void applicationPropertiesWithNullValues_areKept_asAResubmittedCopyMayCarryThem() {
    java.util.Map<String, Object> properties = new java.util.HashMap<>();
    properties.put("tenant", null);
    Outgoing copy =
        new Outgoing(
            MessageIds.Rule.ASSIGNED_ONCE,
            "ord-k6",
            "OrderPlaced",
            java.util.Optional.empty(),
            new byte[0],
            java.util.Optional.empty(),
            java.util.Optional.empty(),
            properties);

    try (ProducerKit kit = new ProducerKit(null, messages -> {}, UnaryOperator.identity(), 1)) {
      ServiceBusMessage wire = kit.message(copy, 2);

      assertThat(wire.getApplicationProperties()).containsEntry("tenant", null);
      assertThat(wire.getApplicationProperties()).containsEntry(ProducerStamps.SEND_ATTEMPT, 2);
      assertThat(wire.getContentType()).isNull();
    }
  }
}
