package io.idemworker.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.idemworker.azure.MessageType;
import io.idemworker.core.IncomingMessage;
import io.idemworker.emulator.junit.AzureEmulators;
import io.idemworker.emulator.junit.Emulators;
import io.idemworker.spring.boot.IdemworkerWorkerTest.ParcelRegistered;
import io.idemworker.spring.boot.IdemworkerWorkerTest.Recorder;
import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.ReceiverContext;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Trace context as Spring's observability carries it: with an ObservationRegistry in the
 * application, each delivery is an {@code idemworker.delivery} observation whose receiver context
 * reads the producer's {@code traceparent} from the message (what a tracing bridge continues the
 * trace from), current while the message's effect is computed, and tagged with its outcome.
 */
@AzureEmulators(queues = "parcels-traced")
class IdemworkerObservationTest {
  private static final String TRACEPARENT =
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

  /** Every observation context stopped, as a tracing handler sees them. */
  static final class Stopped implements ObservationHandler<Observation.Context> {
    final List<Observation.Context> contexts = new CopyOnWriteArrayList<>();

    @Override
    public boolean supportsContext(Observation.Context context) {
      return true;
    }

    @Override
    public void onStop(Observation.Context context) {
      contexts.add(context);
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class Traced {
    final List<Observation> current = new CopyOnWriteArrayList<>();

    @Bean
    Stopped stopped() {
      return new Stopped();
    }

    @Bean
    ObservationRegistry observationRegistry(Stopped stopped) {
      ObservationRegistry registry = ObservationRegistry.create();
      registry.observationConfig().observationHandler(stopped);
      return registry;
    }

    @Bean
    MessageType<ParcelRegistered> parcelRegistered(ObservationRegistry registry) {
      return MessageType.of("ParcelRegistered", ParcelRegistered.class)
          .fields(f -> f.id("parcelId").text("depot", 1, 64))
          .entity(ParcelRegistered::parcelId)
          .key("parcelId", ParcelRegistered::parcelId)
          .documentType("parcel")
          .creates(
              p -> {
                current.add(registry.getCurrentObservation());
                return JsonNodeFactory.instance.objectNode().put("depot", p.depot());
              });
    }

    @Bean
    Recorder recorder() {
      return new Recorder();
    }
  }

  @Test
  void aDelivery_isAnObservation_readingTheProducersTraceparent(Emulators azure) {
    IdemworkerWorkerTest.parcelsRunner(azure, "parcels-traced", Traced.class)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              String id = azure.uniqueName("parcel");
              IdemworkerWorkerTest.sendParcel(
                  azure, "parcels-traced", id, Map.of("traceparent", TRACEPARENT), 1);

              assertThat(context.getBean(Recorder.class).await(1))
                  .extracting(o -> o.getClass().getSimpleName())
                  .containsExactly("Processed");
              List<Observation.Context> deliveries =
                  context.getBean(Stopped.class).contexts.stream()
                      .filter(c -> c.getName().equals(ObservationDeliveryObserver.NAME))
                      .toList();
              assertThat(deliveries).hasSize(1);
              @SuppressWarnings("unchecked")
              ReceiverContext<IncomingMessage> delivery =
                  (ReceiverContext<IncomingMessage>) deliveries.get(0);
              assertThat(delivery.getGetter().get(delivery.getCarrier(), "traceparent"))
                  .isEqualTo(TRACEPARENT);
              assertThat(delivery.getLowCardinalityKeyValues())
                  .contains(
                      KeyValue.of("outcome", "processed"),
                      KeyValue.of("settled", "true"),
                      KeyValue.of("subject", "ParcelRegistered"));
              assertThat(delivery.getHighCardinalityKeyValues())
                  .contains(KeyValue.of("messaging.message.id", id));
              // the delivery's observation was the current one while its effect was computed
              assertThat(context.getBean(Traced.class).current)
                  .singleElement()
                  .satisfies(o -> assertThat(o.getContext()).isSameAs(delivery));
            });
  }
}
