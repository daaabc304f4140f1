package io.idemworker.emulator.servicebus;

import static io.idemworker.emulator.servicebus.EmulatorFixture.reason;
import static io.idemworker.emulator.servicebus.EmulatorFixture.receive;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.azure.messaging.servicebus.ServiceBusFailureReason;
import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusReceiverClient;
import com.azure.messaging.servicebus.models.DeadLetterOptions;
import com.azure.messaging.servicebus.models.ServiceBusMessageState;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A subscription behaves as a queue of its own: settlement, dead-lettering, locks, time-to-live,
 * the management node and faults, each per subscription, on an injected clock.
 */
class ServiceBusEmulatorSubscriptionTest {
  private static final String TOPIC = "order-events";
  private static final String LOYALTY = "loyalty";
  private static final String STATS = "customer-stats";
  private EmulatorFixture fx;

  @BeforeEach
  void start() {
    fx =
        new EmulatorFixture(
            List.of(
                TopicSettings.defaults(TOPIC)
                    .withSubscription(
                        SubscriptionSettings.defaults(LOYALTY)
                            .withMaxDeliveryCount(2)
                            .withLockDuration(Duration.ofSeconds(30))
                            .withDefaultMessageTimeToLive(Duration.ofMinutes(5))
                            .withDeadLetteringOnMessageExpiration(true))
                    .withSubscription(SubscriptionSettings.defaults(STATS))));
  }

  @AfterEach
  void stop() {
    fx.close();
  }

  private void send(String id) {
    fx.topicSender(TOPIC).sendMessage(new ServiceBusMessage("body of " + id).setMessageId(id));
  }

  @Test
  void abandonPastTheSubscriptionsMaxDeliveryCount_deadLettersOnlyItsOwnCopy() {
    send("p-1");
    ServiceBusReceiverClient loyalty = fx.subscriptionReceiver(TOPIC, LOYALTY);

    for (int i = 0; i < 2; i++) {
      ServiceBusReceivedMessage m = receive(loyalty, 1).get(0);
      assertThat(m.getDeliveryCount()).isEqualTo(i);
      loyalty.abandon(m);
    }

    ServiceBusReceiverClient dlq = fx.subscriptionDeadLetterReceiver(TOPIC, LOYALTY);
    ServiceBusReceivedMessage dead = receive(dlq, 1).get(0);
    assertThat(dead.getMessageId()).isEqualTo("p-1");
    assertThat(dead.getDeadLetterReason()).isEqualTo("MaxDeliveryCountExceeded");
    assertThat(dead.getDeadLetterSource()).isNull();
    dlq.complete(dead);
    assertThat(loyalty.peekMessages(10)).isEmpty();
    ServiceBusReceivedMessage other = receive(fx.subscriptionReceiver(TOPIC, STATS), 1).get(0);
    assertThat(other.getMessageId()).isEqualTo("p-1");
    assertThat(other.getDeliveryCount()).isZero();
  }

  @Test
  void explicitDeadLetter_movesTheCopyToThatSubscriptionsDeadLetterQueueWithReason() {
    send("d-1");
    ServiceBusReceiverClient stats = fx.subscriptionReceiver(TOPIC, STATS);

    stats.deadLetter(
        receive(stats, 1).get(0),
        new DeadLetterOptions()
            .setDeadLetterReason("ValidationFailed")
            .setDeadLetterErrorDescription("customerId is missing"));

    ServiceBusReceivedMessage dead =
        receive(fx.subscriptionDeadLetterReceiver(TOPIC, STATS), 1).get(0);
    assertThat(dead.getMessageId()).isEqualTo("d-1");
    assertThat(dead.getDeadLetterReason()).isEqualTo("ValidationFailed");
    assertThat(dead.getDeadLetterErrorDescription()).isEqualTo("customerId is missing");
    assertThat(fx.subscriptionDeadLetterReceiver(TOPIC, LOYALTY).peekMessages(10)).isEmpty();
    assertThat(fx.subscriptionReceiver(TOPIC, LOYALTY).peekMessages(10)).hasSize(1);
  }

  @Test
  void lostLocks_onASubscription_failSettlementAndRedeliverWithDeliveryCountOne() {
    send("l-1");
    ServiceBusReceiverClient loyalty = fx.subscriptionReceiver(TOPIC, LOYALTY);
    ServiceBusReceiverClient stats = fx.subscriptionReceiver(TOPIC, STATS);
    ServiceBusReceivedMessage held = receive(loyalty, 1).get(0);
    ServiceBusReceivedMessage otherHeld = receive(stats, 1).get(0);

    assertThat(fx.emulator.faults().loseLocks("Order-Events/Subscriptions/Loyalty")).isEqualTo(1);

    assertThatThrownBy(() -> loyalty.complete(held))
        .satisfies(t -> assertThat(reason(t)).isEqualTo(ServiceBusFailureReason.MESSAGE_LOCK_LOST));
    ServiceBusReceivedMessage again = receive(loyalty, 1).get(0);
    assertThat(again.getMessageId()).isEqualTo("l-1");
    assertThat(again.getDeliveryCount()).isEqualTo(1);
    loyalty.complete(again);
    stats.complete(otherHeld);
    assertThatThrownBy(() -> fx.emulator.faults().loseLocks(TOPIC))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void expiredLock_usesTheSubscriptionsLockDuration_andPastMaxDeliveryCountDeadLetters() {
    send("e-1");
    ServiceBusReceiverClient loyalty = fx.subscriptionReceiver(TOPIC, LOYALTY);
    ServiceBusReceivedMessage first = receive(loyalty, 1).get(0);
    assertThat(first.getLockedUntil()).isEqualTo(first.getEnqueuedTime().plusSeconds(30));

    fx.advance(Duration.ofSeconds(31));
    ServiceBusReceivedMessage second = receive(loyalty, 1).get(0);
    fx.advance(Duration.ofSeconds(31));

    assertThat(second.getDeliveryCount()).isEqualTo(1);
    assertThat(loyalty.peekMessages(10)).isEmpty();
    ServiceBusReceivedMessage dead =
        receive(fx.subscriptionDeadLetterReceiver(TOPIC, LOYALTY), 1).get(0);
    assertThat(dead.getDeadLetterReason()).isEqualTo("MaxDeliveryCountExceeded");
    assertThat(fx.subscriptionReceiver(TOPIC, STATS).peekMessages(10))
        .as("the default one-minute lock of the other subscription was never taken")
        .singleElement()
        .satisfies(m -> assertThat(m.getDeliveryCount()).isZero());
  }

  @Test
  void timeToLive_isPerSubscription_andExpiryDeadLettersWhereConfigured() {
    send("t-1");

    fx.advance(Duration.ofMinutes(6));

    assertThat(fx.subscriptionReceiver(TOPIC, LOYALTY).peekMessages(10)).isEmpty();
    ServiceBusReceivedMessage dead =
        receive(fx.subscriptionDeadLetterReceiver(TOPIC, LOYALTY), 1).get(0);
    assertThat(dead.getMessageId()).isEqualTo("t-1");
    assertThat(dead.getDeadLetterReason()).isEqualTo("TTLExpiredException");
    assertThat(fx.subscriptionReceiver(TOPIC, STATS).peekMessages(10))
        .extracting(ServiceBusReceivedMessage::getMessageId)
        .containsExactly("t-1");
  }

  @Test
  void renewPeekDeferAndReceiveDeferred_workThroughTheSubscriptionsManagementNode() {
    send("m-1");
    ServiceBusReceiverClient stats = fx.subscriptionReceiver(TOPIC, STATS);
    ServiceBusReceivedMessage m = receive(stats, 1).get(0);
    OffsetDateTime before = m.getLockedUntil();

    fx.advance(Duration.ofSeconds(40));
    OffsetDateTime renewed = stats.renewMessageLock(m);
    stats.defer(m);

    assertThat(renewed).isEqualTo(before.plusSeconds(40));
    assertThat(stats.peekMessage(m.getSequenceNumber()).getState())
        .isEqualTo(ServiceBusMessageState.DEFERRED);
    ServiceBusReceivedMessage deferred = stats.receiveDeferredMessage(m.getSequenceNumber());
    assertThat(deferred.getMessageId()).isEqualTo("m-1");
    stats.complete(deferred);
    assertThat(stats.peekMessages(10)).isEmpty();
    assertThat(fx.subscriptionReceiver(TOPIC, LOYALTY).peekMessages(10)).hasSize(1);
  }

  @Test
  void scheduledSendToATopic_appearsInEverySubscriptionAtItsTime() {
    fx.topicSender(TOPIC)
        .sendMessage(
            new ServiceBusMessage("later")
                .setMessageId("s-1")
                .setScheduledEnqueueTime(
                    fx.clock.instant().plus(Duration.ofMinutes(1)).atOffset(ZoneOffset.UTC)));
    ServiceBusReceiverClient loyalty = fx.subscriptionReceiver(TOPIC, LOYALTY);
    assertThat(loyalty.peekMessages(10))
        .singleElement()
        .satisfies(m -> assertThat(m.getState()).isEqualTo(ServiceBusMessageState.SCHEDULED));
    assertThat(loyalty.receiveMessages(1, Duration.ofSeconds(1)).stream().toList()).isEmpty();

    fx.advance(Duration.ofSeconds(61));

    assertThat(receive(loyalty, 1))
        .extracting(ServiceBusReceivedMessage::getMessageId)
        .containsExactly("s-1");
    assertThat(receive(fx.subscriptionReceiver(TOPIC, STATS), 1))
        .extracting(ServiceBusReceivedMessage::getMessageId)
        .containsExactly("s-1");
  }

  @Test
  void droppedConnections_keepSubscriptionLocksUntilTheyEnd_andDelayedDispositionsApply() {
    send("f-1");
    ServiceBusReceiverClient stats = fx.subscriptionReceiver(TOPIC, STATS);
    assertThat(receive(stats, 1).get(0).getDeliveryCount()).isZero();

    fx.emulator.faults().dropConnections();
    assertThat(stats.receiveMessages(1, Duration.ofSeconds(1))).isEmpty();
    fx.advance(Duration.ofSeconds(61));
    ServiceBusReceivedMessage again = receive(stats, 1).get(0);
    fx.emulator.faults().delayDispositions(Duration.ofMillis(700));
    long start = System.nanoTime();
    stats.complete(again);
    long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    fx.emulator.faults().clear();

    assertThat(again.getMessageId()).isEqualTo("f-1");
    assertThat(again.getDeliveryCount()).isEqualTo(1);
    assertThat(tookMillis).isGreaterThanOrEqualTo(600);
    assertThat(stats.peekMessages(10)).isEmpty();
  }
}
