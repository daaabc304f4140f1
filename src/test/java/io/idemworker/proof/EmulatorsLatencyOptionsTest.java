package io.idemworker.proof;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosClientBuilder;
import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusReceiverClient;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code emulators --cosmos-latency / --servicebus-latency}: the latencies reach the clients. */
class EmulatorsLatencyOptionsTest {

  @Test
  void latencyOptions_delayCosmosRequestsAndServiceBusDeliveriesAndSettlements() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    CountDownLatch stop = new CountDownLatch(1);
    EmulatorsCommand command =
        new EmulatorsCommand(new PrintStream(bytes, true, StandardCharsets.UTF_8), stop);
    CompletableFuture<Integer> exit =
        CompletableFuture.supplyAsync(
            () ->
                new CommandLine(command)
                    .execute(
                        "--servicebus-port", "0",
                        "--cosmos-port", "0",
                        "--payments-port", "0",
                        "--cosmos-latency", "PT0.2S",
                        "--servicebus-latency", "PT0.2S"));
    String output = awaitOutput(bytes, "Running;");
    assertThat(output)
        .contains("PT0.2S added to every delivery and settlement")
        .contains("PT0.2S added to every request");
    String connectionString = group(output, "SERVICEBUS_CONNECTION_STRING=\"([^\"]+)\"");
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
                .endpoint(group(output, "COSMOS_ENDPOINT=(\\S+)"))
                .key(group(output, "COSMOS_KEY=\"([^\"]+)\""))
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
      stop.countDown();
    }
    assertThat(exit.get(30, TimeUnit.SECONDS)).isZero();
  }

  @Test
  void negativeLatency_exitsTwoBeforeStartingAnything() {
    CommandLine cli =
        new CommandLine(
            new EmulatorsCommand(
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new CountDownLatch(1)));

    assertThat(cli.execute("--cosmos-latency", "PT-0.1S")).isEqualTo(2);
    assertThat(cli.execute("--servicebus-latency", "PT-0.1S")).isEqualTo(2);
  }

  private static String awaitOutput(ByteArrayOutputStream bytes, String marker)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      String output = bytes.toString(StandardCharsets.UTF_8);
      if (output.contains(marker)) {
        return output;
      }
      synchronized (bytes) {
        bytes.wait(50);
      }
    }
    throw new AssertionError("no '" + marker + "' in: " + bytes.toString(StandardCharsets.UTF_8));
  }

  private static String group(String text, String regex) {
    Matcher m = Pattern.compile(regex).matcher(text);
    assertThat(m.find()).as(regex + " in " + text).isTrue();
    return m.group(1);
  }
}
