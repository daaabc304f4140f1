package io.idemworker.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RelaySettingsTest {
  private static RelaySettings withMarkParallelism(int markParallelism) {
    return new RelaySettings(
        "order-events",
        "relay-a",
        Duration.ofSeconds(30),
        Duration.ofDays(7),
        100,
        Duration.ofSeconds(1),
        markParallelism);
  }

  @Test
  void markParallelismFromOneToTheMaximum_isAccepted() {
    assertThat(withMarkParallelism(1).markParallelism()).isEqualTo(1);
    assertThat(withMarkParallelism(RelaySettings.MAX_MARK_PARALLELISM).markParallelism())
        .isEqualTo(RelaySettings.MAX_MARK_PARALLELISM);
  }

  @Test
  void markParallelismOutsideItsRange_isRefusedNamingIt() {
    assertThatThrownBy(() -> withMarkParallelism(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("markParallelism must be from 1 to 64, was 0");
    assertThatThrownBy(() -> withMarkParallelism(RelaySettings.MAX_MARK_PARALLELISM + 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("markParallelism must be from 1 to 64, was 65");
  }
}
