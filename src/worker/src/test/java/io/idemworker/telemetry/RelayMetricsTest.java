package io.idemworker.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.cosmos.CosmosContainer;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.app.Wiring;
import io.idemworker.cosmos.CosmosContainers;
import io.idemworker.emulator.junit.AzureEmulators;
import io.idemworker.emulator.junit.Emulators;
import io.idemworker.orders.OrderDocumentIds;
import io.idemworker.relay.OutboxRelay;
import io.idemworker.relay.RelayListener;
import io.idemworker.relay.RelaySettings;
import io.idemworker.servicebus.WorkerStatus;
import io.idemworker.testing.EmulatorClients;
import io.idemworker.testing.MutableClock;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.DoublePointData;
import io.opentelemetry.sdk.metrics.data.LongPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import java.time.Duration;
import java.util.Collection;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

@AzureEmulators
class RelayMetricsTest {
  static Emulators azure; // injected by @AzureEmulators
  private final InMemoryMetricReader reader = InMemoryMetricReader.create();
  private final OpenTelemetrySdk sdk =
      OpenTelemetrySdk.builder()
          .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(reader).build())
          .build();
  private final Telemetry telemetry =
      new Telemetry(sdk, "orders", io.idemworker.app.OrderTelemetry.NAMES);
  private final RelayMetrics metrics = telemetry.relayMetrics();

  @AfterEach
  void shutDown() {
    metrics.close();
    telemetry.close();
    sdk.close();
  }

  @Test
  void publishedRepublishedAndFailures_areCountedByTypeAndReason() {
    metrics.published("OrderAccepted", 3, 1);
    metrics.published("PaymentCaptured", 2, 0);
    metrics.publishFailed("transient", 4);
    metrics.published("no such type!", 1, 0);

    Collection<MetricData> collected = reader.collectAllMetrics();

    assertThat(sum(collected, "idemworker.relay.events.published", type("OrderAccepted")))
        .isEqualTo(3);
    assertThat(sum(collected, "idemworker.relay.events.published", type("PaymentCaptured")))
        .isEqualTo(2);
    assertThat(sum(collected, "idemworker.relay.events.published", type("other"))).isEqualTo(1);
    assertThat(sum(collected, "idemworker.relay.events.republished", type("OrderAccepted")))
        .isEqualTo(1);
    assertThat(
            sum(
                collected,
                "idemworker.relay.publish.failures",
                Attributes.of(AttributeKey.stringKey("reason"), "transient")))
        .isEqualTo(4);
  }

  @Test
  void missingTopic_pausesTheRelay_countsTheFailure_andTheLagGrowsWithTheClock() throws Exception {
    // given a pending event and a relay whose topic does not exist
    MutableClock clock = new MutableClock();
    CosmosContainer container =
        CosmosContainers.ensureExists(
            EmulatorClients.cosmosClient(azure),
            "relay-metrics",
            "c-" + UUID.randomUUID(),
            OrderDocumentIds.PARTITION_KEY_PATH);
    ObjectNode event = JsonNodeFactory.instance.objectNode();
    event.put("id", UUID.randomUUID().toString());
    event.put("orderId", "ord-1");
    event.put("type", "outbox");
    event.put("status", "pending");
    event.put("eventType", "OrderAccepted");
    event.put("createdAt", clock.instant().toString());
    event.putObject("payload").put("orderId", "ord-1");
    container.createItem(event);
    // Two failures: the listener hears the first inside its cycle, before the cycle sets the
    // status; by the second, the first cycle has ended and set it (only a success clears it).
    CountDownLatch failed = new CountDownLatch(2);
    RelayListener listener =
        new RelayListener() {
          @Override
          public void published(String eventType, int count, int republished) {
            metrics.published(eventType, count, republished);
          }

          @Override
          public void publishFailed(String reason, int count) {
            metrics.publishFailed(reason, count);
            failed.countDown();
          }
        };
    ScheduledExecutorService executor = Wiring.relayExecutor();
    String topic = "missing-" + UUID.randomUUID().toString().substring(0, 8);
    OutboxRelay relay =
        OutboxRelay.create(
            container,
            EmulatorClients.serviceBusClient(azure).sender().topicName(topic).buildClient(),
            new RelaySettings(
                topic,
                "relay-a",
                Duration.ofSeconds(30),
                Duration.ofDays(7),
                10,
                Duration.ofSeconds(1)),
            listener,
            clock,
            executor);
    metrics.observe(relay);
    try {
      // when it runs and the clock moves on
      relay.start();
      assertThat(failed.await(60, TimeUnit.SECONDS)).isTrue();
      clock.advance(Duration.ofSeconds(45));
      Collection<MetricData> collected = reader.collectAllMetrics();

      // then it reports the misconfiguration, the lag of the waiting event, and the lease
      assertThat(relay.status().state()).isEqualTo(WorkerStatus.State.PAUSED);
      assertThat(relay.status().reason())
          .hasValueSatisfying(r -> assertThat(r).contains("publishing failed"));
      assertThat(
              sum(
                  collected,
                  "idemworker.relay.publish.failures",
                  Attributes.of(AttributeKey.stringKey("reason"), "misconfiguration")))
          .isPositive();
      assertThat(doubleGauge(collected, "idemworker.relay.lag")).isGreaterThanOrEqualTo(45.0);
      assertThat(longGauge(collected, "idemworker.relay.lease.held")).isEqualTo(1);
    } finally {
      relay.close();
      executor.shutdownNow();
    }
  }

  private static Attributes type(String eventType) {
    return Attributes.of(AttributeKey.stringKey("event_type"), eventType);
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

  private static double doubleGauge(Collection<MetricData> metrics, String name) {
    return metric(metrics, name).getDoubleGaugeData().getPoints().stream()
        .mapToDouble(DoublePointData::getValue)
        .sum();
  }

  private static long longGauge(Collection<MetricData> metrics, String name) {
    return metric(metrics, name).getLongGaugeData().getPoints().stream()
        .mapToLong(LongPointData::getValue)
        .sum();
  }
}
