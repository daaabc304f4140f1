package io.idemworker.proof.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusReceiverClient;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import com.azure.messaging.servicebus.models.DeadLetterOptions;
import io.idemworker.emulator.servicebus.QueueSettings;
import io.idemworker.emulator.servicebus.ServiceBusEmulator;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The drain's view of a namespace it is given: a peek through the AMQP client, which counts what
 * the service's peek returns (available, locked, deferred and scheduled messages; dead-letters live
 * in their sub-queue), here against the emulator, whose peek returns the same.
 */
class ChaosBrokerTest {

  @Test
  void peekCount_countsAvailableLockedDeferredAndScheduled_notDeadLettered_andStopsPastTheBound()
      throws Exception {
    try (ServiceBusEmulator emulator =
            ServiceBusEmulator.builder().port(0).queue(QueueSettings.defaults("orders")).start();
        ServiceBusSenderClient sender =
            new ServiceBusClientBuilder()
                .connectionString(emulator.connectionString())
                .sender()
                .queueName("orders")
                .buildClient();
        ServiceBusReceiverClient receiver =
            new ServiceBusClientBuilder()
                .connectionString(emulator.connectionString())
                .receiver()
                .queueName("orders")
                .buildClient();
        ChaosBroker broker =
            ChaosBroker.external(
                emulator.connectionString(),
                Duration.ofSeconds(20),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8))) {
      // Given four messages received (locked), one of them deferred and one dead-lettered, one
      // available and one scheduled an hour ahead
      for (int i = 0; i < 4; i++) {
        sender.sendMessage(new ServiceBusMessage("m").setMessageId("m-" + i));
      }
      List<ServiceBusReceivedMessage> locked = new ArrayList<>();
      while (locked.size() < 4) {
        receiver.receiveMessages(4 - locked.size(), Duration.ofSeconds(5)).forEach(locked::add);
      }
      receiver.defer(locked.get(0));
      receiver.deadLetter(locked.get(1), new DeadLetterOptions().setDeadLetterReason("test"));
      sender.sendMessage(new ServiceBusMessage("a").setMessageId("available"));
      sender.scheduleMessage(
          new ServiceBusMessage("s").setMessageId("scheduled"), OffsetDateTime.now().plusHours(1));

      // When the drain counts what the queue holds unsettled, by peeking
      int all = broker.unsettled("orders", 100);
      int bounded = broker.unsettled("orders", 2);

      // Then two still locked + the deferred + the available + the scheduled; not the dead-letter
      assertThat(all).isEqualTo(5);
      assertThat(bounded).isEqualTo(3);
      receiver.complete(locked.get(2));
      receiver.complete(locked.get(3));
      assertThat(broker.unsettled("orders", 100)).isEqualTo(3);
    }
  }

  @Test
  void unsettled_ofAnEntityThatCannotBePeeked_isNotZero_soTheDrainKeepsWaiting() throws Exception {
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    try (ServiceBusEmulator emulator =
            ServiceBusEmulator.builder().port(0).queue(QueueSettings.defaults("orders")).start();
        ChaosBroker broker =
            ChaosBroker.external(
                emulator.connectionString(),
                Duration.ofSeconds(20),
                new PrintStream(log, true, StandardCharsets.UTF_8))) {
      assertThat(broker.unsettled("missing", 0)).isEqualTo(Integer.MAX_VALUE);
      assertThat(log.toString(StandardCharsets.UTF_8)).contains("peeking missing failed");
    }
  }
}
