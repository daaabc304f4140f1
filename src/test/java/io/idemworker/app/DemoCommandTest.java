package io.idemworker.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class DemoCommandTest {

  @Test
  void smallDemo_passesItsAuditAndItsMetricsBalance() {
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
        .contains("PASS  OpenTelemetry counters balance")
        .contains("PASS: every order took effect exactly once")
        .doesNotContain("FAIL");
    assertThat(output).containsPattern("new order\\s+1\\.00 round trips");
    assertThat(output).containsPattern("duplicate\\s+2\\.00 round trips");
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
