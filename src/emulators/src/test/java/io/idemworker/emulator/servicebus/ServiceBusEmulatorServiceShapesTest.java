package io.idemworker.emulator.servicebus;

import static io.idemworker.emulator.servicebus.EmulatorFixture.receive;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.azure.core.amqp.models.AmqpAnnotatedMessage;
import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusReceiverClient;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import com.azure.messaging.servicebus.models.ServiceBusMessageState;
import com.azure.messaging.servicebus.models.SubQueue;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Behaviour the service has and the emulator must match, through the real SDK: footers as the
 * service delivers them, the transfer dead-letter subqueue, scheduling on a topic, and the
 * duplicate-detection window's range.
 */
class ServiceBusEmulatorServiceShapesTest {
  private static final String TOPIC = "order-events";
  private EmulatorFixture fx;

  @AfterEach
  void stop() {
    if (fx != null) {
      fx.close();
    }
  }

  private void start() {
    fx =
        new EmulatorFixture(
            List.of(
                TopicSettings.defaults(TOPIC)
                    .withSubscription(SubscriptionSettings.defaults("loyalty"))
                    .withSubscription(SubscriptionSettings.defaults("stats"))),
            QueueSettings.defaults("orders"));
  }

  @Test
  void messageWithFooter_isReceivedWithItAndDoesNotStopTheReceiver() {
    start();
    ServiceBusMessage withFooter = new ServiceBusMessage("f").setMessageId("footer-1");
    AmqpAnnotatedMessage raw = withFooter.getRawAmqpMessage();
    raw.getFooter().put("checksum", "abc");
    fx.sender("orders").sendMessage(withFooter);
    fx.sender("orders").sendMessage(new ServiceBusMessage("after").setMessageId("after-1"));

    List<ServiceBusReceivedMessage> got = receive(fx.receiver("orders"), 2);

    assertThat(got)
        .extracting(ServiceBusReceivedMessage::getMessageId)
        .containsExactly("footer-1", "after-1");
    AmqpAnnotatedMessage received = got.get(0).getRawAmqpMessage();
    assertThat(received.getFooter()).containsEntry("checksum", "abc");
  }

  @Test
  void transferDeadLetterSubqueue_isServedAndEmpty() {
    start();
    fx.sender("orders").sendMessage(new ServiceBusMessage("x").setMessageId("x"));
    ServiceBusReceiverClient transferDlq =
        fx.subQueueReceiver("orders", SubQueue.TRANSFER_DEAD_LETTER_QUEUE);

    assertThat(transferDlq.peekMessages(10)).isEmpty();
    assertThat(transferDlq.receiveMessages(1, Duration.ofMillis(500))).isEmpty();
    assertThat(fx.receiver("orders").peekMessages(10)).hasSize(1);
  }

  @Test
  void scheduleOnATopic_schedulesACopyInEverySubscriptionUntilItsTime() {
    start();
    ServiceBusSenderClient sender = fx.topicSender(TOPIC);
    OffsetDateTime at = fx.clock.instant().plusSeconds(60).atOffset(ZoneOffset.UTC);

    long sequence = sender.scheduleMessage(new ServiceBusMessage("later").setMessageId("s-1"), at);

    for (String sub : List.of("loyalty", "stats")) {
      List<ServiceBusReceivedMessage> peeked =
          fx.subscriptionReceiver(TOPIC, sub).peekMessages(10).stream().toList();
      assertThat(peeked)
          .singleElement()
          .satisfies(
              m -> {
                assertThat(m.getSequenceNumber()).isEqualTo(sequence);
                assertThat(m.getState()).isEqualTo(ServiceBusMessageState.SCHEDULED);
              });
    }
    fx.advance(Duration.ofSeconds(61));
    assertThat(receive(fx.subscriptionReceiver(TOPIC, "loyalty"), 1))
        .extracting(ServiceBusReceivedMessage::getMessageId)
        .containsExactly("s-1");
  }

  @Test
  void cancelOnATopic_removesTheScheduledCopyFromEverySubscription() {
    start();
    ServiceBusSenderClient sender = fx.topicSender(TOPIC);
    OffsetDateTime at = fx.clock.instant().plusSeconds(60).atOffset(ZoneOffset.UTC);
    long sequence = sender.scheduleMessage(new ServiceBusMessage("later").setMessageId("c-1"), at);

    sender.cancelScheduledMessage(sequence);

    fx.advance(Duration.ofSeconds(61));
    assertThat(fx.subscriptionReceiver(TOPIC, "loyalty").peekMessages(10)).isEmpty();
    assertThat(fx.subscriptionReceiver(TOPIC, "stats").peekMessages(10)).isEmpty();
  }

  @Test
  void duplicateWindowOutsideOneSecondToSevenDays_isRefusedByTheSettingsNamingTheField() {
    assertThatThrownBy(
            () ->
                QueueSettings.defaults("q")
                    .withDuplicateDetectionHistoryTimeWindow(Duration.ofMillis(500)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("duplicateDetectionHistoryTimeWindow")
        .hasMessageContaining("PT20S");
    assertThatThrownBy(
            () ->
                TopicSettings.defaults("t")
                    .withDuplicateDetectionHistoryTimeWindow(Duration.ofDays(8)))
        .hasMessageContaining("duplicateDetectionHistoryTimeWindow");
  }

  @Test
  void duplicateWindowUnderTheServicesTwentySeconds_isRefusedByDefault_namingTheRelaxation() {
    QueueSettings queue =
        QueueSettings.defaults("orders")
            .withDuplicateDetectionHistoryTimeWindow(Duration.ofSeconds(3));
    TopicSettings topic =
        TopicSettings.defaults(TOPIC)
            .withDuplicateDetectionHistoryTimeWindow(Duration.ofSeconds(19));

    assertThatThrownBy(() -> ServiceBusEmulator.builder().queue(queue).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("queue 'orders'")
        .hasMessageContaining("duplicateDetectionHistoryTimeWindow PT3S")
        .hasMessageContaining("PT20S")
        .hasMessageContaining("shortestDuplicateWindow");
    assertThatThrownBy(() -> ServiceBusEmulator.builder().topic(topic).build())
        .hasMessageContaining("topic 'order-events'")
        .hasMessageContaining("PT19S");
    try (ServiceBusEmulator running = ServiceBusEmulator.builder().start()) {
      assertThatThrownBy(() -> running.createQueue(queue)).hasMessageContaining("PT3S");
      assertThatThrownBy(() -> running.createTopic(topic)).hasMessageContaining("PT19S");
      running.createQueue(queue.withDuplicateDetectionHistoryTimeWindow(Duration.ofSeconds(20)));
    }
  }

  @Test
  void shortestDuplicateWindow_relaxesTheMinimumForTests_andAShortWindowStillDedupes() {
    try (ServiceBusEmulator relaxed =
        ServiceBusEmulator.builder()
            .shortestDuplicateWindow(Duration.ofSeconds(1))
            .queue(
                QueueSettings.defaults("orders")
                    .withRequiresDuplicateDetection(true)
                    .withDuplicateDetectionHistoryTimeWindow(Duration.ofSeconds(3)))
            .start()) {
      relaxed.createTopic(
          TopicSettings.defaults(TOPIC)
              .withDuplicateDetectionHistoryTimeWindow(Duration.ofSeconds(1)));
      try (ServiceBusSenderClient sender =
          Clients.builder(relaxed).sender().queueName("orders").buildClient()) {
        sender.sendMessage(new ServiceBusMessage("a").setMessageId("same"));
        sender.sendMessage(new ServiceBusMessage("b").setMessageId("same"));
      }
      assertThat(relaxed.messageCount("orders")).isEqualTo(1);
    }
    assertThatThrownBy(
            () -> ServiceBusEmulator.builder().shortestDuplicateWindow(Duration.ofMillis(999)))
        .hasMessageContaining("shortestDuplicateWindow must be between PT1S and PT20S");
    assertThatThrownBy(
            () -> ServiceBusEmulator.builder().shortestDuplicateWindow(Duration.ofSeconds(21)))
        .hasMessageContaining("shortestDuplicateWindow");
  }
}
