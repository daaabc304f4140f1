package io.idemworker.proof.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosClientBuilder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.idemworker.app.ConsumerWorkers;
import io.idemworker.cosmos.CosmosContainers;
import io.idemworker.orders.OrderDocumentIds;
import io.idemworker.proof.emulators.EmulatorsRun;
import io.idemworker.proof.faults.FaultPlan;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code chaos} against endpoints it is given: the stand-alone {@code emulators} command serves
 * them (in this JVM, as a separate program would), and the run knows nothing of them but the
 * connection string, the endpoint and the key.
 */
class ChaosExternalEndpointsTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * The shipped entities for a chaos run, with a 3 s window instead of the service's 20 s: the
   * emulators are started with the emulator-only relaxation that accepts it.
   */
  private static final String WINDOW = "PT3S";

  @TempDir Path dir;

  private EmulatorsRun emulators;

  @AfterEach
  void stopEmulators() throws Exception {
    if (emulators != null) {
      emulators.stop();
      emulators.exitCode();
    }
  }

  private EmulatorsRun.Printed startEmulators(Path config) throws InterruptedException {
    emulators =
        EmulatorsRun.startOnFreePorts(
            "--config", config.toString(), "--servicebus-shortest-duplicate-window", WINDOW);
    return EmulatorsRun.Printed.from(emulators.awaitOutput("Running;"));
  }

  private record Run(int exit, String out, String err) {}

  private static Run chaos(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit =
        new CommandLine(
                new ChaosCommand(
                    new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8)))
            .execute(args);
    return new Run(
        exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  // Three worker JVMs start, two are killed and restart, and the window is waited out twice.
  @Tag("e2e")
  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void givenEndpointsOnly_runPasses_withBrokerAndDatabaseFaultsReportedAsNotInjected()
      throws Exception {
    // Given the stand-alone emulators serving the shipped chaos entities, and the two containers
    // created as a deployment creates them
    String shipped =
        Files.readString(Path.of("local", "servicebus", "Config.chaos.json"))
            .replace("\"PT20S\"", "\"" + WINDOW + "\"");
    EmulatorsRun.Printed given =
        startEmulators(Files.writeString(dir.resolve("Config.json"), shipped));
    try (CosmosClient cosmos =
        new CosmosClientBuilder()
            .endpoint(given.cosmosEndpoint())
            .key(given.cosmosKey())
            .gatewayMode()
            .buildClient()) {
      CosmosContainers.ensureExists(
          cosmos, ChaosCommand.DATABASE, ChaosCommand.QUEUE, OrderDocumentIds.PARTITION_KEY_PATH);
      ConsumerWorkers.customers(cosmos, ChaosCommand.DATABASE);
    }

    // When chaos runs with only their addresses and keys
    Run run =
        chaos(
            "--messages",
            "300",
            "--workers",
            "1",
            "--kills",
            "2",
            "--seed",
            "7",
            "--timeout",
            "PT3M",
            "--log-dir",
            dir.resolve("logs").toString(),
            "--json",
            "--servicebus-connection-string",
            given.connectionString(),
            "--cosmos-endpoint",
            given.cosmosEndpoint(),
            "--cosmos-key",
            given.cosmosKey(),
            "--duplicate-detection-window",
            WINDOW);

    // Then the audit passes, and the report says what was not injected and what was held back
    JsonNode report = JSON.readTree(run.out());
    assertThat(run.exit()).as(run.out() + run.err()).isZero();
    assertThat(report.path("result").asText()).isEqualTo("PASS");
    assertThat(report.path("endpoints").asText()).isEqualTo("given");
    assertThat(report.path("lost").asLong()).isZero();
    assertThat(report.path("doubleEffects").asLong()).isZero();
    assertThat(report.path("wrongDeadLetters").asLong()).isZero();
    report
        .path("checks")
        .forEach(c -> assertThat(c.path("pass").asBoolean()).as(c.toString()).isTrue());
    assertThat(
            report.path("kills").path("sigkill").asInt()
                + report.path("kills").path("sigterm").asInt())
        .isEqualTo(2);
    Set<String> emulatorOnly =
        Arrays.stream(FaultPlan.Kind.values())
            .filter(FaultPlan.Kind::needsEmulator)
            .map(Enum::name)
            .collect(Collectors.toSet());
    assertThat(names(report.path("faultsNotInjected"))).isEqualTo(emulatorOnly);
    report.path("faultsNotInjected").forEach(planned -> assertThat(planned.asInt()).isPositive());
    assertThat(report.path("faultsNotInjectedReason").asText()).contains("given endpoints");
    assertThat(names(report.path("faults"))).containsExactly("PAYMENT_AMBIGUOUS");
    assertThat(run.err()).contains("[NOT injected: given endpoints]");
    // The copies meant for past the window went in one batch after the drain; the reused keys
    // among them reached the workers (not dropped by the broker as duplicates), or the dead-letter
    // check above would miss their IdempotencyConflict.
    JsonNode sources = report.path("messagesByDuplicateSource");
    long pastWindow =
        sources.path("PAST_WINDOW").asLong()
            + sources.path("CONCURRENT").asLong()
            + sources.path("KEY_REUSE").asLong();
    assertThat(sources.path("PAST_WINDOW").asLong()).isPositive();
    assertThat(sources.path("KEY_REUSE").asLong()).isPositive();
    assertThat(report.path("heldBackPastWindow").asLong()).isGreaterThanOrEqualTo(pastWindow);
    assertThat(sources.path("DLQ_RESUBMIT").asLong()).isPositive();
    assertThat(run.err()).contains("held-back copies");
  }

  @Test
  void someEndpointOptionsOnly_exitTwoNamingTheMissingOnes() {
    Run run =
        chaos(
            "--messages", "200",
            "--servicebus-connection-string",
                "Endpoint=sb://x/;SharedAccessKeyName=a;SharedAccessKey=b",
            "--cosmos-key", "k");

    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.err()).contains("missing: --cosmos-endpoint").doesNotContain("--cosmos-key,");
    assertThat(run.out()).isEmpty();
  }

  @Test
  @Timeout(value = 2, unit = TimeUnit.MINUTES)
  void unreachableCosmosAccount_exitsTwoNamingTheEndpoint_withoutAStackTrace() {
    Run run =
        chaos(
            "--messages", "200",
            "--log-dir", dir.resolve("logs").toString(),
            "--servicebus-connection-string",
                "Endpoint=sb://localhost:1;SharedAccessKeyName=a;SharedAccessKey=b;UseDevelopmentEmulator=true;",
            "--cosmos-endpoint", "https://localhost:1/",
            "--cosmos-key", "a2V5");

    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.err())
        .contains("the Cosmos DB account at https://localhost:1/ cannot be reached")
        .doesNotContain("\tat ");
  }

  @Test
  @Timeout(value = 2, unit = TimeUnit.MINUTES)
  void missingEntities_stopStartUpNamingEach() throws Exception {
    // Given the stand-alone emulators with the default local entities: no audit subscription, and
    // no Cosmos DB database
    EmulatorsRun.Printed given = startEmulators(Path.of("local", "servicebus", "Config.json"));

    // When chaos is pointed at them
    Run run =
        chaos(
            "--messages", "200",
            "--log-dir", dir.resolve("logs").toString(),
            "--servicebus-connection-string", given.connectionString(),
            "--cosmos-endpoint", given.cosmosEndpoint(),
            "--cosmos-key", given.cosmosKey());

    // Then it starts nothing and names what is missing
    assertThat(run.exit()).as(run.out() + run.err()).isEqualTo(2);
    assertThat(run.err())
        .contains("subscription 'audit' of topic 'order-events' does not exist")
        .contains("Cosmos DB database 'idemworker' does not exist")
        .doesNotContain("subscription 'loyalty' of topic 'order-events' does not exist");
    assertThat(dir.resolve("logs")).isEmptyDirectory();
  }

  private static Set<String> names(JsonNode object) {
    Set<String> names = new HashSet<>();
    object.fieldNames().forEachRemaining(names::add);
    return names;
  }
}
