package io.idemworker.telemetry;

import static io.idemworker.telemetry.Deliveries.deadLettered;
import static io.idemworker.telemetry.Deliveries.order;
import static io.idemworker.telemetry.Deliveries.processed;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import io.idemworker.core.DeadLetterReason;
import io.idemworker.core.DeliveryObserver;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class TelemetryTracingTest {
  private static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
  private static final String PARENT_SPAN_ID = "00f067aa0ba902b7";
  private static final String TRACEPARENT = "00-" + TRACE_ID + "-" + PARENT_SPAN_ID + "-01";

  private final InMemorySpanExporter spans = InMemorySpanExporter.create();
  private final OpenTelemetrySdk sdk =
      OpenTelemetrySdk.builder()
          .setTracerProvider(
              SdkTracerProvider.builder()
                  .addSpanProcessor(SimpleSpanProcessor.create(spans))
                  .build())
          .build();
  private final Telemetry telemetry =
      new Telemetry(sdk, "orders", io.idemworker.app.OrderTelemetry.NAMES);

  @AfterEach
  void shutDown() {
    telemetry.close();
    sdk.close();
  }

  @Test
  void traceparentProperty_isContinuedByAConsumerSpan() {
    SpanData span = process(Map.of("traceparent", TRACEPARENT, "tracestate", "vendor=x"));

    assertThat(span.getTraceId()).isEqualTo(TRACE_ID);
    assertThat(span.getParentSpanId()).isEqualTo(PARENT_SPAN_ID);
    assertThat(span.getParentSpanContext().isRemote()).isTrue();
    assertThat(span.getSpanContext().getTraceState().get("vendor")).isEqualTo("x");
    assertThat(span.getKind()).isEqualTo(SpanKind.CONSUMER);
    assertThat(span.getName()).isEqualTo("process orders");
  }

  @Test
  void diagnosticIdProperty_isContinuedLikeATraceparent() {
    SpanData span = process(Map.of("Diagnostic-Id", TRACEPARENT));

    assertThat(span.getTraceId()).isEqualTo(TRACE_ID);
    assertThat(span.getParentSpanId()).isEqualTo(PARENT_SPAN_ID);
  }

  @Test
  void messageWithoutTraceContext_startsANewTrace() {
    SpanData span = process(Map.of("unrelated", "value"));

    assertThat(span.getParentSpanContext().isValid()).isFalse();
    assertThat(span.getTraceId()).isNotEqualTo(TRACE_ID);
    assertThat(span.getSpanContext().isValid()).isTrue();
  }

  @Test
  void malformedTraceparent_startsANewTraceInsteadOfFailing() {
    SpanData span = process(Map.of("traceparent", "not-a-traceparent"));

    assertThat(span.getParentSpanContext().isValid()).isFalse();
  }

  @Test
  void processedSpan_carriesMessagingAndOutcomeAttributes() {
    SpanData span = process(Map.of());

    assertThat(span.getAttributes().asMap())
        .containsEntry(AttributeKey.stringKey("messaging.system"), "servicebus")
        .containsEntry(AttributeKey.stringKey("messaging.destination.name"), "orders")
        .containsEntry(AttributeKey.stringKey("messaging.message.id"), "ord-1")
        .containsEntry(AttributeKey.stringKey("messaging.message.conversation_id"), "corr-ord-1")
        .containsEntry(AttributeKey.longKey("messaging.servicebus.message.delivery_count"), 2L)
        .containsEntry(AttributeKey.stringKey("idemworker.outcome"), "processed")
        .containsEntry(AttributeKey.stringKey("idemworker.reason"), "none")
        .containsEntry(AttributeKey.stringKey("idemworker.order_id"), "ord-1")
        .containsEntry(AttributeKey.booleanKey("idemworker.settled"), true);
    assertThat(span.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
  }

  @Test
  void deadLetteredSpan_hasErrorStatusWithTheReasonCode() {
    telemetry
        .observer()
        .start(order("ord-9"))
        .finish(deadLettered("ord-9", DeadLetterReason.SCHEMA_VIOLATION), Duration.ZERO, true);

    SpanData span = spans.getFinishedSpanItems().get(0);
    assertThat(span.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(span.getStatus().getDescription()).isEqualTo("SchemaViolation");
    assertThat(span.getAttributes().get(AttributeKey.stringKey("idemworker.outcome")))
        .isEqualTo("dead_lettered");
  }

  @Test
  void insideObserver_runsWhileTheSpanIsCurrent_andTheSpanIsNotCurrentAfterwards() {
    AtomicReference<SpanContext> atStart = new AtomicReference<>();
    AtomicReference<SpanContext> atFinish = new AtomicReference<>();
    DeliveryObserver inside =
        message -> {
          atStart.set(Span.current().getSpanContext());
          return (outcome, elapsed, settled) -> atFinish.set(Span.current().getSpanContext());
        };

    telemetry
        .observer(inside)
        .start(order("ord-1", Map.of("traceparent", TRACEPARENT)))
        .finish(processed("ord-1"), Duration.ZERO, true);

    SpanData span = spans.getFinishedSpanItems().get(0);
    assertThat(atStart.get()).isEqualTo(span.getSpanContext());
    assertThat(atFinish.get()).isEqualTo(span.getSpanContext());
    assertThat(Span.current().getSpanContext().isValid()).isFalse();
  }

  @Test
  void finishOnAnotherThread_endsTheSpan_withoutDisturbingThatThreadsContext() throws Exception {
    ExecutorService starter = Executors.newSingleThreadExecutor();
    ExecutorService finisher = Executors.newSingleThreadExecutor();
    try {
      DeliveryObserver.Observation observation =
          starter.submit(() -> telemetry.observer().start(order("ord-1"))).get(10, SECONDS);

      SpanContext afterFinish =
          finisher
              .submit(
                  () -> {
                    observation.finish(processed("ord-1"), Duration.ZERO, true);
                    return Span.current().getSpanContext();
                  })
              .get(10, SECONDS);

      assertThat(spans.getFinishedSpanItems()).hasSize(1);
      assertThat(afterFinish.isValid()).isFalse();
      assertThat(telemetry.counts().unbalanced()).isZero();
    } finally {
      starter.shutdownNow();
      finisher.shutdownNow();
    }
  }

  private SpanData process(Map<String, Object> properties) {
    telemetry
        .observer()
        .start(order("ord-1", properties))
        .finish(processed("ord-1"), Duration.ofMillis(3), true);
    assertThat(spans.getFinishedSpanItems()).hasSize(1);
    return spans.getFinishedSpanItems().get(0);
  }
}
