package io.idemworker.telemetry;

import static io.idemworker.telemetry.Deliveries.order;
import static io.idemworker.telemetry.Deliveries.processed;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idemworker.core.DeliveryObserver;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class TelemetryExportTest {
  private static final String CONNECTION_STRING =
      "InstrumentationKey=00000000-0000-0000-0000-000000000000;"
          + "IngestionEndpoint=http://127.0.0.1:9/";

  @Test
  void neitherVariable_configuresNoExporter() {
    TelemetryExport export = TelemetryExport.choose(Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", " "));

    assertThat(export).isInstanceOf(TelemetryExport.None.class);
    try (OpenTelemetrySdk sdk = export.openTelemetry(Map.of())) {
      assertThat(sdk.getSdkTracerProvider().toString())
          .contains("spanProcessor=DropSpans")
          .doesNotContainIgnoringCase("exporter");
      assertThat(sdk.getSdkMeterProvider().toString())
          .contains("metricReaders=[]")
          .doesNotContainIgnoringCase("exporter");
    }
  }

  @Test
  void otlpEndpoint_configuresOtlpExportersForTracesAndMetrics() {
    Map<String, String> environment =
        Map.of(
            "OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318",
            "OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf");

    TelemetryExport export = TelemetryExport.choose(environment);

    assertThat(export)
        .isEqualTo(new TelemetryExport.Otlp("http://127.0.0.1:4318", "http/protobuf"));
    assertThat(export.describe()).isEqualTo("OTLP (http/protobuf) to http://127.0.0.1:4318");
    try (OpenTelemetrySdk sdk = export.openTelemetry(environment)) {
      assertThat(sdk.getSdkTracerProvider().toString())
          .contains("OtlpHttpSpanExporter")
          .contains("http://127.0.0.1:4318/v1/traces");
      assertThat(sdk.getSdkMeterProvider().toString())
          .contains("OtlpHttpMetricExporter")
          .contains("http://127.0.0.1:4318/v1/metrics");
    }
  }

  @Test
  void otlpWithoutProtocol_usesTheSdkDefaultGrpc() {
    Map<String, String> environment =
        Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4317");

    TelemetryExport export = TelemetryExport.choose(environment);

    assertThat(export).isEqualTo(new TelemetryExport.Otlp("http://127.0.0.1:4317", "grpc"));
    try (OpenTelemetrySdk sdk = export.openTelemetry(environment)) {
      assertThat(sdk.getSdkTracerProvider().toString()).contains("OtlpGrpcSpanExporter");
    }
  }

  @Test
  void connectionString_choosesAzureMonitor_overOtlp_andIsNeverShown() {
    TelemetryExport export =
        TelemetryExport.choose(
            Map.of(
                "APPLICATIONINSIGHTS_CONNECTION_STRING",
                CONNECTION_STRING,
                "OTEL_EXPORTER_OTLP_ENDPOINT",
                "http://127.0.0.1:4317"));

    assertThat(export).isInstanceOf(TelemetryExport.AzureMonitor.class);
    assertThat(export.toString()).doesNotContain("InstrumentationKey");
    assertThat(export.describe()).doesNotContain("InstrumentationKey");
  }

  @Test
  void invalidConnectionString_isRejectedNamingTheVariable() {
    TelemetryExport export =
        TelemetryExport.choose(Map.of("APPLICATIONINSIGHTS_CONNECTION_STRING", "nonsense"));

    assertThatThrownBy(() -> export.openTelemetry(Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("APPLICATIONINSIGHTS_CONNECTION_STRING")
        .hasMessageNotContaining("nonsense");
  }

  @Test
  void telemetryFromAnEmptyEnvironment_countsAndTracesInProcess_andCloses() {
    Telemetry telemetry = Telemetry.fromEnvironment(Map.of(), "orders", TelemetryNames.defaults());

    AtomicReference<SpanContext> span = new AtomicReference<>();
    DeliveryObserver inside =
        message -> (outcome, elapsed, settled) -> span.set(Span.current().getSpanContext());

    telemetry
        .observer(inside)
        .start(order("ord-1"))
        .finish(processed("ord-1"), Duration.ZERO, true);

    assertThat(telemetry.export()).isInstanceOf(TelemetryExport.None.class);
    assertThat(telemetry.counts().processed()).isEqualTo(1);
    assertThat(span.get().isValid()).as("spans have ids for the outcome log").isTrue();
    telemetry.close();
    telemetry.close();
  }
}
