package io.idemworker.proof;

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
  void badArguments_areRefused() {
    assertThatThrownBy(() -> new BoundModel(Duration.ofMillis(-1), Duration.ZERO, Duration.ZERO, 1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> azureLike.bound(0, 0)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aCellBelowTheTarget_isCalledCpuLimitedOnlyWhenTheCoresAreBusy() {
    assertThat(BoundBench.limit(0.9, 0.2, 2, 0.5)).isEqualTo("latency");
    assertThat(BoundBench.limit(0.5, 1.8, 2, 0.5)).isEqualTo("CPU");
    assertThat(BoundBench.limit(0.5, 0.4, 2, 6.0)).isEqualTo("CPU (machine shared)");
    assertThat(BoundBench.limit(0.5, 0.4, 2, 0.5)).startsWith("neither");
  }
}
