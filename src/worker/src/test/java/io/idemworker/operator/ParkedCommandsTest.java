package io.idemworker.operator;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusReceiverClient;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import com.azure.messaging.servicebus.ServiceBusSessionReceiverClient;
import io.idemworker.emulator.junit.AzureEmulators;
import io.idemworker.emulator.junit.Emulators;
import io.idemworker.testing.EmulatorClients;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code dlq release} and {@code dlq discard} as commands: their exit codes and lines. What they do
 * to a parked order is in {@code servicebus.SessionParkingTest}.
 */
@AzureEmulators(cosmos = false)
class ParkedCommandsTest {
  static Emulators azure; // injected by @AzureEmulators
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private static Map<String, String> env(String queue) {
    return Map.of(
        "SERVICEBUS_CONNECTION_STRING",
        azure.serviceBus().connectionString(),
        "SERVICEBUS_QUEUE_NAME",
        queue);
  }

  private PrintStream print(ByteArrayOutputStream bytes) {
    return new PrintStream(bytes, true, StandardCharsets.UTF_8);
  }

  @Test
  void orderThatIsNotParked_exitsOneSayingSo_forReleaseAndDiscard() {
    String queue = azure.newQueue("q", "sessions");

    int release =
        new CommandLine(new ParkedCommands.Release(env(queue), print(out), print(err)))
            .execute("ord-calm");
    int discard =
        new CommandLine(new ParkedCommands.Discard(env(queue), print(out), print(err)))
            .execute("ord-calm");

    assertThat(release).isEqualTo(1);
    assertThat(discard).isEqualTo(1);
    assertThat(out.toString(StandardCharsets.UTF_8)).contains("order ord-calm is not parked");
  }

  @Test
  void sessionHeldByAWorker_exitsThreeAskingToTryAgain() {
    String queue = azure.newQueue("q", "sessions");
    try (ServiceBusSenderClient sender = EmulatorClients.sender(azure, queue);
        ServiceBusSessionReceiverClient sessions =
            EmulatorClients.serviceBusClient(azure)
                .sessionReceiver()
                .queueName(queue)
                .buildClient()) {
      sender.sendMessage(new ServiceBusMessage("{}").setMessageId("m").setSessionId("ord-held"));
      try (ServiceBusReceiverClient held = sessions.acceptSession("ord-held")) {
        assertThat(held.getSessionId()).isEqualTo("ord-held");
        int exit =
            new CommandLine(new ParkedCommands.Release(env(queue), print(out), print(err)))
                .execute("ord-held");

        assertThat(exit).isEqualTo(ParkedCommands.BUSY);
        assertThat(err.toString(StandardCharsets.UTF_8))
            .contains("a worker holds the session of order ord-held now; try again");
      }
    }
  }

  @Test
  void missingConfiguration_exitsTwoNamingTheVariables() {
    int exit =
        new CommandLine(new ParkedCommands.Discard(Map.of(), print(out), print(err)))
            .execute("ord-1");

    assertThat(exit).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("SERVICEBUS_");
  }
}
