package io.idemworker.proof.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The sweep with tiny numbers: it runs real 'run' processes and counts every order once. */
class BoundBenchTest {

  // One child JVM; the default 120 s is short for its start on a machine shared with builds.
  @Tag("e2e")
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
            "--settle-seconds",
            "0",
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
        .contains(
            "Cosmos DB 8.0 ms per request (its response time), Service Bus +6.0 ms per delivery")
        .contains("each latency drawn uniformly within ±50 % of its mean")
        .containsPattern("(?m)^\\s+16\\s+0\\s+20\\s+\\d+\\s+800 .*<- defaults$")
        // the latencies were armed after the 30 cold orders were settled, not before
        .containsPattern("c16 p0: cold warm-up 30 orders in \\d+\\.\\d s, cell \\d+\\.\\d s")
        .containsPattern("sweep: 1 cells in \\d+\\.\\d s")
        .containsPattern(
            "target: at the defaults \\(concurrency 16, prefetch 0; each latency drawn uniformly"
                + " within ±50 % of its mean\\) .*: (met|NOT met)")
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
  void warmUpUnderLatency_lastsAboutTheSettleSecondsAtTheBound_withinItsLimits() {
    BoundBench bench = new BoundBench();
    new CommandLine(bench).parseArgs("--settle-seconds", "30");

    // 1 call at 20 ms: 50 msg/s, 30 s of it; 64 calls: capped at 30,000 messages
    assertThat(bench.phases(new BoundBench.Cell(1, 0), 50).warm()).isEqualTo(1500);
    assertThat(bench.phases(new BoundBench.Cell(64, 0), 3200).warm()).isEqualTo(30_000);
    new CommandLine(bench).parseArgs("--settle-seconds", "0", "--seconds", "5");
    // without settling, half the measured count (250 messages at 50 msg/s over 5 s)
    assertThat(bench.phases(new BoundBench.Cell(1, 0), 50).warm()).isEqualTo(125);
    new CommandLine(bench).parseArgs("--settle-seconds", "0");
    // the default window: 20 s, 1,000 messages at 50 msg/s
    assertThat(bench.phases(new BoundBench.Cell(1, 0), 50).warm()).isEqualTo(500);
  }

  @Test
  void compilerCpu_isTheJitThreadsShareOfTheProcess() throws IOException {
    long pid = ProcessHandle.current().pid();

    long compiler = BenchSupport.compilerCpuNanos(pid);

    // this JVM has compiled the test framework's code by now, and that is part of its CPU
    assertThat(compiler).isPositive().isLessThanOrEqualTo(BenchSupport.processCpuNanos(pid));
  }

  @Test
  void outOfRangeOptions_areRefused() {
    CapturedRun run = CapturedRun.of(BoundBench::new, "--concurrency", "0,4");

    assertThat(run.exit()).isEqualTo(2);
    assertThat(CapturedRun.of(BoundBench::new, "--latency-spread", "1.5").exit()).isEqualTo(2);
    assertThat(CapturedRun.of(BoundBench::new, "--latency-spread", "NaN").exit()).isEqualTo(2);
  }

  @Test
  void latencyShape_saysWhetherTheLatenciesAreConstantOrDrawn() {
    BoundBench bench = new BoundBench();
    new CommandLine(bench).parseArgs("--latency-spread", "0");
    assertThat(bench.latencyShape()).isEqualTo("every latency constant");
    new CommandLine(bench).parseArgs("--latency-spread", "0.25");
    assertThat(bench.latencyShape())
        .isEqualTo("each latency drawn uniformly within ±25 % of its mean");
  }

  @Test
  void theSweep_isTheBenchCommandsBoundMode() {
    assertThat(new CommandLine(new BenchCommand()).getSubcommands()).containsKey("bound");
  }
}
