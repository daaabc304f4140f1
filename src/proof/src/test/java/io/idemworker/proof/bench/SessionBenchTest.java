package io.idemworker.proof.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code bench sessions} in its smallest form: both modes finish and are printed side by side. */
class SessionBenchTest {
  @Test
  void smallRun_printsBothModesAndTheirRatio() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();

    int exit =
        new CommandLine(new SessionBench(new PrintStream(bytes, true, StandardCharsets.UTF_8)))
            .execute("--orders", "10", "--versions", "2", "--concurrency", "4", "--rounds", "1");

    String output = bytes.toString(StandardCharsets.UTF_8);
    assertThat(exit).as(output).isZero();
    assertThat(output).contains("1       plain", "1       sessions", "sessions/plain");
  }

  @Test
  void optionsOutOfRange_exitTwo() {
    int exit = new CommandLine(new SessionBench()).execute("--orders", "5");

    assertThat(exit).isEqualTo(2);
  }
}
