package io.idemworker.telemetry;

import com.azure.monitor.opentelemetry.autoconfigure.AzureMonitorAutoConfigure;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdkBuilder;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.ReadWriteSpan;
import io.opentelemetry.sdk.trace.ReadableSpan;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.SpanProcessor;
import java.net.MalformedURLException;
import java.net.URL;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Where telemetry goes, chosen from the environment:
 *
 * <ol>
 *   <li>{@code APPLICATIONINSIGHTS_CONNECTION_STRING} set → {@link AzureMonitor} (it wins when OTLP
 *       is configured too);
 *   <li>{@code OTEL_EXPORTER_OTLP_ENDPOINT} set → {@link Otlp};
 *   <li>neither → {@link None}: counts and spans stay in the process.
 * </ol>
 *
 * <p>Blank values count as unset. The choice is a plain value that describes itself without
 * secrets, so it can be logged at start-up and asserted in tests; {@link #openTelemetry} builds the
 * SDK for it.
 */
public sealed interface TelemetryExport {

  /** Names the Azure Monitor connection string variable. */
  String CONNECTION_STRING = "APPLICATIONINSIGHTS_CONNECTION_STRING";

  /** Names the OTLP endpoint variable. */
  String OTLP_ENDPOINT = "OTEL_EXPORTER_OTLP_ENDPOINT";

  /** The service name when {@code OTEL_SERVICE_NAME} is not set. */
  String DEFAULT_SERVICE_NAME = "idemworker";

  /**
   * Chooses the export from the environment.
   *
   * @param environment the environment variables
   * @return the export
   */
  static TelemetryExport choose(Map<String, String> environment) {
    Optional<String> connectionString = value(environment, CONNECTION_STRING);
    if (connectionString.isPresent()) {
      return new AzureMonitor(connectionString.get());
    }
    Optional<String> endpoint = value(environment, OTLP_ENDPOINT);
    if (endpoint.isPresent()) {
      return new Otlp(
          endpoint.get(), value(environment, "OTEL_EXPORTER_OTLP_PROTOCOL").orElse("grpc"));
    }
    return new None();
  }

  /**
   * Checks the export variables without building anything, for the start-up check that reports
   * every bad variable at once: a malformed {@value #CONNECTION_STRING} (its value never shown) and
   * an {@value #OTLP_ENDPOINT} that the OpenTelemetry SDK would refuse.
   *
   * @param environment the environment variables
   * @return one line per bad variable, naming it; empty when both are usable or unset
   */
  static List<String> problems(Map<String, String> environment) {
    List<String> problems = new ArrayList<>();
    value(environment, CONNECTION_STRING)
        .filter(cs -> !isUsableConnectionString(cs))
        .ifPresent(
            cs ->
                problems.add(
                    CONNECTION_STRING
                        + ": must be an Application Insights connection string with"
                        + " InstrumentationKey=… and, if given, an http or https IngestionEndpoint"
                        + " (value not shown)"));
    String protocol = value(environment, "OTEL_EXPORTER_OTLP_PROTOCOL").orElse("grpc");
    value(environment, OTLP_ENDPOINT)
        .filter(endpoint -> !isOtlpEndpoint(endpoint, protocol))
        .ifPresent(
            endpoint ->
                problems.add(
                    OTLP_ENDPOINT
                        + ": must be an http or https URL without query or fragment (and, for grpc,"
                        + " without a path) such as http://localhost:4317 (value not shown: it may"
                        + " carry credentials)"));
    return problems;
  }

  private static boolean isUsableConnectionString(String connectionString) {
    try {
      // The library's own parser: customizing a builder that is never built has no effect.
      AzureMonitorAutoConfigure.customize(
          AutoConfiguredOpenTelemetrySdk.builder().disableShutdownHook(), connectionString);
      return true;
    } catch (RuntimeException e) {
      return false;
    }
  }

  /** The rules the OpenTelemetry SDK applies when it builds the exporter, checked up front. */
  private static boolean isOtlpEndpoint(String endpoint, String protocol) {
    try {
      URL url = new URL(endpoint);
      String path = url.getPath();
      return (url.getProtocol().equals("http") || url.getProtocol().equals("https"))
          && !url.getHost().isEmpty()
          && url.getPort() <= 65_535
          && url.getQuery() == null
          && url.getRef() == null
          && (!protocol.equals("grpc") || path.isEmpty() || path.equals("/"));
    } catch (MalformedURLException e) {
      return false;
    }
  }

  /**
   * Builds an SDK that exports here. The caller owns it and must shut it down. Fails with {@link
   * IllegalArgumentException} naming the variable when a value cannot be used.
   *
   * @param environment the environment variables. For OTLP and Azure Monitor its {@code OTEL_*}
   *     entries configure the SDK's autoconfiguration (protocol, headers, timeouts, resource
   *     attributes, export interval) and win over the process's own environment and system
   *     properties, which that autoconfiguration also reads for anything the map leaves out; for
   *     none only {@code OTEL_SERVICE_NAME} is read
   * @return the SDK; no global state is set and no shutdown hook is registered
   */
  OpenTelemetrySdk openTelemetry(Map<String, String> environment);

  /**
   * One line for the start-up log; never carries a secret.
   *
   * @return the description
   */
  String describe();

  /** No exporter: spans get ids (for log correlation) and are dropped; metrics are not read. */
  record None() implements TelemetryExport {
    @Override
    public OpenTelemetrySdk openTelemetry(Map<String, String> environment) {
      Resource resource =
          Resource.getDefault()
              .merge(
                  Resource.create(
                      Attributes.of(
                          AttributeKey.stringKey("service.name"), serviceName(environment))));
      return OpenTelemetrySdk.builder()
          .setTracerProvider(
              SdkTracerProvider.builder()
                  .setResource(resource)
                  .addSpanProcessor(DropSpans.INSTANCE)
                  .build())
          .setMeterProvider(SdkMeterProvider.builder().setResource(resource).build())
          .build();
    }

    @Override
    public String describe() {
      return "none (in-process counts only)";
    }

    /**
     * Ends spans without exporting them. Without any processor the SDK hands out a no-op tracer
     * whose spans have no ids, and the outcome log would lose its trace id.
     */
    private enum DropSpans implements SpanProcessor {
      INSTANCE;

      @Override
      public void onStart(Context parentContext, ReadWriteSpan span) {}

      @Override
      public boolean isStartRequired() {
        return false;
      }

      @Override
      public void onEnd(ReadableSpan span) {}

      @Override
      public boolean isEndRequired() {
        return false;
      }

      @Override
      public String toString() {
        return "DropSpans";
      }
    }
  }

  /**
   * Traces and metrics to an OTLP collector, through the SDK's autoconfiguration so that every
   * standard {@code OTEL_EXPORTER_OTLP_*} variable applies. Logs are not exported: the outcome log
   * goes to stdout.
   *
   * @param endpoint the collector endpoint, e.g. {@code http://localhost:4317}
   * @param protocol {@code grpc} (the SDK's default) or {@code http/protobuf}
   */
  record Otlp(String endpoint, String protocol) implements TelemetryExport {
    /** Requires both values. */
    public Otlp {
      Objects.requireNonNull(endpoint, "endpoint");
      Objects.requireNonNull(protocol, "protocol");
    }

    @Override
    public OpenTelemetrySdk openTelemetry(Map<String, String> environment) {
      Map<String, String> forced = new HashMap<>();
      forced.put("otel.traces.exporter", "otlp");
      forced.put("otel.metrics.exporter", "otlp");
      forced.put("otel.logs.exporter", "none");
      return autoConfigured(environment, forced).build().getOpenTelemetrySdk();
    }

    @Override
    public String describe() {
      return "OTLP (" + protocol + ") to " + endpoint;
    }
  }

  /**
   * Traces and metrics to Application Insights through {@code
   * azure-monitor-opentelemetry-autoconfigure}.
   *
   * @param connectionString the Application Insights connection string; {@link #toString()} hides
   *     it
   */
  record AzureMonitor(String connectionString) implements TelemetryExport {
    /** Requires the connection string. */
    public AzureMonitor {
      Objects.requireNonNull(connectionString, "connectionString");
    }

    @Override
    public OpenTelemetrySdk openTelemetry(Map<String, String> environment) {
      AutoConfiguredOpenTelemetrySdkBuilder builder = autoConfigured(environment, Map.of());
      try {
        AzureMonitorAutoConfigure.customize(builder, connectionString);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            CONNECTION_STRING + " is not a valid Application Insights connection string", e);
      }
      return builder.build().getOpenTelemetrySdk();
    }

    @Override
    public String describe() {
      return "Azure Monitor (Application Insights)";
    }

    @Override
    public String toString() {
      return "AzureMonitor[connectionString=<redacted>]";
    }
  }

  private static AutoConfiguredOpenTelemetrySdkBuilder autoConfigured(
      Map<String, String> environment, Map<String, String> forced) {
    Map<String, String> properties = new HashMap<>();
    properties.put("otel.service.name", DEFAULT_SERVICE_NAME);
    environment.forEach(
        (name, value) -> {
          if (name.startsWith("OTEL_") && value != null && !value.isBlank()) {
            properties.put(name.toLowerCase(Locale.ROOT).replace('_', '.'), value);
          }
        });
    properties.putAll(forced);
    // Overrides, not defaults: the given map must win over the process's own environment, so
    // that what the caller passed is what is configured.
    return AutoConfiguredOpenTelemetrySdk.builder()
        .addPropertiesCustomizer(config -> properties)
        .disableShutdownHook();
  }

  private static String serviceName(Map<String, String> environment) {
    return value(environment, "OTEL_SERVICE_NAME").orElse(DEFAULT_SERVICE_NAME);
  }

  private static Optional<String> value(Map<String, String> environment, String name) {
    return Optional.ofNullable(environment.get(name)).map(String::strip).filter(v -> !v.isEmpty());
  }
}
