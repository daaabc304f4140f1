package io.idemworker.proof.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The harness of {@code bench process}, with small numbers: it measures, it does not judge. */
class ProcessBenchTest {

  @Tag("e2e")
  @Test
  void smallRun_drainsEveryOrderAndEveryTypeThroughAChildRunProcessAndPrintsTheSummary() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);

    int exit =
        new CommandLine(new ProcessBench(out))
            .execute(
                "--orders", "30", "--warm-up-orders", "10", "--rounds", "1", "--timeout", "PT90S");

    String output = bytes.toString(StandardCharsets.UTF_8);
    assertThat(exit).as(output).isZero();
    assertThat(output)
        .contains("warm-up: 10 orders sent and drained")
        .containsPattern(
            "run process: 30 orders in \\d+\\.\\d\\d s = \\d+ msg/s \\(CPU \\d+\\.\\d{3} ms/msg;"
                + " emulators \\d+\\.\\d{3} ms/msg\\)")
        .containsPattern(
            "run process CPU by thread group \\(ms/msg\\): application \\d+\\.\\d{3} compiler"
                + " -?\\d+\\.\\d{3} gc -?\\d+\\.\\d{3} vm -?\\d+\\.\\d{3}")
        .containsPattern("OrderPlaced, a copy +30 ")
        .containsPattern(
            "run process CPU by type \\(ms/msg\\): OrderStatusChanged \\d+\\.\\d{3} \\(\\d+\\.\\d\\d of a"
                + " new OrderPlaced\\)")
        .containsPattern("run process CPU by type \\(ms/msg\\): OrderCredited \\d+\\.\\d{3}")
        .doesNotContain("PROBLEM");
  }

  @Test
  void outOfRangeOptions_areRefused() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();

    int exit =
        new CommandLine(new ProcessBench(new PrintStream(bytes, true, StandardCharsets.UTF_8)))
            .execute("--orders", "5");

    assertThat(exit).isEqualTo(2);
  }

  @Test
  void childCollector_isTheDeployedOneUnlessAnOptionPicksAnother() {
    assertThat(BenchSupport.collector(List.of())).containsExactly("-XX:+UseParallelGC");
    assertThat(BenchSupport.collector(List.of("-XX:TieredStopAtLevel=1")))
        .containsExactly("-XX:+UseParallelGC");
    assertThat(BenchSupport.collector(List.of("-XX:+UseG1GC"))).isEmpty();
    assertThat(BenchSupport.collector(List.of("-XX:+UseSerialGC"))).isEmpty();
  }

  @Test
  void isMountedUnderBench() {
    CommandLine bench = new CommandLine(new BenchCommand());

    assertThat(bench.getSubcommands()).containsKey("process");
  }

  @Test
  void cpuTime_isUserPlusSystemTicks_evenWhenTheCommandNameHasSpacesAndParentheses() {
    // Fields after the name: state ppid pgrp session tty tpgid flags minflt cminflt majflt
    // cmajflt utime stime ...; 150 + 50 ticks at 100 per second are 2 s.
    String stat = "4242 (a (b) c) S 1 4242 4242 0 -1 4194560 10 0 0 0 150 50 0 0 20 0 30 0";

    assertThat(BenchSupport.cpuNanos(stat)).isEqualTo(2_000_000_000L);
  }
}
