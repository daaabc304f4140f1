package io.idemworker.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RelaySettingsTest {
  private static RelaySettings withEventTtl(Duration eventTtl) {
    return new RelaySettings(
        "order-events", "relay-a", Duration.ofSeconds(30), eventTtl, 100, Duration.ofSeconds(1));
  }

  @Test
  void lagAlarm_isHalfTheEventTtl() {
    assertThat(withEventTtl(Duration.ofDays(7)).lagAlarm()).isEqualTo(Duration.ofHours(84));
  }

  @Test
  void eventTtlBelowOneSecond_isRefusedNamingIt() {
    assertThatThrownBy(() -> withEventTtl(Duration.ofMillis(500)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("eventTtl must be from 1 s to 2147483647 s, was PT0.5S");
  }
}
