package io.idemworker.proof.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.cosmos.models.PartitionKey;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code chaos --sessions} end to end: a worker process in session mode killed mid-run and
 * restarted, poisoned orders parked, then released or discarded by the operator, every order
 * audited. One order is tampered with after the drain, so the same run shows that the audit counts
 * exactly what is wrong and nothing else; {@code SessionsAuditTest} shows what the parking checks
 * catch.
 */
class ChaosSessionsTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path logs;

  @Tag("e2e")
  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void sessionRunWithAKillAndPoison_parkedOrdersReleasedOrDiscarded_auditFindsOnlyTheTampered()
      throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    ByteArrayOutputStream progress = new ByteArrayOutputStream();
    ChaosCommand command =
        new ChaosCommand(
            new PrintStream(bytes, true, StandardCharsets.UTF_8),
            new PrintStream(progress, true, StandardCharsets.UTF_8));
    String tampered = "ord-s5-0";
    command.sessionsTamper =
        container -> {
          ObjectNode order =
              container.readItem(tampered, new PartitionKey(tampered), ObjectNode.class).getItem();
          order.put("statusVersion", 2).put("status", "Packed");
          order.put("creditCount", order.path("creditCount").asLong() + 1);
          order.put("creditedUnits", order.path("creditedUnits").asLong() + 25_000);
          container.upsertItem(order);
        };

    int exit =
        new CommandLine(command)
            .execute(
                "--sessions",
                "--messages",
                "200",
                "--workers",
                "1",
                "--kills",
                "1",
                "--seed",
                "5",
                "--timeout",
                "PT4M",
                "--log-dir",
                logs.toString(),
                "--json");

    String output = bytes.toString(StandardCharsets.UTF_8);
    JsonNode report = JSON.readTree(output);
    assertThat(exit).as(output + progress).isEqualTo(1);
    assertThat(report.path("drained").asBoolean()).as(output + progress).isTrue();
    assertThat(report.path("sigkills").asInt()).isEqualTo(1);
    assertThat(report.path("lost").asInt()).as(output).isEqualTo(1);
    assertThat(report.path("doubled").asInt()).as(output).isEqualTo(1);
    assertThat(report.path("gapsGivenUp").asInt()).isZero();
    // Seed 5's 28 orders: poisons in the middle of orders 4, 14 and 24 (released) and 9
    // (discarded); each parked, then released or discarded, and the audit found nothing else.
    assertThat(report.path("poisoned").asInt()).isEqualTo(4);
    assertThat(report.path("parked").asInt()).as(output).isEqualTo(4);
    assertThat(report.path("released").asInt()).as(output).isEqualTo(3);
    assertThat(report.path("unparkedByWorkers").asInt()).as(output).isEqualTo(3);
    assertThat(report.path("discarded").asInt()).isEqualTo(1);
    assertThat(report.path("discardRecords").asInt()).as(output).isGreaterThanOrEqualTo(3);
    assertThat(report.path("notParked").asInt()).as(output).isZero();
    assertThat(report.path("outOfOrder").asInt()).as(output).isZero();
    assertThat(report.path("droppedWithoutRecord").asInt()).as(output).isZero();
    assertThat(report.path("wrongDeadLetters").asInt()).as(output).isZero();
    // The scenario makes versions wait: some order's higher version goes before a lower one.
    assertThat(report.path("ordersWithAVersionSentEarly").asInt()).isPositive();
  }

  @Test
  void sessionsWithGivenEndpoints_isRefusedWithExitTwo() {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    ChaosCommand command =
        new ChaosCommand(
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));

    int exit =
        new CommandLine(command)
            .execute("--sessions", "--cosmos-endpoint", "https://localhost:8081/");

    assertThat(exit).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("--sessions").contains("emulators");
  }
}
