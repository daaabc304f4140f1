package io.idemworker.emulator.servicebus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.azure.messaging.servicebus.ServiceBusException;
import com.azure.messaging.servicebus.ServiceBusFailureReason;
import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusReceiverClient;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Lock expiry, lock renewal, duplicate window and time-to-live, driven by an injected clock. */
class ServiceBusEmulatorTimeTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private EmulatorFixture fx;

  @AfterEach
  void stop() {
    if (fx != null) {
      fx.close();
    }
  }

  private static List<ServiceBusReceivedMessage> receive(ServiceBusReceiverClient r, int n) {
    List<ServiceBusReceivedMessage> out = new ArrayList<>();
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (out.size() < n && System.nanoTime() < deadline) {
      r.receiveMessages(n - out.size(), Duration.ofSeconds(5)).forEach(out::add);
    }
    return out;
  }

  private static ServiceBusFailureReason reason(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof ServiceBusException e) {
        return e.getReason();
      }
    }
    return null;
  }

  @Test
  void expiredLock_returnsMessageWithDeliveryCountOne_andLateCompleteIsLockLost() {
    fx = new EmulatorFixture(QueueSettings.defaults("orders"));
    fx.sender("orders").sendMessage(new ServiceBusMessage("slow").setMessageId("s"));
    ServiceBusReceiverClient receiver = fx.receiver("orders");
    ServiceBusReceivedMessage first = receive(receiver, 1).get(0);
    assertThat(first.getDeliveryCount()).isZero();

    fx.advance(Duration.ofSeconds(61));

    ServiceBusReceivedMessage again = receive(receiver, 1).get(0);
    assertThat(again.getMessageId()).isEqualTo("s");
    assertThat(again.getDeliveryCount()).isEqualTo(1);
    assertThatThrownBy(() -> receiver.complete(first))
        .satisfies(t -> assertThat(reason(t)).isEqualTo(ServiceBusFailureReason.MESSAGE_LOCK_LOST));
    receiver.complete(again);
  }

  @Test
  void expiredLock_isDetectedAtSettlementEvenBeforeHousekeeping() {
    fx = new EmulatorFixture(QueueSettings.defaults("orders"));
    fx.sender("orders").sendMessage(new ServiceBusMessage("m"));
    ServiceBusReceiverClient receiver = fx.receiver("orders");
    ServiceBusReceivedMessage m = receive(receiver, 1).get(0);

    fx.clock.advance(Duration.ofMinutes(2));

    assertThatThrownBy(() -> receiver.complete(m))
        .satisfies(t -> assertThat(reason(t)).isEqualTo(ServiceBusFailureReason.MESSAGE_LOCK_LOST));
  }

  @Test
  void forcedLockLoss_makesSettlementFailWithLockLost() {
    fx = new EmulatorFixture(QueueSettings.defaults("orders"));
    fx.sender("orders").sendMessage(new ServiceBusMessage("m"));
    ServiceBusReceiverClient receiver = fx.receiver("orders");
    ServiceBusReceivedMessage m = receive(receiver, 1).get(0);

    assertThat(fx.emulator.faults().loseLocks("ORDERS")).isEqualTo(1);

    assertThatThrownBy(() -> receiver.complete(m))
        .satisfies(t -> assertThat(reason(t)).isEqualTo(ServiceBusFailureReason.MESSAGE_LOCK_LOST));
    assertThat(receive(receiver, 1).get(0).getDeliveryCount()).isEqualTo(1);
  }

  @Test
  void lockExpiryPastMaxDeliveryCount_deadLettersTheMessage() {
    fx = new EmulatorFixture(QueueSettings.defaults("orders").withMaxDeliveryCount(1));
    fx.sender("orders").sendMessage(new ServiceBusMessage("m").setMessageId("once"));
    receive(fx.receiver("orders"), 1);

    fx.advance(Duration.ofMinutes(2));

    ServiceBusReceivedMessage dead = receive(fx.deadLetterReceiver("orders"), 1).get(0);
    assertThat(dead.getMessageId()).isEqualTo("once");
    assertThat(dead.getDeadLetterReason()).isEqualTo("MaxDeliveryCountExceeded");
  }

  @Test
  void renewedLock_outlivesTheOriginalLockDuration() {
    fx = new EmulatorFixture(QueueSettings.defaults("orders"));
    fx.sender("orders").sendMessage(new ServiceBusMessage("m"));
    ServiceBusReceiverClient receiver = fx.receiver("orders");
    ServiceBusReceivedMessage m = receive(receiver, 1).get(0);
    OffsetDateTime before = m.getLockedUntil();

    fx.advance(Duration.ofSeconds(40));
    OffsetDateTime renewed = receiver.renewMessageLock(m);
    fx.advance(Duration.ofSeconds(40));

    assertThat(renewed).isEqualTo(before.plusSeconds(40));
    receiver.complete(m);
    assertThat(receiver.peekMessages(10)).isEmpty();
  }

  @Test
  void renewingALostLock_failsWithLockLost() {
    fx = new EmulatorFixture(QueueSettings.defaults("orders"));
    fx.sender("orders").sendMessage(new ServiceBusMessage("m"));
    ServiceBusReceiverClient receiver = fx.receiver("orders");
    ServiceBusReceivedMessage m = receive(receiver, 1).get(0);

    fx.advance(Duration.ofMinutes(2));

    assertThatThrownBy(() -> receiver.renewMessageLock(m))
        .satisfies(t -> assertThat(reason(t)).isEqualTo(ServiceBusFailureReason.MESSAGE_LOCK_LOST));
  }

  @Test
  void duplicateMessageId_isDroppedInsideTheWindow_andAcceptedAfterIt() {
    fx =
        new EmulatorFixture(
            QueueSettings.defaults("orders")
                .withRequiresDuplicateDetection(true)
                .withDuplicateDetectionHistoryTimeWindow(Duration.ofSeconds(20)));
    ServiceBusSenderClient sender = fx.sender("orders");
    ServiceBusReceiverClient receiver = fx.receiver("orders");

    sender.sendMessage(new ServiceBusMessage("first").setMessageId("dup"));
    sender.sendMessage(new ServiceBusMessage("second").setMessageId("dup"));
    fx.advance(Duration.ofSeconds(10));
    sender.sendMessage(new ServiceBusMessage("third").setMessageId("dup"));
    assertThat(receiver.peekMessages(10).stream().toList())
        .extracting(m -> m.getBody().toString())
        .containsExactly("first");

    fx.advance(Duration.ofSeconds(21));
    sender.sendMessage(new ServiceBusMessage("after window").setMessageId("dup"));

    assertThat(receiver.peekMessages(10, 0L).stream().toList())
        .extracting(m -> m.getBody().toString())
        .containsExactly("first", "after window");
  }

  @Test
  void withoutDuplicateDetection_repeatedIdsAreKept() {
    fx = new EmulatorFixture(QueueSettings.defaults("orders"));
    ServiceBusSenderClient sender = fx.sender("orders");

    sender.sendMessage(new ServiceBusMessage("a").setMessageId("same"));
    sender.sendMessage(new ServiceBusMessage("b").setMessageId("same"));

    assertThat(fx.receiver("orders").peekMessages(10)).hasSize(2);
  }

  @Test
  void expiredMessage_isRemoved() {
    fx =
        new EmulatorFixture(
            QueueSettings.defaults("orders").withDefaultMessageTimeToLive(Duration.ofMinutes(1)));
    ServiceBusSenderClient sender = fx.sender("orders");
    sender.sendMessage(new ServiceBusMessage("queue ttl"));
    sender.sendMessage(new ServiceBusMessage("own ttl").setTimeToLive(Duration.ofSeconds(10)));
    ServiceBusReceiverClient receiver = fx.receiver("orders");

    fx.advance(Duration.ofSeconds(11));
    assertThat(receiver.peekMessages(10).stream().toList())
        .extracting(m -> m.getBody().toString())
        .containsExactly("queue ttl");
    fx.advance(Duration.ofMinutes(1));

    assertThat(receiver.peekMessages(10, 0L)).isEmpty();
    assertThat(fx.deadLetterReceiver("orders").peekMessages(10)).isEmpty();
  }

  @Test
  void expiredMessage_isDeadLetteredWhenTheQueueSaysSo() {
    fx =
        new EmulatorFixture(
            QueueSettings.defaults("orders")
                .withDefaultMessageTimeToLive(Duration.ofMinutes(1))
                .withDeadLetteringOnMessageExpiration(true));
    fx.sender("orders").sendMessage(new ServiceBusMessage("stale").setMessageId("t"));

    fx.advance(Duration.ofMinutes(2));

    ServiceBusReceivedMessage dead = receive(fx.deadLetterReceiver("orders"), 1).get(0);
    assertThat(dead.getMessageId()).isEqualTo("t");
    assertThat(dead.getDeadLetterReason()).isEqualTo("TTLExpiredException");
    assertThat(fx.receiver("orders").peekMessages(10)).isEmpty();
  }

  @Test
  void scheduledMessage_timeToLiveRunsFromItsEnqueueTime() {
    fx =
        new EmulatorFixture(
            QueueSettings.defaults("orders").withDefaultMessageTimeToLive(Duration.ofMinutes(1)));
    fx.sender("orders")
        .scheduleMessage(
            new ServiceBusMessage("later").setMessageId("later"),
            fx.clock.instant().plus(Duration.ofMinutes(2)).atOffset(java.time.ZoneOffset.UTC));
    ServiceBusReceiverClient receiver = fx.receiver("orders");

    fx.advance(Duration.ofSeconds(150));
    assertThat(receive(receiver, 1))
        .extracting(ServiceBusReceivedMessage::getMessageId)
        .containsExactly("later");
  }
}
