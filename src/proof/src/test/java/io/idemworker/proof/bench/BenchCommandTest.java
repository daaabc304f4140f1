package io.idemworker.proof.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class BenchCommandTest {

  @Test
  void smallBench_takesOneRoundTripPerNewOrderAndTwoPerDuplicate() {
    CapturedRun run =
        oneRound(
            "--orders", "40",
            "--timeout", "PT60S",
            "--cosmos-latency", "PT0.002S",
            "--servicebus-latency", "PT0.001S",
            "--latency-spread", "0.5");

    assertThat(run.exit()).as(run.output()).isZero();
    assertThat(run.output())
        .contains("40 orders + 10 second copies")
        .contains(
            "latencies added while each contender runs: Cosmos DB 2 ms a request, Service Bus 1"
                + " ms a delivery and a settlement, spread ±50 %")
        .containsPattern("store round trips per new order\\s+1\\.00\\s+1\\.00")
        .containsPattern("store round trips per duplicate\\s+2\\.00\\s+1\\.00")
        .contains("round trips: this worker 1.00 per new order, 2.00 per duplicate")
        // The chaos run's audit on both runs: the store holds every order once either way; the
        // naive consumer applied each of the 10 second copies again.
        .contains("audit (StateAudit, the store): lost 0, doubled 0; applied again (observed): 0")
        .contains("audit (StateAudit, the store): lost 0, doubled 0; applied again (observed): 10")
        .containsPattern("lost \\+ doubled in the store, all\\s+0\\s+0")
        .containsPattern("messages applied again, all\\s+0\\s+10")
        .containsPattern("throughput target .*: (met|NOT met)")
        .doesNotContain("PROBLEM")
        .doesNotContain("FAILED");
  }

  /**
   * A whole bench run through seven faults (dropped connections, lost locks, throttling): an
   * end-to-end run, so the bound is a guard against a hang, not a figure.
   */
  @Test
  @Tag("e2e")
  @Timeout(value = 6, unit = TimeUnit.MINUTES)
  void benchUnderTheSeededFaultPlan_firesItThroughTheInjectorAndTheWorkersAuditStaysClean() {
    CapturedRun run = oneRound("--orders", "60", "--faults", "seed", "--timeout", "PT300S");

    assertThat(run.exit()).as(run.output()).isZero();
    assertThat(run.output())
        .contains("fault plan in each run")
        .contains("Service Bus drops every connection")
        .contains("Cosmos DB answers 429 (throttled)")
        .contains("audit (StateAudit, the store): lost 0, doubled 0; applied again (observed): 0")
        .doesNotContain("PROBLEM");
  }

  @Test
  void unknownFaultPlan_isRefused() {
    CapturedRun run = CapturedRun.of(BenchCommand::new, "--faults", "some");

    assertThat(run.exit()).isEqualTo(2);
  }

  @Test
  void outOfRangeOptions_areRefused() {
    assertThat(CapturedRun.of(BenchCommand::new, "--duplicate-ratio", "1.5").exit()).isEqualTo(2);
    assertThat(CapturedRun.of(BenchCommand::new, "--cosmos-latency", "-PT1S").exit()).isEqualTo(2);
    assertThat(CapturedRun.of(BenchCommand::new, "--latency-spread", "1.5").exit()).isEqualTo(2);
  }

  /** One measured round, no warm-up, a quarter of the orders sent twice. */
  private static CapturedRun oneRound(String... options) {
    List<String> args =
        new ArrayList<>(List.of("--duplicate-ratio", "0.25", "--rounds", "1", "--warm-up", "0"));
    args.addAll(List.of(options));
    return CapturedRun.of(BenchCommand::new, args.toArray(String[]::new));
  }
}
