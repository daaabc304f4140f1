package io.idemworker.proof.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class BoundModelTest {
  private final BoundModel azureLike =
      new BoundModel(Duration.ofMillis(3), Duration.ofMillis(5), Duration.ofMillis(3), 1);

  @Test
  void withoutPrefetch_everyCallWaitsOutReceiveStoreAndSettle() {
    assertThat(azureLike.bound(1, 0)).isCloseTo(1 / 0.011, within(1e-6));
    assertThat(azureLike.bound(16, 0)).isCloseTo(16 / 0.011, within(1e-6));
  }

  @Test
  void withPrefetch_theReceiveLeavesThePath_unlessTooFewCreditsAreOut() {
    assertThat(azureLike.bound(16, 32)).isCloseTo(16 / 0.008, within(1e-6));
    // One credit out, 3 ms a delivery: at most 333 a second arrive, below 16 / 8 ms.
    assertThat(azureLike.bound(16, 1)).isCloseTo(1 / 0.003, within(1e-6));
  }

  @Test
  void twoStoreTrips_countTheStoreTwice() {
    BoundModel duplicates =
        new BoundModel(Duration.ofMillis(3), Duration.ofMillis(5), Duration.ofMillis(3), 2);

    assertThat(duplicates.bound(4, 0)).isCloseTo(4 / 0.016, within(1e-6));
  }

  @Test
  void theCpuOfAMessage_lengthensEachCallsPath_butNotThePrefetchLimit() {
    Duration cpu = Duration.ofMillis(1);

    assertThat(azureLike.bound(1, 0, cpu)).isCloseTo(1 / 0.012, within(1e-6));
    assertThat(azureLike.bound(4, 8, cpu)).isCloseTo(4 / 0.009, within(1e-6));
    assertThat(azureLike.bound(16, 1, cpu)).isCloseTo(1 / 0.003, within(1e-6));
  }

  @Test
  void badArguments_areRefused() {
    assertThatThrownBy(() -> new BoundModel(Duration.ofMillis(-1), Duration.ZERO, Duration.ZERO, 1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> azureLike.bound(0, 0)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void cpuCap_isTheCoresOverTheRunAndEmulatorCpuPerMessage() {
    // 1.2 ms in the run process + 0.3 ms in the emulators on 2 cores: 2,000 / 1.5 msg/s.
    assertThat(BoundBench.cpuCap(2, 1.2, 0.3)).isCloseTo(2000 / 1.5, within(1e-6));
    assertThat(BoundBench.cpuCap(2, 0, 0)).isInfinite();
  }

  @Test
  void aCellIsLimitedByTheSmallerOfItsBoundAndItsCpuCap_andSaysWhenTheMachineWasShared() {
    assertThat(BoundBench.limit(91, 1300, 0.1, 2)).isEqualTo("latency");
    assertThat(BoundBench.limit(1455, 1300, 0.1, 2)).isEqualTo("CPU");
    assertThat(BoundBench.limit(1455, 1300, 0.5, 2)).isEqualTo("CPU (machine shared)");
  }

  @Test
  void theTarget_isMetAt85PercentOfTheBound_andAMissUnderACpuCapSaysSo() {
    assertThat(BoundBench.verdict(80, 91, 1300)).isEqualTo("met");
    assertThat(BoundBench.verdict(70, 91, 1300)).isEqualTo("NOT met");
    assertThat(BoundBench.verdict(1200, 1455, 1300)).startsWith("NOT met, CPU-limited here");
  }
}
