package io.idemworker.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.idemworker.azure.MessageType;
import io.idemworker.emulator.junit.AzureEmulators;
import io.idemworker.emulator.junit.Emulators;
import io.idemworker.spring.boot.IdemworkerWorkerTest.ParcelRegistered;
import io.idemworker.spring.boot.IdemworkerWorkerTest.Recorder;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.otel.bridge.OtelCurrentTraceContext;
import io.micrometer.tracing.otel.bridge.OtelPropagator;
import io.micrometer.tracing.otel.bridge.OtelTracer;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * With a tracing bridge behind the ObservationRegistry (Micrometer Tracing on OpenTelemetry, the
 * handlers Actuator registers), a delivery is a consumer span in the producer's trace, child of the
 * producer's span, and it is the current span while the message's effect is computed.
 */
@AzureEmulators(queues = "parcels-bridged")
class IdemworkerTracingBridgeTest {
  private static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
  private static final String PRODUCER_SPAN_ID = "00f067aa0ba902b7";

  @Configuration(proxyBeanMethods = false)
  static class Bridged {
    final InMemorySpanExporter spans = InMemorySpanExporter.create();
    final List<String> currentTraceIds = new CopyOnWriteArrayList<>();

    final io.opentelemetry.api.trace.Tracer otel =
        SdkTracerProvider.builder()
            .addSpanProcessor(SimpleSpanProcessor.create(spans))
            .build()
            .get("idemworker-test");

    @Bean
    Tracer tracer() {
      return new OtelTracer(otel, new OtelCurrentTraceContext(), event -> {});
    }

    @Bean
    ObservationRegistry observationRegistry(Tracer tracer) {
      OtelPropagator propagator =
          new OtelPropagator(
              ContextPropagators.create(W3CTraceContextPropagator.getInstance()), otel);
      ObservationRegistry registry = ObservationRegistry.create();
      registry
          .observationConfig()
          .observationHandler(
              new ObservationHandler.FirstMatchingCompositeObservationHandler(
                  new PropagatingReceiverTracingObservationHandler<>(tracer, propagator),
                  new DefaultTracingObservationHandler(tracer)));
      return registry;
    }

    @Bean
    MessageType<ParcelRegistered> parcelRegistered(Tracer tracer) {
      return MessageType.of("ParcelRegistered", ParcelRegistered.class)
          .fields(f -> f.id("parcelId").text("depot", 1, 64))
          .entity(ParcelRegistered::parcelId)
          .key("parcelId", ParcelRegistered::parcelId)
          .documentType("parcel")
          .creates(
              p -> {
                Span current = tracer.currentSpan();
                currentTraceIds.add(current == null ? "none" : current.context().traceId());
                return JsonNodeFactory.instance.objectNode().put("depot", p.depot());
              });
    }

    @Bean
    Recorder recorder() {
      return new Recorder();
    }
  }

  @Test
  void aDelivery_isASpanInTheProducersTrace(Emulators azure) {
    IdemworkerWorkerTest.parcelsRunner(azure, "parcels-bridged", Bridged.class)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              String id = azure.uniqueName("parcel");
              IdemworkerWorkerTest.sendParcel(
                  azure,
                  "parcels-bridged",
                  id,
                  Map.of("traceparent", "00-" + TRACE_ID + "-" + PRODUCER_SPAN_ID + "-01"),
                  1);

              assertThat(context.getBean(Recorder.class).await(1))
                  .extracting(o -> o.getClass().getSimpleName())
                  .containsExactly("Processed");
              Bridged bridged = context.getBean(Bridged.class);
              List<SpanData> deliveries =
                  bridged.spans.getFinishedSpanItems().stream()
                      .filter(s -> s.getName().equals("ParcelRegistered process"))
                      .toList();
              assertThat(deliveries)
                  .as("spans %s", bridged.spans.getFinishedSpanItems())
                  .singleElement()
                  .satisfies(
                      span -> {
                        assertThat(span.getTraceId()).isEqualTo(TRACE_ID);
                        assertThat(span.getParentSpanId()).isEqualTo(PRODUCER_SPAN_ID);
                        assertThat(span.getKind()).isEqualTo(SpanKind.CONSUMER);
                      });
              assertThat(bridged.currentTraceIds).containsExactly(TRACE_ID);
            });
  }
}
