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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link Faults#refuseSessionLockRenewals}: a session lock renewal refused as for a session lock
 * the service already lost, through the real SDK's session receiver.
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

    // then the lock is gone without the clock moving: settling the first copy is refused, the
    // session is accepted by another receiver at once, and its message comes back (count 1)
    assertThat(fx.emulator.faults().refusedSessionLockRenewals()).isEqualTo(1);
    assertThatThrownBy(() -> holder.complete(first)).isInstanceOf(RuntimeException.class);
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
