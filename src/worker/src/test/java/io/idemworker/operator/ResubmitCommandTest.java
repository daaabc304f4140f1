package io.idemworker.operator;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusReceiverClient;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import com.azure.messaging.servicebus.models.DeadLetterOptions;
import io.idemworker.app.OrderMessages;
import io.idemworker.emulator.junit.AzureEmulators;
import io.idemworker.emulator.junit.Emulators;
import io.idemworker.orders.Orders;
import io.idemworker.testing.EmulatorClients;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

@AzureEmulators(cosmos = false)
class ResubmitCommandTest {
  static Emulators azure; // injected by @AzureEmulators

  @Test
  void selectedReasonGoesBackUnchangedAndTheRestStaysDeadLettered() {
    String queue = azure.newQueue("q");
    try (ServiceBusSenderClient sender = EmulatorClients.sender(azure, queue);
        ServiceBusReceiverClient receiver =
            EmulatorClients.serviceBusClient(azure)
                .receiver()
                .queueName(queue)
                .disableAutoComplete()
                .buildClient()) {
      com.azure.messaging.servicebus.ServiceBusMessage traced =
          OrderMessages.orderPlaced("ord-r1", Orders.body("ord-r1", "c"), "corr-r1");
      traced.getApplicationProperties().put("traceparent", "00-abc-def-01");
      sender.sendMessage(traced);
      sender.sendMessage(
          OrderMessages.orderPlaced("ord-r2", Orders.body("ord-r2", "c"), "corr-r2"));
      List<ServiceBusReceivedMessage> first = receive(receiver, 2);
      for (ServiceBusReceivedMessage message : first) {
        String reason =
            message.getMessageId().equals("ord-r1") ? "StoreRejected" : "SchemaViolation";
        receiver.deadLetter(
            message,
            new DeadLetterOptions().setDeadLetterReason(reason).setDeadLetterErrorDescription("d"));
      }
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      Map<String, String> env =
          Map.of(
              "SERVICEBUS_CONNECTION_STRING",
              azure.serviceBus().connectionString(),
              "SERVICEBUS_QUEUE_NAME",
              queue);

      int exit =
          new CommandLine(
                  new ResubmitCommand(
                      env, new PrintStream(bytes, true, StandardCharsets.UTF_8), Clock.systemUTC()))
              .execute("--reason", "StoreRejected", "--wait", "PT2S");

      assertThat(exit).isZero();
      assertThat(bytes.toString(StandardCharsets.UTF_8))
          .contains("resubmitted  ord-r1")
          .contains("skipped      ord-r2")
          .contains("resubmitted 1 of 2");
      ServiceBusReceivedMessage back = receive(receiver, 1).get(0);
      assertThat(back.getMessageId()).isEqualTo("ord-r1");
      assertThat(back.getCorrelationId()).isEqualTo("corr-r1");
      assertThat(back.getSubject()).isEqualTo("OrderPlaced");
      assertThat(back.getBody().toString()).isEqualTo(Orders.body("ord-r1", "c"));
      assertThat(back.getApplicationProperties())
          .containsEntry("traceparent", "00-abc-def-01")
          .doesNotContainKeys("DeadLetterReason", "DeadLetterErrorDescription");
      receiver.complete(back);
      assertThat(EmulatorClients.deadLetters(azure, queue, 2, Duration.ofSeconds(3)))
          .extracting(ServiceBusReceivedMessage::getMessageId)
          .containsExactly("ord-r2");
    }
  }

  @Test
  void creditOlderThanTheMarkerTtl_isRefusedAndStays_unlessForced() {
    String queue = azure.newQueue("q");
    try (ServiceBusSenderClient sender = EmulatorClients.sender(azure, queue);
        ServiceBusReceiverClient receiver =
            EmulatorClients.serviceBusClient(azure)
                .receiver()
                .queueName(queue)
                .disableAutoComplete()
                .buildClient()) {
      com.azure.messaging.servicebus.ServiceBusMessage credit =
          new com.azure.messaging.servicebus.ServiceBusMessage(
              "{\"orderId\":\"o\",\"creditId\":\"cr-old\",\"amount\":1,\"currency\":\"EUR\",\"reason\":\"r\"}");
      credit.setMessageId("cr-old");
      credit.setSubject("OrderCredited");
      sender.sendMessage(credit);
      receiver.deadLetter(
          receive(receiver, 1).get(0),
          new DeadLetterOptions().setDeadLetterReason("StoreRejected"));
      Map<String, String> env =
          Map.of(
              "SERVICEBUS_CONNECTION_STRING",
              azure.serviceBus().connectionString(),
              "SERVICEBUS_QUEUE_NAME",
              queue,
              "WORKER_INBOX_TTL",
              "P14D");
      Clock fifteenDaysLater = Clock.offset(Clock.systemUTC(), Duration.ofDays(15));
      ByteArrayOutputStream refusedOut = new ByteArrayOutputStream();

      int refused =
          new CommandLine(
                  new ResubmitCommand(
                      env,
                      new PrintStream(refusedOut, true, StandardCharsets.UTF_8),
                      fifteenDaysLater))
              .execute("--wait", "PT2S");

      assertThat(refused).isZero();
      assertThat(refusedOut.toString(StandardCharsets.UTF_8))
          .contains("refused      cr-old")
          .contains("older than the inbox marker TTL PT336H")
          .contains("1 message(s) refused");
      ByteArrayOutputStream forcedOut = new ByteArrayOutputStream();
      int forced =
          new CommandLine(
                  new ResubmitCommand(
                      env,
                      new PrintStream(forcedOut, true, StandardCharsets.UTF_8),
                      fifteenDaysLater))
              .execute("--wait", "PT2S", "--force");

      assertThat(forced).isZero();
      assertThat(forcedOut.toString(StandardCharsets.UTF_8))
          .contains("forced       cr-old")
          .contains("WARNING, forced although");
      ServiceBusReceivedMessage back = receive(receiver, 1).get(0);
      assertThat(back.getMessageId()).isEqualTo("cr-old");
      assertThat(back.getApplicationProperties()).containsKey("idemworker-first-enqueued-at");
      receiver.complete(back);
    }
  }

  @Test
  void withoutServiceBusSettings_exitsTwoNamingTheVariables() {
    int exit =
        new CommandLine(
                new ResubmitCommand(
                    Map.of(),
                    new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                    Clock.systemUTC()))
            .execute();

    assertThat(exit).isEqualTo(2);
  }

  private static List<ServiceBusReceivedMessage> receive(
      ServiceBusReceiverClient receiver, int count) {
    List<ServiceBusReceivedMessage> got = new ArrayList<>();
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (got.size() < count && System.nanoTime() < deadline) {
      receiver.receiveMessages(count - got.size(), Duration.ofSeconds(2)).forEach(got::add);
    }
    assertThat(got).hasSize(count);
    return got;
  }
}
