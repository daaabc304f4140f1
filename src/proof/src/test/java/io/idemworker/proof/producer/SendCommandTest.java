package io.idemworker.proof.producer;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusReceiverClient;
import io.idemworker.emulator.junit.AzureEmulators;
import io.idemworker.emulator.junit.Emulators;
import io.idemworker.testing.EmulatorClients;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

@AzureEmulators(cosmos = false)
class SendCommandTest {
  static Emulators azure;

  @Test
  void sendsContractConformingOrdersTwiceWhenAsked() {
    String queue = azure.newQueue("send");
    Map<String, String> env =
        Map.of(
            "SERVICEBUS_CONNECTION_STRING",
            azure.serviceBusConnectionString(),
            "SERVICEBUS_QUEUE_NAME",
            queue);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();

    int exit =
        new CommandLine(new SendCommand(env, new PrintStream(bytes, true, StandardCharsets.UTF_8)))
            .execute("--orders", "3", "--twice");

    assertThat(exit).isZero();
    assertThat(bytes.toString(StandardCharsets.UTF_8)).contains("sent 6 OrderPlaced message(s)");
    List<ServiceBusReceivedMessage> received = new ArrayList<>();
    try (ServiceBusReceiverClient receiver =
        EmulatorClients.serviceBusClient(azure).receiver().queueName(queue).buildClient()) {
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (received.size() < 6 && System.nanoTime() < deadline) {
        receiver.receiveMessages(6 - received.size(), Duration.ofSeconds(2)).forEach(received::add);
      }
    }
    assertThat(received).hasSize(6);
    assertThat(received)
        .allSatisfy(
            m -> {
              assertThat(m.getSubject()).isEqualTo("OrderPlaced");
              assertThat(m.getContentType()).isEqualTo("application/json");
              assertThat(m.getBody().toString())
                  .contains("\"orderId\":\"" + m.getMessageId() + "\"");
            });
    assertThat(received.stream().map(ServiceBusReceivedMessage::getMessageId).distinct())
        .hasSize(3);
    // the second copy of each order is the producer's second attempt, under the same MessageId
    assertThat(received)
        .extracting(
            m -> String.valueOf(m.getApplicationProperties().get("idemworker-send-attempt")))
        .containsExactlyInAnyOrder("1", "1", "1", "2", "2", "2");
  }

  @Test
  void sessionsOption_putsEachOrderInItsSession_whichASessionQueueRequires() {
    String queue = azure.newQueue("send", "sessions");
    Map<String, String> env =
        Map.of(
            "SERVICEBUS_CONNECTION_STRING",
            azure.serviceBusConnectionString(),
            "SERVICEBUS_QUEUE_NAME",
            queue);

    int exit =
        new CommandLine(new SendCommand(env, new PrintStream(new ByteArrayOutputStream())))
            .execute("--orders", "2", "--sessions");

    assertThat(exit).isZero();
    try (var sessions =
        EmulatorClients.serviceBusClient(azure).sessionReceiver().queueName(queue).buildClient()) {
      ServiceBusReceiverClient first = sessions.acceptNextSession();
      ServiceBusReceivedMessage message =
          first.receiveMessages(1, Duration.ofSeconds(10)).stream().findFirst().orElseThrow();
      assertThat(message.getSessionId()).isEqualTo(message.getMessageId());
      assertThat(first.getSessionId()).isEqualTo(message.getMessageId());
    }
  }
}
