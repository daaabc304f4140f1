package io.idemworker.proof;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The sweep with tiny numbers: it runs real 'run' processes and counts every order once. */
class BoundBenchTest {

  // One child JVM; the default 120 s is short for its start on a machine shared with builds.
  @Test
  @Timeout(value = 300, unit = TimeUnit.SECONDS)
  void tinySweepAtTheDefaults_warmsUpWithoutLatency_thenArmsIt_andProcessesEveryOrderOnce(
      @TempDir Path jfr) throws IOException {
    CapturedRun run =
        CapturedRun.of(
            BoundBench::new,
            "--concurrency",
            "16",
            "--prefetch-factor",
            "0",
            "--warm-up-orders",
            "30",
            "--min-messages",
            "10",
            "--max-messages",
            "20",
            "--timeout",
            "PT120S",
            "--jfr",
            jfr.toString());

    assertThat(run.exit()).as(run.output()).isZero();
    assertThat(run.output())
        .contains("Cosmos DB +8.0 ms per request, Service Bus +6.0 ms per delivery")
        .containsPattern("(?m)^\\s+16\\s+0\\s+20\\s+\\d+\\s+800 .*<- defaults$")
        // the latencies were armed after the 30 cold orders were settled, not before
        .containsPattern("c16 p0: cold warm-up 30 orders in \\d+\\.\\d s, cell \\d+\\.\\d s")
        .containsPattern("sweep: 1 cells in \\d+\\.\\d s")
        .containsPattern("target: at the defaults .*: (met|NOT met)")
        .contains("every order of every cell processed exactly once")
        .doesNotContain("PROBLEM")
        .doesNotContain("FAILED");
    // the child's recording of the latency phases was written (the run's shutdown hook halts the
    // JVM, so one written on exit would be empty)
    Path recording = jfr.resolve("bound-c16-p0.jfr");
    assertThat(recording).exists();
    assertThat(Files.size(recording)).isPositive();
  }

  @Test
  void outOfRangeOptions_areRefused() {
    CapturedRun run = CapturedRun.of(BoundBench::new, "--concurrency", "0,4");

    assertThat(run.exit()).isEqualTo(2);
  }

  @Test
  void theSweep_isTheBenchCommandsBoundMode() {
    assertThat(new CommandLine(new BenchCommand()).getSubcommands()).containsKey("bound");
  }
}
