package io.idemworker.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import io.idemworker.servicebus.sessions.SessionListener;
import io.idemworker.servicebus.sessions.SessionListener.Event;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.LongPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import java.util.Collection;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Session mode's events, read back from the worker's meter as an exporter would see them. */
class SessionMetricsTest {
  private final InMemoryMetricReader reader = InMemoryMetricReader.create();
  private final OpenTelemetrySdk sdk =
      OpenTelemetrySdk.builder()
          .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(reader).build())
          .build();
  private final Telemetry telemetry =
      new Telemetry(sdk, "orders", io.idemworker.app.OrderTelemetry.NAMES);

  @AfterEach
  void shutDown() {
    telemetry.close();
    sdk.close();
  }

  @Test
  void everySessionEvent_isCountedOnItsOwnCounter() {
    SessionListener metrics = telemetry.sessionMetrics();
    Map<Event, Integer> times =
        Map.of(
            Event.DEFERRED, 5,
            Event.APPLIED_AFTER_WAITING, 4,
            Event.GAP_GIVEN_UP, 1,
            Event.PARKED, 2,
            Event.PARKED_BEHIND, 3,
            Event.RELEASED, 1,
            Event.PARKING_EXPIRED, 1,
            Event.LOCK_LOST, 2);
    assertThat(times).containsOnlyKeys(Event.values());
    times.forEach(
        (event, n) -> {
          for (int i = 0; i < n; i++) {
            metrics.happened(event);
          }
        });

    Collection<MetricData> collected = reader.collectAllMetrics();

    assertThat(sum(collected, "idemworker.sessions.messages.deferred")).isEqualTo(5);
    assertThat(sum(collected, "idemworker.sessions.messages.applied_after_waiting")).isEqualTo(4);
    assertThat(sum(collected, "idemworker.sessions.gaps.given_up")).isEqualTo(1);
    assertThat(sum(collected, "idemworker.sessions.orders.parked")).isEqualTo(2);
    assertThat(sum(collected, "idemworker.sessions.messages.parked")).isEqualTo(3);
    assertThat(sum(collected, "idemworker.sessions.orders.released")).isEqualTo(1);
    assertThat(sum(collected, "idemworker.sessions.orders.parking_expired")).isEqualTo(1);
    assertThat(sum(collected, "idemworker.sessions.locks.lost")).isEqualTo(2);
    assertThat(
            collected.stream()
                .map(MetricData::getName)
                .filter(name -> name.startsWith("idemworker.sessions.")))
        .hasSize(Event.values().length);
  }

  private static long sum(Collection<MetricData> metrics, String name) {
    MetricData metric =
        metrics.stream()
            .filter(m -> m.getName().equals(name))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no metric " + name + " in " + metrics));
    assertThat(metric.getLongSumData().isMonotonic()).isTrue();
    return metric.getLongSumData().getPoints().stream().mapToLong(LongPointData::getValue).sum();
  }
}
