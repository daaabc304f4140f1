package io.idemworker.emulator.servicebus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.azure.messaging.servicebus.ServiceBusException;
import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusMessageBatch;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusReceiverClient;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import com.azure.messaging.servicebus.models.DeadLetterOptions;
import com.azure.messaging.servicebus.models.ServiceBusMessageState;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ServiceBusEmulatorMessagingTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private EmulatorFixture fx;

  @BeforeEach
  void start() {
    fx =
        new EmulatorFixture(
            QueueSettings.defaults("orders").withMaxDeliveryCount(3),
            QueueSettings.defaults("other"));
  }

  @AfterEach
  void stop() {
    fx.close();
  }

  private static List<ServiceBusReceivedMessage> receive(ServiceBusReceiverClient r, int n) {
    List<ServiceBusReceivedMessage> out = new ArrayList<>();
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (out.size() < n && System.nanoTime() < deadline) {
      r.receiveMessages(n - out.size(), Duration.ofSeconds(5)).forEach(out::add);
    }
    return out;
  }

  @Test
  void sentMessage_isReceivedWithBrokerPropertiesAndLock() {
    ServiceBusSenderClient sender = fx.sender("orders");
    ServiceBusReceiverClient receiver = fx.receiver("orders");

    sender.sendMessage(
        new ServiceBusMessage("hello")
            .setMessageId("m-1")
            .setCorrelationId("c-1")
            .setSubject("order")
            .setContentType("text/plain")
            .addContext("ignored", "x"));
    sender.sendMessage(new ServiceBusMessage("no id"));
    ServiceBusMessage withProps = new ServiceBusMessage("props");
    withProps.getApplicationProperties().put("tenant", "acme");
    sender.sendMessage(withProps);

    List<ServiceBusReceivedMessage> got = receive(receiver, 3);
    assertThat(got).hasSize(3);
    ServiceBusReceivedMessage first = got.get(0);
    assertThat(first.getBody().toString()).isEqualTo("hello");
    assertThat(first.getMessageId()).isEqualTo("m-1");
    assertThat(first.getCorrelationId()).isEqualTo("c-1");
    assertThat(first.getSubject()).isEqualTo("order");
    assertThat(first.getContentType()).isEqualTo("text/plain");
    assertThat(first.getSequenceNumber()).isEqualTo(1L);
    assertThat(first.getDeliveryCount()).isZero();
    assertThat(first.getLockToken())
        .isNotBlank()
        .isNotEqualTo("00000000-0000-0000-0000-000000000000");
    assertThat(first.getEnqueuedTime()).isNotNull();
    assertThat(first.getLockedUntil())
        .isAfter(first.getEnqueuedTime().plusSeconds(59))
        .isBefore(first.getEnqueuedTime().plusSeconds(61));
    assertThat(got.get(1).getMessageId()).as("broker-assigned message-id").isNotBlank();
    assertThat(got.get(1).getSequenceNumber()).isEqualTo(2L);
    assertThat(got.get(2).getApplicationProperties()).containsEntry("tenant", "acme");
    got.forEach(receiver::complete);
    assertThat(receiver.peekMessage(1)).isNull();
  }

  @Test
  void batchOfMessages_isEnqueuedInOrder() {
    ServiceBusSenderClient sender = fx.sender("orders");
    ServiceBusMessageBatch batch = sender.createMessageBatch();
    for (int i = 0; i < 50; i++) {
      assertThat(batch.tryAddMessage(new ServiceBusMessage("b" + i).setMessageId("b" + i)))
          .isTrue();
    }
    sender.sendMessages(batch);
    sender.sendMessages(List.of(new ServiceBusMessage("x"), new ServiceBusMessage("y")));

    List<ServiceBusReceivedMessage> got = receive(fx.receiveAndDeleteReceiver("orders"), 52);
    assertThat(got).hasSize(52);
    assertThat(got.subList(0, 50))
        .extracting(ServiceBusReceivedMessage::getMessageId)
        .containsExactlyElementsOf(
            java.util.stream.IntStream.range(0, 50).mapToObj(i -> "b" + i).toList());
    assertThat(got)
        .extracting(ServiceBusReceivedMessage::getSequenceNumber)
        .isSorted()
        .doesNotHaveDuplicates();
  }

  @Test
  void receiveAndDelete_removesMessagesWithoutSettlement() {
    ServiceBusSenderClient sender = fx.sender("orders");
    sender.sendMessages(List.of(new ServiceBusMessage("1"), new ServiceBusMessage("2")));

    List<ServiceBusReceivedMessage> got = receive(fx.receiveAndDeleteReceiver("orders"), 2);

    assertThat(got).extracting(m -> m.getBody().toString()).containsExactly("1", "2");
    assertThat(fx.receiver("orders").peekMessages(10)).isEmpty();
  }

  @Test
  void abandonedMessage_comesBackWithDeliveryCountIncremented() {
    fx.sender("orders").sendMessage(new ServiceBusMessage("a").setMessageId("a"));
    ServiceBusReceiverClient receiver = fx.receiver("orders");

    ServiceBusReceivedMessage first = receive(receiver, 1).get(0);
    receiver.abandon(first);
    ServiceBusReceivedMessage again = receive(receiver, 1).get(0);

    assertThat(again.getMessageId()).isEqualTo("a");
    assertThat(again.getDeliveryCount()).isEqualTo(1);
    assertThat(again.getLockToken()).isNotEqualTo(first.getLockToken());
    receiver.complete(again);
  }

  @Test
  void abandonPastMaxDeliveryCount_movesMessageToDeadLetterQueueWithReason() {
    fx.sender("orders").sendMessage(new ServiceBusMessage("poison").setMessageId("p"));
    ServiceBusReceiverClient receiver = fx.receiver("orders");

    for (int i = 0; i < 3; i++) {
      ServiceBusReceivedMessage m = receive(receiver, 1).get(0);
      assertThat(m.getDeliveryCount()).isEqualTo(i);
      receiver.abandon(m);
    }

    ServiceBusReceiverClient dlq = fx.deadLetterReceiver("orders");
    ServiceBusReceivedMessage dead = receive(dlq, 1).get(0);
    assertThat(dead.getMessageId()).isEqualTo("p");
    assertThat(dead.getDeadLetterReason()).isEqualTo("MaxDeliveryCountExceeded");
    assertThat(dead.getDeadLetterSource())
        .as("the service sets DeadLetterSource only on messages auto-forwarded from a DLQ")
        .isNull();
    dlq.complete(dead);
    assertThat(receiver.peekMessages(10)).isEmpty();
  }

  @Test
  void deadLetteredMessage_carriesReasonAndDescriptionToTheDeadLetterQueue() {
    ServiceBusMessage msg = new ServiceBusMessage("bad").setMessageId("d");
    msg.getApplicationProperties().put("kept", 42);
    fx.sender("orders").sendMessage(msg);
    ServiceBusReceiverClient receiver = fx.receiver("orders");

    receiver.deadLetter(
        receive(receiver, 1).get(0),
        new DeadLetterOptions()
            .setDeadLetterReason("ValidationFailed")
            .setDeadLetterErrorDescription("amount is negative"));

    ServiceBusReceivedMessage dead = receive(fx.deadLetterReceiver("orders"), 1).get(0);
    assertThat(dead.getMessageId()).isEqualTo("d");
    assertThat(dead.getDeadLetterReason()).isEqualTo("ValidationFailed");
    assertThat(dead.getDeadLetterErrorDescription()).isEqualTo("amount is negative");
    assertThat(dead.getApplicationProperties()).containsEntry("kept", 42);
  }

  @Test
  void deferredMessage_isReceivedOnlyBySequenceNumber() {
    fx.sender("orders").sendMessage(new ServiceBusMessage("later").setMessageId("x"));
    ServiceBusReceiverClient receiver = fx.receiver("orders");
    ServiceBusReceivedMessage m = receive(receiver, 1).get(0);

    receiver.defer(m);

    assertThat(receiver.receiveMessages(1, Duration.ofSeconds(2)).stream().toList()).isEmpty();
    ServiceBusReceivedMessage peeked = receiver.peekMessage(m.getSequenceNumber());
    assertThat(peeked.getState()).isEqualTo(ServiceBusMessageState.DEFERRED);
    ServiceBusReceivedMessage deferred = receiver.receiveDeferredMessage(m.getSequenceNumber());
    assertThat(deferred.getMessageId()).isEqualTo("x");
    assertThat(deferred.getLockToken()).isNotBlank();
    receiver.complete(deferred);
    assertThat(receiver.peekMessages(10)).isEmpty();
  }

  @Test
  void abandonedDeferredMessage_staysDeferred() {
    fx.sender("orders").sendMessage(new ServiceBusMessage("later").setMessageId("d"));
    ServiceBusReceiverClient receiver = fx.receiver("orders");
    ServiceBusReceivedMessage m = receive(receiver, 1).get(0);
    receiver.defer(m);
    ServiceBusReceivedMessage deferred = receiver.receiveDeferredMessage(m.getSequenceNumber());
    assertThat(deferred.getState()).isEqualTo(ServiceBusMessageState.DEFERRED);

    receiver.abandon(deferred);

    assertThat(receiver.receiveMessages(1, Duration.ofSeconds(2)).stream().toList()).isEmpty();
    ServiceBusReceivedMessage again = receiver.receiveDeferredMessage(m.getSequenceNumber());
    assertThat(again.getMessageId()).isEqualTo("d");
    assertThat(again.getDeliveryCount()).isEqualTo(1);
    receiver.complete(again);
  }

  @Test
  void peek_returnsMessagesWithoutLockingThem() {
    ServiceBusSenderClient sender = fx.sender("orders");
    sender.sendMessages(
        List.of(
            new ServiceBusMessage("1"), new ServiceBusMessage("2"), new ServiceBusMessage("3")));
    ServiceBusReceiverClient receiver = fx.receiver("orders");

    List<ServiceBusReceivedMessage> peeked = receiver.peekMessages(10).stream().toList();

    assertThat(peeked)
        .extracting(ServiceBusReceivedMessage::getSequenceNumber)
        .containsExactly(1L, 2L, 3L);
    assertThat(receiver.peekMessages(2, 2L).stream().toList())
        .extracting(ServiceBusReceivedMessage::getSequenceNumber)
        .containsExactly(2L, 3L);
    assertThat(receive(receiver, 3)).hasSize(3);
  }

  @Test
  void scheduledMessage_appearsAtItsTime_andCancelledOneNever() {
    ServiceBusSenderClient sender = fx.sender("orders");
    OffsetDateTime now = fx.clock.instant().atOffset(ZoneOffset.UTC);
    long kept =
        sender.scheduleMessage(new ServiceBusMessage("kept").setMessageId("k"), now.plusMinutes(5));
    long cancelled =
        sender.scheduleMessage(
            new ServiceBusMessage("cancelled").setMessageId("c"), now.plusMinutes(5));
    ServiceBusReceiverClient receiver = fx.receiver("orders");
    assertThat(receiver.peekMessage(kept).getState()).isEqualTo(ServiceBusMessageState.SCHEDULED);

    sender.cancelScheduledMessage(cancelled);
    assertThat(receiver.receiveMessages(1, Duration.ofSeconds(1)).stream().toList()).isEmpty();
    fx.advance(Duration.ofMinutes(6));

    List<ServiceBusReceivedMessage> got = receive(receiver, 1);
    assertThat(got).extracting(ServiceBusReceivedMessage::getMessageId).containsExactly("k");
    assertThat(got.get(0).getScheduledEnqueueTime()).isEqualTo(now.plusMinutes(5));
    assertThat(receiver.peekMessages(10, 0L).stream().toList())
        .extracting(ServiceBusReceivedMessage::getMessageId)
        .doesNotContain("c");
  }

  @Test
  void entityNames_areCaseInsensitive() {
    fx.sender("ORDERS").sendMessage(new ServiceBusMessage("upper"));

    assertThat(receive(fx.receiveAndDeleteReceiver("Orders"), 1))
        .extracting(m -> m.getBody().toString())
        .containsExactly("upper");
  }

  @Test
  void queueCreatedAtRuntime_withAPathName_isUsable() {
    fx.emulator.createQueue(QueueSettings.defaults("shop/orders"));

    fx.sender("shop/orders").sendMessage(new ServiceBusMessage("nested"));

    assertThat(receive(fx.receiveAndDeleteReceiver("shop/orders"), 1))
        .extracting(m -> m.getBody().toString())
        .containsExactly("nested");
  }

  @Test
  void propertiesToModify_onAbandon_areVisibleOnRedelivery() {
    fx.sender("orders").sendMessage(new ServiceBusMessage("m"));
    ServiceBusReceiverClient receiver = fx.receiver("orders");

    receiver.abandon(
        receive(receiver, 1).get(0),
        new com.azure.messaging.servicebus.models.AbandonOptions()
            .setPropertiesToModify(Map.of("attempt", 1)));

    assertThat(receive(receiver, 1).get(0).getApplicationProperties()).containsEntry("attempt", 1);
  }

  @Test
  void sendToUnknownQueue_failsWithNotFound() {
    ServiceBusSenderClient sender = fx.sender("does-not-exist");

    assertThatThrownBy(() -> sender.sendMessage(new ServiceBusMessage("x")))
        .isInstanceOf(ServiceBusException.class)
        .hasStackTraceContaining("could not be found");
  }

  @Test
  void receiveFromUnknownQueue_fails() {
    ServiceBusReceiverClient receiver = fx.receiver("does-not-exist");

    assertThatThrownBy(() -> receiver.receiveMessages(1, Duration.ofSeconds(10)).stream().toList())
        .isInstanceOf(RuntimeException.class)
        .hasMessageContaining("terminated");
  }

  @Test
  void sessionReceiverOnQueueWithoutSessions_isRefused() {
    com.azure.messaging.servicebus.ServiceBusSessionReceiverClient sessions =
        Clients.builder(fx.emulator).sessionReceiver().queueName("orders").buildClient();
    try {
      assertThatThrownBy(() -> sessions.acceptSession("s1"))
          .hasStackTraceContaining("does not require sessions");
    } finally {
      sessions.close();
    }
  }

  @Test
  void oversizeMessage_isRefused() {
    ServiceBusSenderClient sender = fx.sender("orders");

    assertThatThrownBy(() -> sender.sendMessage(new ServiceBusMessage(new byte[300 * 1024])))
        .isInstanceOf(ServiceBusException.class)
        .hasStackTraceContaining("256 kb");
    sender.sendMessage(new ServiceBusMessage(new byte[200 * 1024]));
    assertThat(receive(fx.receiveAndDeleteReceiver("orders"), 1)).hasSize(1);
  }
}
