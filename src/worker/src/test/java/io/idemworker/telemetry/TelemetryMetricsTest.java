package io.idemworker.telemetry;

import static io.idemworker.telemetry.Deliveries.deadLettered;
import static io.idemworker.telemetry.Deliveries.duplicate;
import static io.idemworker.telemetry.Deliveries.order;
import static io.idemworker.telemetry.Deliveries.processed;
import static io.idemworker.telemetry.Deliveries.retried;
import static org.assertj.core.api.Assertions.assertThat;

import io.idemworker.core.DeadLetterReason;
import io.idemworker.core.DeliveryObserver;
import io.idemworker.core.DuplicateSource;
import io.idemworker.core.IdempotencyKey;
import io.idemworker.core.Outcome;
import io.idemworker.core.Outcome.RetryCause;
import io.idemworker.cosmos.StoreCallListener;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.HistogramPointData;
import io.opentelemetry.sdk.metrics.data.LongPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class TelemetryMetricsTest {
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
  void mixedOutcomes_areCountedByOutcomeAndReason_andBalanceToZero() {
    DeliveryObserver observer = telemetry.observer();
    List<Outcome> outcomes = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      outcomes.add(processed("ord-p" + i));
    }
    for (int i = 0; i < 3; i++) {
      outcomes.add(duplicate("ord-d" + i));
    }
    outcomes.add(deadLettered("ord-x1", DeadLetterReason.SCHEMA_VIOLATION));
    outcomes.add(deadLettered("ord-x2", DeadLetterReason.SCHEMA_VIOLATION));
    outcomes.add(deadLettered("ord-x3", DeadLetterReason.IDEMPOTENCY_CONFLICT));
    outcomes.add(retried("ord-r1", RetryCause.TRANSIENT));
    outcomes.add(retried("ord-r2", RetryCause.MISCONFIGURATION));

    for (Outcome outcome : outcomes) {
      String id = outcome.knownEntityId().orElseThrow();
      observer.start(order(id)).finish(outcome, Duration.ofMillis(20), true);
    }

    Collection<MetricData> metrics = reader.collectAllMetrics();
    assertThat(sum(metrics, "idemworker.messages.received", Attributes.empty())).isEqualTo(13);
    assertThat(outcomeCount(metrics, "processed", "none")).isEqualTo(5);
    assertThat(outcomeCount(metrics, "duplicate", "none")).isEqualTo(3);
    assertThat(outcomeCount(metrics, "dead_lettered", "SchemaViolation")).isEqualTo(2);
    assertThat(outcomeCount(metrics, "dead_lettered", "IdempotencyConflict")).isEqualTo(1);
    assertThat(outcomeCount(metrics, "retried", "transient")).isEqualTo(1);
    assertThat(outcomeCount(metrics, "retried", "misconfiguration")).isEqualTo(1);
    assertThat(gauge(metrics, "idemworker.messages.unbalanced")).isZero();
    assertThat(histogramCount(metrics, "idemworker.message.duration", "processed")).isEqualTo(5);
    assertThat(metric(metrics, "idemworker.message.duration").getUnit()).isEqualTo("s");

    TelemetryCounts counts = telemetry.counts();
    assertThat(counts.received()).isEqualTo(13);
    assertThat(counts.processed()).isEqualTo(5);
    assertThat(counts.duplicates()).isEqualTo(3);
    assertThat(counts.deadLettered())
        .containsExactly(Map.entry("IdempotencyConflict", 1L), Map.entry("SchemaViolation", 2L));
    assertThat(counts.retried())
        .containsExactly(Map.entry("misconfiguration", 1L), Map.entry("transient", 1L));
    assertThat(counts.finished()).isEqualTo(13);
    assertThat(counts.unbalanced()).isZero();
  }

  @Test
  void duplicates_areCountedBySource_asADimensionOfTheOutcomeMetric() {
    DeliveryObserver observer = telemetry.observer();
    List<DuplicateSource> sources =
        List.of(
            DuplicateSource.REDELIVERY,
            DuplicateSource.REDELIVERY,
            DuplicateSource.RESEND,
            DuplicateSource.CONCURRENT,
            DuplicateSource.RESUBMIT,
            DuplicateSource.REPUBLISH);

    for (DuplicateSource source : sources) {
      observer
          .start(order("ord-1"))
          .finish(
              new Outcome.Duplicate(new IdempotencyKey("ord-1"), "ord-1", source),
              Duration.ZERO,
              true);
    }
    observer.start(order("ord-2")).finish(processed("ord-2"), Duration.ZERO, true);

    Collection<MetricData> metrics = reader.collectAllMetrics();
    assertThat(outcomeCount(metrics, "duplicate", "none", "redelivery")).isEqualTo(2);
    for (String source : List.of("resend", "concurrent", "resubmit", "republish")) {
      assertThat(outcomeCount(metrics, "duplicate", "none", source)).as(source).isEqualTo(1);
    }
    assertThat(outcomeCount(metrics, "processed", "none", "none")).isEqualTo(1);
    assertThat(telemetry.counts().duplicatesBySource())
        .containsExactly(
            Map.entry("concurrent", 1L),
            Map.entry("redelivery", 2L),
            Map.entry("republish", 1L),
            Map.entry("resend", 1L),
            Map.entry("resubmit", 1L));
  }

  @Test
  void unbalancedGauge_equalsDeliveriesStartedButNotFinished() throws Exception {
    DeliveryObserver observer = telemetry.observer();
    int inFlight = 4;
    CountDownLatch started = new CountDownLatch(inFlight);
    CountDownLatch release = new CountDownLatch(1);
    ExecutorService workers = Executors.newFixedThreadPool(inFlight);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int i = 0; i < inFlight; i++) {
        String id = "ord-" + i;
        done.add(
            workers.submit(
                () -> {
                  DeliveryObserver.Observation observation = observer.start(order(id));
                  started.countDown();
                  release.await(10, TimeUnit.SECONDS);
                  observation.finish(processed(id), Duration.ofMillis(5), true);
                  return null;
                }));
      }
      assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();

      assertThat(gauge(reader.collectAllMetrics(), "idemworker.messages.unbalanced"))
          .isEqualTo(inFlight);
      assertThat(telemetry.counts().unbalanced()).isEqualTo(inFlight);

      release.countDown();
      for (Future<?> future : done) {
        future.get(10, TimeUnit.SECONDS);
      }
      assertThat(gauge(reader.collectAllMetrics(), "idemworker.messages.unbalanced")).isZero();
      assertThat(telemetry.counts().processed()).isEqualTo(inFlight);
    } finally {
      workers.shutdownNow();
    }
  }

  @Test
  void failedSettlement_isCountedBesideItsOutcome() {
    telemetry.observer().start(order("ord-1")).finish(processed("ord-1"), Duration.ZERO, false);

    Collection<MetricData> metrics = reader.collectAllMetrics();
    assertThat(
            sum(
                metrics,
                "idemworker.settlements.failed",
                Attributes.of(AttributeKey.stringKey("outcome"), "processed")))
        .isEqualTo(1);
    assertThat(outcomeCount(metrics, "processed", "none")).isEqualTo(1);
    assertThat(telemetry.counts().settlementFailures()).isEqualTo(1);
  }

  @Test
  void cosmosCalls_areCountedByOperationAndStatus_withTheirRequestCharge() {
    StoreCallListener listener = telemetry.storeListener();

    listener.onCall("batch", 200, 10.5, Duration.ofMillis(8));
    listener.onCall("batch", 409, 1.25, Duration.ofMillis(3));
    listener.onCall("read", 200, 1.0, Duration.ofMillis(2));

    Collection<MetricData> metrics = reader.collectAllMetrics();
    assertThat(sum(metrics, "idemworker.cosmos.calls", cosmos("batch", "200"))).isEqualTo(1);
    assertThat(sum(metrics, "idemworker.cosmos.calls", cosmos("batch", "409"))).isEqualTo(1);
    assertThat(sum(metrics, "idemworker.cosmos.calls", cosmos("read", "200"))).isEqualTo(1);
    HistogramPointData batchCharge =
        histogramPoint(
            metrics,
            "idemworker.cosmos.request_charge",
            Attributes.of(AttributeKey.stringKey("operation"), "batch"));
    assertThat(batchCharge.getCount()).isEqualTo(2);
    assertThat(batchCharge.getSum()).isEqualTo(11.75);
    TelemetryCounts counts = telemetry.counts();
    assertThat(counts.cosmosCalls()).containsExactly(Map.entry("batch", 2L), Map.entry("read", 1L));
    assertThat(counts.requestCharge()).isEqualTo(12.75);
  }

  private static Attributes cosmos(String operation, String status) {
    return Attributes.of(
        AttributeKey.stringKey("operation"),
        operation,
        AttributeKey.stringKey("status_code"),
        status);
  }

  private static long outcomeCount(Collection<MetricData> metrics, String outcome, String reason) {
    return outcomeCount(metrics, outcome, reason, outcome.equals("duplicate") ? "unknown" : "none");
  }

  private static long outcomeCount(
      Collection<MetricData> metrics, String outcome, String reason, String duplicateSource) {
    return sum(
        metrics,
        "idemworker.messages.outcomes",
        Attributes.of(
            AttributeKey.stringKey("outcome"),
            outcome,
            AttributeKey.stringKey("reason"),
            reason,
            AttributeKey.stringKey("message_type"),
            "OrderPlaced",
            AttributeKey.stringKey("duplicate_source"),
            duplicateSource));
  }

  private static MetricData metric(Collection<MetricData> metrics, String name) {
    return metrics.stream()
        .filter(m -> m.getName().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no metric " + name + " in " + metrics));
  }

  private static long sum(Collection<MetricData> metrics, String name, Attributes attributes) {
    return metric(metrics, name).getLongSumData().getPoints().stream()
        .filter(p -> p.getAttributes().equals(attributes))
        .mapToLong(LongPointData::getValue)
        .sum();
  }

  private static long gauge(Collection<MetricData> metrics, String name) {
    return metric(metrics, name).getLongGaugeData().getPoints().stream()
        .mapToLong(LongPointData::getValue)
        .sum();
  }

  private static long histogramCount(Collection<MetricData> metrics, String name, String outcome) {
    return histogramPoint(metrics, name, Attributes.of(AttributeKey.stringKey("outcome"), outcome))
        .getCount();
  }

  private static HistogramPointData histogramPoint(
      Collection<MetricData> metrics, String name, Attributes attributes) {
    return metric(metrics, name).getHistogramData().getPoints().stream()
        .filter(p -> p.getAttributes().equals(attributes))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no point " + attributes + " for " + name));
  }
}
