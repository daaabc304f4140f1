package io.idemworker.spring.boot;

import io.idemworker.core.DeliveryObserver;
import io.idemworker.core.IncomingMessage;
import io.idemworker.core.Outcome;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.ReceiverContext;

/**
 * One Micrometer {@link io.micrometer.observation.Observation} per delivery, as Spring's own
 * messaging observes a received message: named {@value #NAME}, a {@link ReceiverContext} whose
 * carrier is the message, so a tracing bridge (Micrometer Tracing, which Spring Boot's Actuator
 * sets up) continues the producer's trace from its {@code traceparent} and {@code tracestate}
 * application properties ({@code Diagnostic-Id} when there is no {@code traceparent}, as the Azure
 * SDK's producers set it). The observation is current on the processing thread while the message is
 * handled, so the application's logs and calls carry the trace. Low-cardinality key values: {@code
 * messaging.system}, {@code subject}, {@code outcome}, {@code settled}.
 */
public class ObservationDeliveryObserver implements DeliveryObserver {
  /** The observation's name. */
  public static final String NAME = "idemworker.delivery";

  private final ObservationRegistry registry;

  /**
   * Observes into a registry.
   *
   * @param registry the application's observation registry
   */
  public ObservationDeliveryObserver(ObservationRegistry registry) {
    this.registry = registry;
  }

  @Override
  public Observation start(IncomingMessage message) {
    ReceiverContext<IncomingMessage> context =
        new ReceiverContext<>(ObservationDeliveryObserver::header, Kind.CONSUMER);
    context.setCarrier(message);
    context.setRemoteServiceName("Azure Service Bus");
    String subject = message.subject().orElse("none");
    io.micrometer.observation.Observation observation =
        io.micrometer.observation.Observation.createNotStarted(NAME, () -> context, registry)
            .contextualName(subject + " process")
            .lowCardinalityKeyValue("messaging.system", "servicebus")
            .lowCardinalityKeyValue("subject", subject);
    message
        .messageId()
        .ifPresent(id -> observation.highCardinalityKeyValue("messaging.message.id", id));
    observation.start();
    io.micrometer.observation.Observation.Scope scope = observation.openScope();
    Thread opened = Thread.currentThread();
    return (outcome, elapsed, settled) -> {
      observation.lowCardinalityKeyValue("outcome", outcome.label());
      observation.lowCardinalityKeyValue("settled", Boolean.toString(settled));
      if (outcome instanceof Outcome.DeadLettered dead) {
        observation.highCardinalityKeyValue("dead.letter.reason", dead.reason().code());
      }
      // a scope is the opening thread's: closed there, or left to that thread's next scope
      if (Thread.currentThread() == opened) {
        scope.close();
      }
      observation.stop();
    };
  }

  private static String header(IncomingMessage message, String key) {
    if (key.equals("traceparent")) {
      return message
          .property("traceparent")
          .or(() -> message.property("Diagnostic-Id"))
          .orElse(null);
    }
    return message.property(key).orElse(null);
  }
}
