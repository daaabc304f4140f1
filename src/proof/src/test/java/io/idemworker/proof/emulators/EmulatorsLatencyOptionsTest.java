package io.idemworker.proof.emulators;

import static io.idemworker.proof.emulators.EmulatorsRun.group;
import static org.assertj.core.api.Assertions.assertThat;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosClientBuilder;
import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusReceiverClient;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code emulators --cosmos-latency / --servicebus-latency}: the latencies reach the clients. */
class EmulatorsLatencyOptionsTest {

  @Test
  void latencyOptions_delayCosmosRequestsAndServiceBusDeliveriesAndSettlements() throws Exception {
    EmulatorsRun emulators =
        EmulatorsRun.startOnFreePorts(
            "--cosmos-latency", "PT0.2S",
            "--servicebus-latency", "PT0.2S");
    String output = emulators.awaitOutput("Running;");
    assertThat(output)
        .contains("PT0.2S added to every delivery and settlement")
        .contains("PT0.2S response time of every request");
    EmulatorsRun.Printed printed = EmulatorsRun.Printed.from(output);
    String connectionString = printed.connectionString();
    String queue = group(output, "  queue (\\S+) \\(");
    try (ServiceBusSenderClient sender =
            new ServiceBusClientBuilder()
                .connectionString(connectionString)
                .sender()
                .queueName(queue)
                .buildClient();
        ServiceBusReceiverClient receiver =
            new ServiceBusClientBuilder()
                .connectionString(connectionString)
                .receiver()
                .queueName(queue)
                .disableAutoComplete()
                .buildClient();
        CosmosClient cosmos =
            new CosmosClientBuilder()
                .endpoint(printed.cosmosEndpoint())
                .key(printed.cosmosKey())
                .gatewayMode()
                .buildClient()) {
      sender.sendMessage(new ServiceBusMessage("hello").setMessageId("m-1"));

      long start = System.nanoTime();
      ServiceBusReceivedMessage received =
          receiver.receiveMessages(1, Duration.ofSeconds(30)).stream().findFirst().orElseThrow();
      long receiveMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      start = System.nanoTime();
      receiver.complete(received);
      long completeMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      start = System.nanoTime();
      int created = cosmos.createDatabaseIfNotExists("latency").getStatusCode();
      long createMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

      assertThat(received.getMessageId()).isEqualTo("m-1");
      assertThat(receiveMillis).isGreaterThanOrEqualTo(200);
      assertThat(completeMillis).isGreaterThanOrEqualTo(200);
      assertThat(created).isEqualTo(201);
      assertThat(createMillis).isGreaterThanOrEqualTo(200);
    } finally {
      emulators.stop();
    }
    assertThat(emulators.exitCode()).isZero();
  }

  @Test
  void negativeLatency_exitsTwoBeforeStartingAnything() {
    CommandLine cli = EmulatorsRun.cli();

    assertThat(cli.execute("--cosmos-latency", "PT-0.1S")).isEqualTo(2);
    assertThat(cli.execute("--servicebus-latency", "PT-0.1S")).isEqualTo(2);
  }

  @Test
  void latencySpreadOutsideZeroToOne_exitsTwoBeforeStartingAnything() {
    CommandLine cli = EmulatorsRun.cli();

    assertThat(cli.execute("--latency-spread", "1.5")).isEqualTo(2);
    assertThat(cli.execute("--latency-spread", "-0.1")).isEqualTo(2);
    assertThat(cli.execute("--latency-spread", "NaN")).isEqualTo(2);
  }
}
