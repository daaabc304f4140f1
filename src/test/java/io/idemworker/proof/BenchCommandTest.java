package io.idemworker.proof;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class BenchCommandTest {

  @Test
  void smallBench_takesOneRoundTripPerNewOrderAndTwoPerDuplicate() {
    CapturedRun run =
        CapturedRun.of(
            BenchCommand::new,
            "--orders",
            "40",
            "--duplicate-ratio",
            "0.25",
            "--rounds",
            "1",
            "--warm-up",
            "0",
            "--timeout",
            "PT60S");

    assertThat(run.exit()).as(run.output()).isZero();
    assertThat(run.output())
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
    CapturedRun run = CapturedRun.of(BenchCommand::new, "--duplicate-ratio", "1.5");

    assertThat(run.exit()).isEqualTo(2);
  }
}
