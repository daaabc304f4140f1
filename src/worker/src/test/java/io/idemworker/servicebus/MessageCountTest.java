package io.idemworker.servicebus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusReceiverClient;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import com.azure.messaging.servicebus.models.ServiceBusReceiveMode;
import io.idemworker.emulator.junit.AzureEmulators;
import io.idemworker.emulator.junit.Emulators;
import io.idemworker.emulator.servicebus.ServiceBusEmulator;
import io.idemworker.testing.EmulatorClients;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The count a benchmark watches from outside: every message until it is settled. */
@AzureEmulators(cosmos = false)
class MessageCountTest {
  static Emulators azure; // injected by @AzureEmulators

  @Test
  void countsAvailableAndLockedMessages_untilTheyAreSettled() {
    String queue = azure.newQueue("q");
    ServiceBusEmulator emulator = azure.serviceBus();
    try (ServiceBusSenderClient sender = EmulatorClients.sender(azure, queue)) {
      sender.sendMessages(
          List.of(
              new ServiceBusMessage("a"), new ServiceBusMessage("b"), new ServiceBusMessage("c")));
    }
    assertThat(emulator.messageCount(queue)).isEqualTo(3);

    try (ServiceBusReceiverClient receiver =
        EmulatorClients.serviceBusClient(azure)
            .receiver()
            .queueName(queue)
            .receiveMode(ServiceBusReceiveMode.PEEK_LOCK)
            .disableAutoComplete()
            .buildClient()) {
      List<ServiceBusReceivedMessage> received = new ArrayList<>();
      for (int attempt = 0; attempt < 10 && received.size() < 2; attempt++) {
        receiver.receiveMessages(2 - received.size(), Duration.ofSeconds(5)).forEach(received::add);
      }
      assertThat(received).hasSize(2);
      assertThat(emulator.messageCount(queue)).as("locked messages still count").isEqualTo(3);

      receiver.complete(received.get(0));
      receiver.deadLetter(received.get(1));
    }

    assertThat(emulator.messageCount(queue)).isEqualTo(1);
    assertThat(emulator.messageCount(queue + "/$deadletterqueue")).isEqualTo(1);
  }

  @Test
  void unknownEntity_isRefusedByName() {
    assertThatThrownBy(() -> azure.serviceBus().messageCount("no-such-queue"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no-such-queue");
  }
}
