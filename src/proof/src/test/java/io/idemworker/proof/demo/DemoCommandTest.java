package io.idemworker.proof.demo;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.cosmos.models.CosmosPatchOperations;
import com.azure.cosmos.models.PartitionKey;
import com.fasterxml.jackson.databind.JsonNode;
import io.idemworker.consumers.CustomerDocumentIds;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

class DemoCommandTest {
  /** A figure of at least 2.00, as the cost table prints it. */
  private static final String AT_LEAST_2 = "([2-9]|[1-9]\\d+)\\.\\d\\d";

  /** A figure of at least 4.00. */
  private static final String AT_LEAST_4 = "([4-9]|[1-9]\\d+)\\.\\d\\d";

  /** What the demo printed up to the end of its own audit, and its exit code. */
  private static String output;

  private static int exit;

  /** What its audit printed when run again on the stores broken after the run, and its verdict. */
  private static String tamperedOutput;

  private static int tamperedExit = -1;

  /**
   * One demo for both tests of a whole run: it passes, then a test hook breaks its stores and runs
   * the same audit again. A whole demo takes about 20 s on an idle 2-core machine, several times
   * that beside other builds; the bound catches a hang, not a slow machine (the suite's default is
   * 2 minutes).
   */
  @BeforeAll
  @Timeout(value = 6, unit = TimeUnit.MINUTES)
  static void runTheDemoOnce() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
    DemoCommand demo = new DemoCommand(out);
    int[] auditEnd = {-1};
    demo.afterAudit =
        (stores, auditAgain) -> {
          // An order posted over HTTP lost (the queue's observations cannot see it), and a
          // customer's loyalty points projected twice from one order.
          String http = "ord-7-http-0";
          stores.orders().deleteItem(http, new PartitionKey(http), null);
          String customer = "cust-http-1";
          stores
              .customers()
              .patchItem(
                  CustomerDocumentIds.customer(customer),
                  new PartitionKey(customer),
                  CosmosPatchOperations.create()
                      .increment("/" + CustomerDocumentIds.LOYALTY_POINTS, 6),
                  JsonNode.class);
          auditEnd[0] = bytes.size();
          tamperedExit = auditAgain.run();
        };

    exit = new CommandLine(demo).execute("--orders", "40", "--seed", "7", "--timeout", "PT60S");

    byte[] printed = bytes.toByteArray();
    int end = auditEnd[0] < 0 ? printed.length : auditEnd[0];
    output = new String(printed, 0, end, StandardCharsets.UTF_8);
    tamperedOutput = new String(printed, end, printed.length - end, StandardCharsets.UTF_8);
  }

  @Test
  void smallDemo_passesWhatItObservedAndTheSharedAuditOfTheStores() {
    assertThat(exit).as(output).isZero();
    assertThat(output)
        // The fault plan, fired through the chaos run's injector.
        .contains("phase 1: Cosmos DB answers 503 (unavailable) on 3 BATCH requests")
        .contains("phase 4: payment provider executes the capture, then drops the connection")
        // What the demo observed.
        .contains("PASS  every poison message (8), reused key and wrong currency dead-lettered")
        .contains("PASS  credits: each of ")
        .contains("PASS  status version 2, sent after version 3, completed as stale")
        .contains("PASS  the status for an order that never came dead-lettered on delivery 10")
        .contains("PASS  payments: a crash after the provider call (1) and a dropped answer (1)")
        .contains("PASS  payments: every request no fault hit (")
        .contains("PASS  payments: of each concurrent pair (1)")
        .contains("PASS  every delivery accounted for")
        .contains("PASS  OpenTelemetry counters balance")
        .contains(
            "reached the audit subscription exactly once after duplicate detection (3 re-sent inside the window dropped)")
        .contains(
            "PASS  relay re-publishes past the topic's window (3) reached the subscriptions again")
        .contains("PASS  HTTP: replays identical: every repeat of a key (20)")
        .contains(
            "PASS  HTTP: a client whose answer was late (3) or lost to a crash after the write (2)")
        .contains("PASS  HTTP: concurrent identical requests (3 x 6) made one order each")
        .contains("PASS  HTTP: every key reused with another body (3) refused with 422")
        .contains("PASS  HTTP: orders the queue had taken, posted again over HTTP (3)")
        .contains("PASS  webhooks: the provider delivered every event")
        .contains("PASS  sessions: status versions sent 1, 3, 2 applied as 1, 2, 3")
        .contains("PASS  sessions: a poison message parked the rest of its order")
        // The audit of the stores: StateAudit, the chaos run's.
        .contains("Audit of the stores (StateAudit")
        .contains("PASS  every order (")
        .contains(" of them over HTTP) read back once")
        .contains("PASS  credited total per order = the sum of its distinct credits")
        .contains("marker names it and carries the TTL (14 days)")
        .contains("PASS  status per order = that of its highest version")
        .contains("PASS  one capture per payment request at the provider")
        .contains("PASS  the dead-letter queue holds exactly the poison")
        .contains("PASS  every outbox event (")
        .contains("PASS  loyalty points per customer (")
        .contains("PASS  webhooks: every event the provider delivered")
        .contains("lost = 0, double effects = 0, wrong dead-letters = 0")
        .contains("PASS: every message took effect exactly once")
        .doesNotContain("FAIL");
    assertThat(output)
        .containsPattern("PASS  queue: each of \\d+ orders created by exactly one delivery");
    assertThat(output)
        .containsPattern(
            "PASS  queue: each of [1-9]\\d* duplicates named the source the demo made it by")
        .containsPattern("redelivery: the same copy again \\(crash or lost lock\\)\\s+[1-9]");
    assertThat(output).containsPattern("new order\\s+1\\.00 round trips");
    assertThat(output).containsPattern("duplicate order\\s+2\\.00 round trips");
    assertThat(output).containsPattern("new credit \\(.*\\)\\s+1\\.00 round trips");
    assertThat(output).containsPattern("duplicate credit \\(.*\\)\\s+2\\.00 round trips");
    assertThat(output).containsPattern("applied status change \\(.*\\)\\s+1\\.00 round trips");
    assertThat(output).containsPattern("stale status change \\(.*\\)\\s+2\\.00 round trips");
    // The payment rows are figures of the interleaving, so only their floor is fixed: a claim whose
    // lease became too short to start the call releases it, and its redelivery takes over (2 more);
    // a concurrent copy that finds the other's lease waits it out and claims and reads again.
    assertThat(output).containsPattern("new payment \\(.*\\)\\s+" + AT_LEAST_2 + " round trips");
    assertThat(output)
        .containsPattern("duplicate payment \\(.*\\)\\s+" + AT_LEAST_2 + " round trips");
    assertThat(output)
        .containsPattern("payment takeover \\(.*\\)\\s+" + AT_LEAST_4 + " round trips")
        .containsPattern(
            "payment takeover after a crash \\(.*\\)\\s+" + AT_LEAST_4 + " round trips");
  }

  @Test
  void storesTamperedAfterTheRun_failTheDemosAuditWithTheLostOrderAndTheDoubledProjection() {
    assertThat(tamperedExit).as(output + tamperedOutput).isEqualTo(1);
    assertThat(tamperedOutput)
        .contains("FAIL  every order (")
        .contains("ord-7-http-0 missing")
        .contains("FAIL  loyalty points per customer")
        .contains("cust-http-1 has ")
        .containsPattern("lost = [1-9]\\d*, double effects = [1-9]\\d*")
        .contains("FAIL: see the checks above.");
  }

  @Test
  void outOfRangeOptions_areRefusedWithTheAllowedValues() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();

    int exit =
        new CommandLine(new DemoCommand(new PrintStream(bytes, true, StandardCharsets.UTF_8)))
            .execute("--orders", "3");

    assertThat(exit).isEqualTo(2);
  }
}
