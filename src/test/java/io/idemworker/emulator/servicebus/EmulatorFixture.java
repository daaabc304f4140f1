package io.idemworker.emulator.servicebus;

import com.azure.messaging.servicebus.ServiceBusReceiverClient;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import com.azure.messaging.servicebus.models.ServiceBusReceiveMode;
import io.idemworker.testing.MutableClock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;

/** One emulator on a mutable clock plus the SDK clients a test opened; closes them all. */
final class EmulatorFixture implements AutoCloseable {
  final MutableClock clock = new MutableClock();
  final ServiceBusEmulator emulator;
  private final Deque<AutoCloseable> opened = new ArrayDeque<>();

  EmulatorFixture(QueueSettings... queues) {
    ServiceBusEmulator.Builder b = ServiceBusEmulator.builder().clock(clock);
    for (QueueSettings q : queues) {
      b.queue(q);
    }
    emulator = b.start();
  }

  ServiceBusSenderClient sender(String queue) {
    ServiceBusSenderClient c = Clients.builder(emulator).sender().queueName(queue).buildClient();
    opened.push(c);
    return c;
  }

  /** A peek-lock receiver without automatic lock renewal, so that locks expire when told. */
  ServiceBusReceiverClient receiver(String queue) {
    ServiceBusReceiverClient c =
        Clients.builder(emulator)
            .receiver()
            .queueName(queue)
            .disableAutoComplete()
            .maxAutoLockRenewDuration(Duration.ZERO)
            .buildClient();
    opened.push(c);
    return c;
  }

  ServiceBusReceiverClient receiveAndDeleteReceiver(String queue) {
    ServiceBusReceiverClient c =
        Clients.builder(emulator)
            .receiver()
            .queueName(queue)
            .receiveMode(ServiceBusReceiveMode.RECEIVE_AND_DELETE)
            .buildClient();
    opened.push(c);
    return c;
  }

  ServiceBusReceiverClient deadLetterReceiver(String queue) {
    ServiceBusReceiverClient c =
        Clients.builder(emulator)
            .receiver()
            .queueName(queue)
            .subQueue(com.azure.messaging.servicebus.models.SubQueue.DEAD_LETTER_QUEUE)
            .disableAutoComplete()
            .maxAutoLockRenewDuration(Duration.ZERO)
            .buildClient();
    opened.push(c);
    return c;
  }

  /** Moves the emulator's clock and applies the new time at once. */
  void advance(Duration d) {
    clock.advance(d);
    emulator.evaluateExpiries();
  }

  @Override
  public void close() {
    while (!opened.isEmpty()) {
      try {
        opened.pop().close();
      } catch (Exception e) {
        // closing a client whose connection was dropped may fail; the emulator closes anyway
      }
    }
    emulator.close();
  }
}
