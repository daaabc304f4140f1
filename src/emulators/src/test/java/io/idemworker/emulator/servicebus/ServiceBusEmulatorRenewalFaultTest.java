package io.idemworker.emulator.servicebus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.azure.messaging.servicebus.ServiceBusException;
import com.azure.messaging.servicebus.ServiceBusFailureReason;
import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusReceiverClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link Faults#refuseLockRenewals}: a renewal refused as for a lock the service already lost. */
class ServiceBusEmulatorRenewalFaultTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private EmulatorFixture fx;

  @AfterEach
  void stop() {
    if (fx != null) {
      fx.close();
    }
  }

  private static ServiceBusReceivedMessage receiveOne(ServiceBusReceiverClient r) {
    List<ServiceBusReceivedMessage> out = new ArrayList<>();
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (out.isEmpty() && System.nanoTime() < deadline) {
      r.receiveMessages(1, Duration.ofSeconds(5)).forEach(out::add);
    }
    assertThat(out).as("a message within %s", WAIT).hasSize(1);
    return out.get(0);
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
  void refusedRenewal_isLockLost_andTheMessageComesBackWithItsDeliveryCountUp() {
    // given a message locked by a receiver, and one renewal to refuse
    fx = new EmulatorFixture(QueueSettings.defaults("orders"));
    fx.sender("orders").sendMessage(new ServiceBusMessage("m").setMessageId("m-1"));
    ServiceBusReceiverClient receiver = fx.receiver("orders");
    ServiceBusReceivedMessage first = receiveOne(receiver);
    fx.emulator.faults().refuseLockRenewals("ORDERS", 1);

    // when the receiver renews its lock
    assertThatThrownBy(() -> receiver.renewMessageLock(first))
        .satisfies(t -> assertThat(reason(t)).isEqualTo(ServiceBusFailureReason.MESSAGE_LOCK_LOST));

    // then the lock is gone: the message is back (delivery count 1) and settling the first copy
    // is refused; the next renewal, of the new lock, is granted
    assertThat(fx.emulator.faults().refusedLockRenewals()).isEqualTo(1);
    assertThatThrownBy(() -> receiver.complete(first))
        .satisfies(t -> assertThat(reason(t)).isEqualTo(ServiceBusFailureReason.MESSAGE_LOCK_LOST));
    ServiceBusReceivedMessage again = receiveOne(receiver);
    assertThat(again.getMessageId()).isEqualTo("m-1");
    assertThat(again.getDeliveryCount()).isEqualTo(1);
    assertThat(receiver.renewMessageLock(again)).isAfterOrEqualTo(again.getLockedUntil());
    receiver.complete(again);
  }

  @Test
  void refuseLockRenewals_namesAnUnknownEntity_andClearForgetsPendingRefusals() {
    fx = new EmulatorFixture(QueueSettings.defaults("orders"));

    assertThatThrownBy(() -> fx.emulator.faults().refuseLockRenewals("nope", 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("nope");
    assertThatThrownBy(() -> fx.emulator.faults().refuseLockRenewals("orders", 0))
        .isInstanceOf(IllegalArgumentException.class);

    fx.emulator.faults().refuseLockRenewals("orders", 1);
    fx.emulator.faults().clear();
    fx.sender("orders").sendMessage(new ServiceBusMessage("m"));
    ServiceBusReceiverClient receiver = fx.receiver("orders");
    ServiceBusReceivedMessage m = receiveOne(receiver);

    assertThat(receiver.renewMessageLock(m)).isNotNull();
    assertThat(fx.emulator.faults().refusedLockRenewals()).isZero();
    receiver.complete(m);
  }
}
