package io.idemworker.emulator.servicebus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.azure.messaging.servicebus.ServiceBusFailureReason;
import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusReceiverClient;
import com.azure.messaging.servicebus.ServiceBusSessionReceiverClient;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.amqp.messaging.Accepted;
import org.apache.qpid.proton.amqp.messaging.Rejected;
import org.apache.qpid.proton.amqp.messaging.Source;
import org.apache.qpid.proton.amqp.messaging.Target;
import org.apache.qpid.proton.amqp.transport.ReceiverSettleMode;
import org.apache.qpid.proton.amqp.transport.SenderSettleMode;
import org.apache.qpid.proton.engine.Delivery;
import org.apache.qpid.proton.engine.Receiver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link Faults#refuseSessionLockRenewals}: a session lock renewal refused as for a session lock
 * the service already lost, through the real SDK's session receiver; and a settlement on a session
 * receiver whose lock ended, answered at once with {@code session-lock-lost} (a bare client).
 */
class ServiceBusEmulatorSessionRenewalFaultTest {
  private EmulatorFixture fx;
  private final List<AutoCloseable> opened = new ArrayList<>();

  @BeforeEach
  void start() {
    fx =
        new EmulatorFixture(
            QueueSettings.defaults("ordered")
                .withRequiresSession(true)
                .withLockDuration(Duration.ofSeconds(30)),
            QueueSettings.defaults("plain"));
  }

  @AfterEach
  void stop() throws Exception {
    for (AutoCloseable c : opened) {
      c.close();
    }
    fx.close();
  }

  private ServiceBusReceiverClient accept(String sessionId) {
    ServiceBusSessionReceiverClient sessions =
        Clients.builder(fx.emulator)
            .sessionReceiver()
            .queueName("ordered")
            .disableAutoComplete()
            .maxAutoLockRenewDuration(Duration.ZERO)
            .buildClient();
    opened.add(sessions);
    ServiceBusReceiverClient receiver = sessions.acceptSession(sessionId);
    opened.add(receiver);
    return receiver;
  }

  @Test
  void refusedSessionRenewal_isSessionLockLost_andTheSessionGoesToTheNextReceiverAtOnce() {
    // given a session whose message its holder received, and one session renewal to refuse
    fx.sender("ordered").sendMessage(new ServiceBusMessage("a1").setSessionId("a"));
    ServiceBusReceiverClient holder = accept("a");
    ServiceBusReceivedMessage first = EmulatorFixture.receive(holder, 1).get(0);
    fx.emulator.faults().refuseSessionLockRenewals("ORDERED", 1);

    // when the holder renews the session lock
    assertThatThrownBy(holder::renewSessionLock)
        .satisfies(
            t ->
                assertThat(EmulatorFixture.reason(t))
                    .isEqualTo(ServiceBusFailureReason.SESSION_LOCK_LOST));

    // then the lock is gone without the clock moving: settling the first copy is refused with
    // session-lock-lost, answered rather than timed out (well inside one try-timeout, whether the
    // disposition went on the detached link or through the management node), the session is
    // accepted by another receiver at once, and its message comes back (count 1)
    assertThat(fx.emulator.faults().refusedSessionLockRenewals()).isEqualTo(1);
    long settling = System.nanoTime();
    assertThatThrownBy(() -> holder.complete(first))
        .satisfies(
            t ->
                assertThat(EmulatorFixture.reason(t))
                    .as("%s", t)
                    .isEqualTo(ServiceBusFailureReason.SESSION_LOCK_LOST));
    assertThat(Duration.ofNanos(System.nanoTime() - settling))
        .isLessThan(Clients.retry().getTryTimeout());
    ServiceBusReceiverClient next = accept("a");
    ServiceBusReceivedMessage again = EmulatorFixture.receive(next, 1).get(0);
    assertThat(again.getBody().toString()).isEqualTo("a1");
    assertThat(again.getDeliveryCount()).isEqualTo(1);

    // and the next renewal, by the new holder, is granted
    OffsetDateTime renewed = next.renewSessionLock();
    assertThat(renewed.toInstant()).isAfter(fx.clock.instant());
    next.complete(again);
    assertThat(fx.emulator.faults().refusedSessionLockRenewals()).isEqualTo(1);
  }

  @Test
  void settlementAfterTheSessionLockEnded_onTheDetachedLink_isAnsweredSessionLockLost()
      throws Exception {
    // given a bare client's session receiver holding session "a" and its message
    fx.sender("ordered").sendMessage(new ServiceBusMessage("a1").setSessionId("a"));
    try (RawAmqpClient client = new RawAmqpClient(fx.emulator.port())) {
      Receiver r = client.session.receiver("raw-session-a");
      Source source = new Source();
      source.setAddress("ordered");
      source.setFilter(Map.of(Symbol.valueOf("com.microsoft:session-filter"), "a"));
      r.setSource(source);
      Target target = new Target();
      target.setAddress("raw-client");
      r.setTarget(target);
      r.setSenderSettleMode(SenderSettleMode.UNSETTLED);
      r.setReceiverSettleMode(ReceiverSettleMode.SECOND);
      r.open();
      r.flow(1);
      client.pumpUntil(
          () -> r.current() != null && !r.current().isPartial(), Duration.ofSeconds(15));
      Delivery d = r.current();

      // when the session's lock ends (its receiver is detached) and the client, which may not
      // have read the detach yet, completes the message on that link
      assertThat(fx.emulator.faults().loseLocks("ordered")).as("session and message").isEqualTo(2);
      d.disposition(Accepted.getInstance());

      // then the broker answers the disposition itself, with session-lock-lost
      client.pumpUntil(() -> d.getRemoteState() != null, Duration.ofSeconds(15));
      assertThat(d.getRemoteState()).isInstanceOf(Rejected.class);
      assertThat(((Rejected) d.getRemoteState()).getError().getCondition().toString())
          .isEqualTo("com.microsoft:session-lock-lost");
    }
    // and the message is back for the session's next holder
    ServiceBusReceivedMessage again = EmulatorFixture.receive(accept("a"), 1).get(0);
    assertThat(again.getDeliveryCount()).isEqualTo(1);
  }

  @Test
  void sessionRenewalFault_leavesMessageLockRenewalsAlone() {
    fx.emulator.faults().refuseSessionLockRenewals("plain", 1);
    fx.sender("plain").sendMessage(new ServiceBusMessage("p"));
    ServiceBusReceiverClient receiver = fx.receiver("plain");
    ServiceBusReceivedMessage m = EmulatorFixture.receive(receiver, 1).get(0);

    assertThat(receiver.renewMessageLock(m)).isNotNull();
    receiver.complete(m);
    assertThat(fx.emulator.faults().refusedSessionLockRenewals()).isZero();
  }

  @Test
  void refuseSessionLockRenewals_namesAnUnknownEntity_andClearForgetsPendingRefusals() {
    assertThatThrownBy(() -> fx.emulator.faults().refuseSessionLockRenewals("nope", 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("nope");
    assertThatThrownBy(() -> fx.emulator.faults().refuseSessionLockRenewals("ordered", 0))
        .isInstanceOf(IllegalArgumentException.class);

    fx.emulator.faults().refuseSessionLockRenewals("ordered", 1);
    fx.emulator.faults().clear();
    ServiceBusReceiverClient holder = accept("b");

    assertThat(holder.renewSessionLock()).isNotNull();
    assertThat(fx.emulator.faults().refusedSessionLockRenewals()).isZero();
  }
}
