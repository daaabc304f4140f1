package io.idemworker.emulator.servicebus;

import static io.idemworker.emulator.servicebus.EmulatorFixture.receive;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusReceiverClient;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import com.azure.messaging.servicebus.ServiceBusTransactionContext;
import com.azure.messaging.servicebus.models.AbandonOptions;
import com.azure.messaging.servicebus.models.CompleteOptions;
import com.azure.messaging.servicebus.models.DeadLetterOptions;
import com.azure.messaging.servicebus.models.DeferOptions;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Transactions through the real SDK: a coordinator link declares and discharges them; sends,
 * settlements on a receive link and settlements by lock token through the management node join
 * them; commit applies all their work, rollback none of it.
 */
class ServiceBusEmulatorTransactionTest {
  private EmulatorFixture fx;
  private final List<AutoCloseable> clients = new ArrayList<>();

  @BeforeEach
  void start() {
    fx = new EmulatorFixture(QueueSettings.defaults("orders"), QueueSettings.defaults("shipments"));
  }

  @AfterEach
  void stop() throws Exception {
    for (AutoCloseable c : clients) {
      c.close();
    }
    fx.close();
  }

  /** Clients of one connection, as the SDK needs for work in one transaction. */
  private final class Connection {
    private final ServiceBusClientBuilder builder;

    Connection(boolean crossEntity) {
      ServiceBusClientBuilder b = Clients.builder(fx.emulator);
      builder = crossEntity ? b.enableCrossEntityTransactions() : b;
    }

    ServiceBusSenderClient sender(String queue) {
      ServiceBusSenderClient c = builder.sender().queueName(queue).buildClient();
      clients.add(c);
      return c;
    }

    ServiceBusReceiverClient receiver(String queue) {
      ServiceBusReceiverClient c =
          builder
              .receiver()
              .queueName(queue)
              .disableAutoComplete()
              .maxAutoLockRenewDuration(Duration.ZERO)
              .buildClient();
      clients.add(c);
      return c;
    }
  }

  private static List<String> peekIds(ServiceBusReceiverClient r) {
    return r.peekMessages(50, 0).stream()
        .map(ServiceBusReceivedMessage::getMessageId)
        .collect(Collectors.toList());
  }

  @Test
  void sendInATransaction_reachesTheQueueOnlyAtCommit() {
    Connection c = new Connection(false);
    ServiceBusSenderClient sender = c.sender("orders");
    ServiceBusReceiverClient receiver = c.receiver("orders");
    ServiceBusTransactionContext tx = sender.createTransaction();

    sender.sendMessage(new ServiceBusMessage("a").setMessageId("a"), tx);
    sender.sendMessages(
        List.of(
            new ServiceBusMessage("b").setMessageId("b"),
            new ServiceBusMessage("c").setMessageId("c")),
        tx);

    assertThat(peekIds(receiver)).as("before commit").isEmpty();
    sender.commitTransaction(tx);
    assertThat(receive(receiver, 3))
        .extracting(ServiceBusReceivedMessage::getMessageId)
        .containsExactly("a", "b", "c");
  }

  @Test
  void rollback_dropsTheSendAndLeavesTheSettledMessageLockedForAnotherTry() {
    Connection c = new Connection(false);
    ServiceBusSenderClient sender = c.sender("orders");
    ServiceBusReceiverClient receiver = c.receiver("orders");
    sender.sendMessage(new ServiceBusMessage("m1").setMessageId("m1"));
    ServiceBusReceivedMessage m1 = receive(receiver, 1).get(0);
    ServiceBusTransactionContext tx = receiver.createTransaction();

    sender.sendMessage(new ServiceBusMessage("m2").setMessageId("m2"), tx);
    receiver.complete(m1, new CompleteOptions().setTransactionContext(tx));
    receiver.rollbackTransaction(tx);

    assertThat(peekIds(receiver)).as("after rollback").containsExactly("m1");
    // Still locked by this receiver (the SDK refuses to settle the same message object twice).
    assertThat(receiver.renewMessageLock(m1)).isAfter(m1.getLockedUntil().minusSeconds(1));
    fx.advance(Duration.ofMinutes(2));
    ServiceBusReceivedMessage back = receive(receiver, 1).get(0);
    assertThat(back.getMessageId()).isEqualTo("m1");
    assertThat(back.getDeliveryCount()).as("its lock ran out; never completed").isEqualTo(1);
  }

  @Test
  void completeOnOneQueueAndSendToAnother_inOneTransaction_commitAppliesBoth() {
    Connection c = new Connection(true);
    ServiceBusSenderClient ordersIn = c.sender("orders");
    ServiceBusReceiverClient orders = c.receiver("orders");
    ServiceBusSenderClient shipments = c.sender("shipments");
    ServiceBusReceiverClient shipmentsOut = fx.receiver("shipments");
    ordersIn.sendMessage(new ServiceBusMessage("order").setMessageId("o-1"));
    ServiceBusReceivedMessage order = receive(orders, 1).get(0);
    ServiceBusTransactionContext tx = shipments.createTransaction();

    orders.complete(order, new CompleteOptions().setTransactionContext(tx));
    shipments.sendMessage(new ServiceBusMessage("ship").setMessageId("s-1"), tx);

    assertThat(peekIds(orders)).as("order before commit").containsExactly("o-1");
    assertThat(peekIds(shipmentsOut)).as("shipment before commit").isEmpty();
    shipments.commitTransaction(tx);
    assertThat(peekIds(orders)).as("order after commit").isEmpty();
    assertThat(receive(shipmentsOut, 1))
        .extracting(ServiceBusReceivedMessage::getMessageId)
        .containsExactly("s-1");
  }

  @Test
  void deadLetterAbandonAndDefer_inATransaction_takeEffectAtCommit() {
    Connection c = new Connection(false);
    ServiceBusSenderClient sender = c.sender("orders");
    ServiceBusReceiverClient receiver = c.receiver("orders");
    for (String id : List.of("dead", "again", "later")) {
      sender.sendMessage(new ServiceBusMessage(id).setMessageId(id));
    }
    Map<String, ServiceBusReceivedMessage> got =
        receive(receiver, 3).stream()
            .collect(Collectors.toMap(ServiceBusReceivedMessage::getMessageId, m -> m));
    ServiceBusTransactionContext tx = receiver.createTransaction();

    receiver.deadLetter(
        got.get("dead"),
        new DeadLetterOptions().setDeadLetterReason("Bad").setTransactionContext(tx));
    receiver.abandon(got.get("again"), new AbandonOptions().setTransactionContext(tx));
    receiver.defer(got.get("later"), new DeferOptions().setTransactionContext(tx));

    ServiceBusReceiverClient deadLetters = fx.deadLetterReceiver("orders");
    assertThat(peekIds(deadLetters)).as("dead letters before commit").isEmpty();
    receiver.commitTransaction(tx);

    ServiceBusReceivedMessage dead = receive(deadLetters, 1).get(0);
    assertThat(dead.getMessageId()).isEqualTo("dead");
    assertThat(dead.getDeadLetterReason()).isEqualTo("Bad");
    ServiceBusReceivedMessage again = receive(receiver, 1).get(0);
    assertThat(again.getMessageId()).isEqualTo("again");
    assertThat(again.getDeliveryCount()).isEqualTo(1);
    assertThat(receiver.receiveDeferredMessage(got.get("later").getSequenceNumber()).getMessageId())
        .isEqualTo("later");
  }

  @Test
  void aLockLostBeforeCommit_failsTheCommitAndAppliesNothing() {
    Connection c = new Connection(false);
    ServiceBusSenderClient sender = c.sender("orders");
    ServiceBusReceiverClient receiver = c.receiver("orders");
    sender.sendMessage(new ServiceBusMessage("m1").setMessageId("m1"));
    ServiceBusReceivedMessage m1 = receive(receiver, 1).get(0);
    ServiceBusTransactionContext tx = sender.createTransaction();
    sender.sendMessage(new ServiceBusMessage("m2").setMessageId("m2"), tx);
    receiver.complete(m1, new CompleteOptions().setTransactionContext(tx));

    assertThat(fx.emulator.faults().loseLocks("orders")).isEqualTo(1);

    assertThatThrownBy(() -> sender.commitTransaction(tx)).isInstanceOf(RuntimeException.class);
    ServiceBusReceivedMessage back = receive(receiver, 1).get(0);
    assertThat(back.getMessageId()).as("m1 not completed; m2 not sent").isEqualTo("m1");
    receiver.complete(back);
    assertThat(peekIds(receiver)).isEmpty();
  }

  @Test
  void settlementByLockToken_throughTheManagementNode_joinsTheTransaction() {
    fx.sender("orders").sendMessage(new ServiceBusMessage("m").setMessageId("m"));
    ServiceBusReceiverClient first = fx.receiver("orders");
    ServiceBusReceivedMessage m = receive(first, 1).get(0);
    first.close();
    // A receiver that never receives settles by lock token through the management node.
    ServiceBusReceiverClient settler = new Connection(false).receiver("orders");
    ServiceBusTransactionContext tx = settler.createTransaction();

    settler.complete(m, new CompleteOptions().setTransactionContext(tx));

    assertThat(peekIds(settler)).as("before commit").containsExactly("m");
    settler.commitTransaction(tx);
    assertThat(peekIds(settler)).as("after commit").isEmpty();
  }

  @Test
  void scheduleInATransaction_isCancelledByRollback_andStandsAfterCommit() {
    Connection c = new Connection(false);
    ServiceBusSenderClient sender = c.sender("orders");
    ServiceBusReceiverClient receiver = c.receiver("orders");
    OffsetDateTime inAMinute = OffsetDateTime.now(fx.clock).plusMinutes(1);
    ServiceBusTransactionContext rolledBack = sender.createTransaction();
    sender.scheduleMessage(new ServiceBusMessage("x").setMessageId("x"), inAMinute, rolledBack);
    sender.rollbackTransaction(rolledBack);
    ServiceBusTransactionContext committed = sender.createTransaction();
    sender.scheduleMessage(new ServiceBusMessage("y").setMessageId("y"), inAMinute, committed);
    sender.commitTransaction(committed);

    fx.advance(Duration.ofMinutes(2));

    assertThat(receive(receiver, 1))
        .extracting(ServiceBusReceivedMessage::getMessageId)
        .containsExactly("y");
    assertThat(peekIds(receiver)).containsExactly("y");
  }

  @Test
  void closingTheConnection_rollsBackItsOpenTransaction() {
    fx.sender("orders").sendMessage(new ServiceBusMessage("m").setMessageId("m"));
    Connection c = new Connection(false);
    ServiceBusReceiverClient receiver = c.receiver("orders");
    ServiceBusReceivedMessage m = receive(receiver, 1).get(0);
    ServiceBusTransactionContext tx = receiver.createTransaction();
    receiver.complete(m, new CompleteOptions().setTransactionContext(tx));

    receiver.close();
    fx.advance(Duration.ofMinutes(2));

    ServiceBusReceivedMessage back = receive(fx.receiver("orders"), 1).get(0);
    assertThat(back.getMessageId()).isEqualTo("m");
    assertThat(back.getDeliveryCount()).as("its lock ran out; never completed").isEqualTo(1);
  }
}
