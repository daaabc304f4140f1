package io.idemworker.emulator.servicebus;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusReceiverClient;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class SmokeProbeTest {
  @Test
  void sendAndReceive() {
    try (ServiceBusEmulator emulator =
        ServiceBusEmulator.builder().queue(QueueSettings.defaults("orders")).start()) {
      try (ServiceBusSenderClient sender =
              Clients.builder(emulator).sender().queueName("orders").buildClient();
          ServiceBusReceiverClient receiver =
              Clients.builder(emulator).receiver().queueName("orders").buildClient()) {
        sender.sendMessage(new ServiceBusMessage("hello").setMessageId("m1"));
        List<ServiceBusReceivedMessage> got =
            receiver.receiveMessages(1, Duration.ofSeconds(10)).stream().toList();
        assertThat(got).hasSize(1);
        System.out.println(
            "GOT "
                + got.get(0).getBody()
                + " seq "
                + got.get(0).getSequenceNumber()
                + " lock "
                + got.get(0).getLockToken()
                + " until "
                + got.get(0).getLockedUntil());
        receiver.complete(got.get(0));
      }
    }
  }
}
