package io.idemworker.proof;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class BenchCommandTest {

  @Test
  void smallBench_takesOneRoundTripPerNewOrderAndTwoPerDuplicate() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);

    int exit =
        new CommandLine(new BenchCommand(out))
            .execute(
                "--orders", "40",
                "--duplicate-ratio", "0.25",
                "--rounds", "1",
                "--warm-up", "0",
                "--timeout", "PT60S");

    String output = bytes.toString(StandardCharsets.UTF_8);
    assertThat(exit).as(output).isZero();
    assertThat(output)
        .contains("40 orders + 10 second copies")
        .containsPattern("store round trips per new order\\s+1\\.00\\s+1\\.00")
        .containsPattern("store round trips per duplicate\\s+2\\.00\\s+1\\.00")
        .contains("round trips: this worker 1.00 per new order, 2.00 per duplicate")
        .containsPattern("throughput target .*: (met|NOT met)")
        .doesNotContain("PROBLEM")
        .doesNotContain("FAILED");
  }

  @Test
  void outOfRangeOptions_areRefused() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();

    int exit =
        new CommandLine(new BenchCommand(new PrintStream(bytes, true, StandardCharsets.UTF_8)))
            .execute("--duplicate-ratio", "1.5");

    assertThat(exit).isEqualTo(2);
  }
}
