package io.idemworker.proof;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class DemoCommandTest {

  @Test
  void smallDemo_passesItsAuditIncludingTheLifecyclePaymentAndRelayChecksAndItsMetricsBalance() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);

    int exit =
        new CommandLine(new DemoCommand(out))
            .execute("--orders", "40", "--seed", "7", "--timeout", "PT60S");

    String output = bytes.toString(StandardCharsets.UTF_8);
    assertThat(exit).as(output).isZero();
    assertThat(output)
        .contains("PASS  one order per orderId")
        .contains("PASS  none lost")
        .contains("PASS  every reused key")
        .contains("PASS  every poison message")
        .contains("PASS  credited total per order = the sum of its distinct credits, exactly")
        .contains("PASS  status per order = that of its highest version")
        .contains("PASS  every credit's inbox marker carries the configured TTL")
        .contains("PASS  every credit in another currency")
        .contains("PASS  the status for an order that never came dead-lettered as OrderNotFound")
        .contains("PASS  one capture per payment request at the provider")
        .contains("PASS  each order's amount paid = the sum of its captured requests")
        .contains("PASS  every payment record Completed with the provider's answer")
        .contains("PASS  a crash after the provider call (1) and a dropped answer (1)")
        .contains("PASS  concurrent copies of a payment request (1 pairs)")
        .contains("PASS  a decline is a business answer: 2 declined requests completed")
        .contains("PASS  every payment key reused with another amount (2) dead-lettered")
        .contains("PASS  every delivery accounted for")
        .contains("PASS  OpenTelemetry counters balance")
        .contains("PASS  every outbox event (")
        .contains(
            "reached the audit subscription exactly once after duplicate detection (3 re-sent inside the window dropped) and is marked published")
        .contains(
            "PASS  relay re-publishes past the topic's window (3) reached the subscriptions again")
        .contains("PASS  loyalty points per customer (")
        .contains("PASS  orders and spend per customer and currency (")
        .contains("PASS  HTTP: one order per key: each of 23 orders posted over HTTP exists once")
        .contains("PASS  HTTP: replays identical: every repeat of a key (20)")
        .contains(
            "PASS  HTTP: a client whose answer was late (3) or lost to a crash after the write (2)")
        .contains("PASS  HTTP: concurrent identical requests (3 x 6) made one order each")
        .contains("PASS  HTTP: every key reused with another body (3) refused with 422")
        .contains("PASS  HTTP: orders the queue had taken, posted again over HTTP (3)")
        .contains("PASS: every message took effect exactly once")
        .doesNotContain("FAIL");
    assertThat(output).containsPattern("new order\\s+1\\.00 round trips");
    assertThat(output).containsPattern("duplicate order\\s+2\\.00 round trips");
    assertThat(output).containsPattern("new credit \\(.*\\)\\s+1\\.00 round trips");
    assertThat(output).containsPattern("duplicate credit \\(.*\\)\\s+2\\.00 round trips");
    assertThat(output).containsPattern("applied status change \\(.*\\)\\s+1\\.00 round trips");
    assertThat(output).containsPattern("stale status change \\(.*\\)\\s+2\\.00 round trips");
    assertThat(output).containsPattern("new payment \\(.*\\)\\s+2\\.00 round trips");
    assertThat(output).containsPattern("duplicate payment \\(.*\\)\\s+2\\.00 round trips");
    assertThat(output).containsPattern("payment takeover \\(.*\\)\\s+4\\.00 round trips");
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
