package io.idemworker.proof.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.cosmos.models.PartitionKey;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.proof.faults.FaultPlan;
import io.idemworker.proof.producer.DemoLifecycle;
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
 * The chaos run end to end: real worker processes killed and restarted while the emulators fail in
 * every way the fault plan knows, and the external audit over what the stores hold.
 */
class ChaosCommandTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path logs;

  // Five JVMs start, are killed and restart on a shared 2-core machine: the default 120 s is for
  // tests that do not. The run's own --timeout bounds it well before this.
  @Tag("e2e")
  @Test
  @Timeout(value = 7, unit = TimeUnit.MINUTES)
  void shortRunWithKillsAndEveryFault_auditFindsNothingLostDoubledOrWronglyDeadLettered()
      throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    ChaosCommand command = new ChaosCommand(new PrintStream(bytes, true, StandardCharsets.UTF_8));

    int exit =
        new CommandLine(command)
            .execute(
                "--messages",
                "2500",
                "--workers",
                "2",
                "--kills",
                "4",
                "--seed",
                "11",
                "--timeout",
                "PT6M",
                "--log-dir",
                logs.toString(),
                "--json");

    String output = bytes.toString(StandardCharsets.UTF_8);
    JsonNode report = JSON.readTree(output);
    assertThat(exit).as(output).isZero();
    assertThat(report.path("result").asText()).isEqualTo("PASS");
    assertThat(report.path("settled").asBoolean()).isTrue();
    assertThat(report.path("lost").asLong()).isZero();
    assertThat(report.path("doubleEffects").asLong()).isZero();
    assertThat(report.path("wrongDeadLetters").asLong()).isZero();
    assertThat(
            report.path("kills").path("sigkill").asInt()
                + report.path("kills").path("sigterm").asInt())
        .isEqualTo(4);
    assertThat(report.path("kills").path("restarts").asInt()).isEqualTo(4);
    report.path("faults").forEach(count -> assertThat(count.asInt()).isPositive());
    assertThat(report.path("faults").size()).isEqualTo(FaultPlan.Kind.values().length - 2);
    assertThat(report.path("messagesSent").asLong()).isBetween(2000L, 3100L);
    report
        .path("messagesByDuplicateSource")
        .fields()
        .forEachRemaining(
            e -> {
              if (!e.getKey().equals("SEND_RETRY")) {
                assertThat(e.getValue().asLong()).as(e.getKey()).isPositive();
              }
            });
    JsonNode http = report.path("httpIntake");
    for (String count : new String[] {"ORDERS", "LATE", "LOST", "RACED", "REPLAYED"}) {
      assertThat(http.path(count).asLong()).as(count).isPositive();
    }
    // A late answer is a timeout and a lost one a dropped connection: each is retried (a lost
    // answer whose drop came after the client's timeout, under load, is retried as a timeout).
    assertThat(http.path("RETRY_TIMEOUT").asLong() + http.path("RETRY_DROPPED").asLong())
        .isGreaterThanOrEqualTo(http.path("LATE").asLong() + http.path("LOST").asLong());
    assertThat(http.path("RETRY_TIMEOUT").asLong()).isPositive();
    assertThat(http.path("RETRY_DROPPED").asLong()).isPositive();
    assertThat(report.path("checks").toString()).contains("dead-letter resubmission");
    assertThat(report.path("checks").toString()).contains("HTTP intake: every order posted");
    JsonNode webhooks = report.path("webhooks");
    assertThat(webhooks.path("events").asLong()).isPositive();
    assertThat(webhooks.path("copies").asLong()).isGreaterThan(webhooks.path("events").asLong());
    assertThat(webhooks.path("answeredDuplicate").asLong()).isPositive();
    assertThat(report.path("checks").toString()).contains("webhooks: every event the provider");
    report
        .path("checks")
        .forEach(c -> assertThat(c.path("pass").asBoolean()).as(c.toString()).isTrue());
  }

  @Tag("e2e")
  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void storesTamperedAfterTheRun_auditCountsTheLostOrderAndTheDoubleCreditAndExitsOneWithTheSeed()
      throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    ChaosCommand command = new ChaosCommand(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    command.tamper =
        stores -> {
          DemoLifecycle.Credit credit = stores.scenario().lifecycle.credits.get(0);
          String lostOrder =
              stores.scenario().firstWave.stream()
                  .filter(id -> !id.equals(credit.orderId()))
                  .findFirst()
                  .orElseThrow();
          stores.orders().deleteItem(lostOrder, new PartitionKey(lostOrder), null);
          ObjectNode credited =
              stores
                  .orders()
                  .readItem(credit.orderId(), new PartitionKey(credit.orderId()), ObjectNode.class)
                  .getItem();
          credited.put("creditCount", credited.path("creditCount").asLong() + 1);
          credited.put("creditedUnits", credited.path("creditedUnits").asLong() + credit.units());
          stores.orders().upsertItem(credited);
        };

    int exit =
        new CommandLine(command)
            .execute(
                "--messages", "200",
                "--workers", "1",
                "--kills", "1",
                "--seed", "5",
                "--timeout", "PT3M",
                "--log-dir", logs.toString());

    String output = bytes.toString(StandardCharsets.UTF_8);
    assertThat(exit).as(output).isEqualTo(1);
    assertThat(output)
        .contains("[FAIL] every order (")
        .contains(" missing")
        .contains("[FAIL] credited total per order")
        .containsPattern("lost = [1-9]\\d*, double effects = [1-9]\\d*, wrong dead-letters = 0")
        .contains(
            "FAIL: replay with  idemworker chaos --seed 5 --messages 200 --workers 1 --kills 1");
  }
}
