package io.idemworker.relay;

import com.azure.messaging.servicebus.ServiceBusException;
import com.azure.messaging.servicebus.ServiceBusFailureReason;
import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusMessageBatch;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import io.idemworker.servicebus.sending.Outgoing;
import io.idemworker.servicebus.sending.ProducerKit;
import io.idemworker.servicebus.sending.ProducerStamps;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Publishes events with a Service Bus sender: {@code MessageId} = event id, {@code Subject} = event
 * type, {@code CorrelationId} and {@code traceparent}/{@code tracestate} carried over, the payload
 * as a JSON body, the partition key value as an application property named after the container's
 * partition key field, and the {@code SessionId} the {@link SessionIdRule} gives; each built by the
 * {@link ProducerKit} (MessageId checked, send attempt stamped). Events go in as few batches as
 * fit, each batch one send, in order.
 *
 * <p>Not thread-safe: the relay calls it from one thread.
 */
final class ServiceBusEventPublisher implements EventPublisher {
  private final ServiceBusSenderClient sender;
  private final ProducerKit kit;
  private final Supplier<String> partitionKeyField;
  private final SessionIdRule sessions;

  ServiceBusEventPublisher(
      ServiceBusSenderClient sender, Supplier<String> partitionKeyField, SessionIdRule sessions) {
    this.sender = Objects.requireNonNull(sender, "sender");
    this.kit = new ProducerKit(sender);
    this.partitionKeyField = Objects.requireNonNull(partitionKeyField, "partitionKeyField");
    this.sessions = Objects.requireNonNull(sessions, "sessions");
  }

  @Override
  public List<Rejected> publish(List<OutboxEvent> events) {
    List<Rejected> rejected = new ArrayList<>();
    String field = partitionKeyField.get();
    try {
      ServiceBusMessageBatch batch = sender.createMessageBatch();
      for (OutboxEvent event : events) {
        ServiceBusMessage message;
        try {
          message = kit.message(outgoing(event, field, sessions), 1);
        } catch (IllegalArgumentException e) {
          rejected.add(new Rejected(event, e.getMessage()));
          continue;
        }
        if (batch.tryAddMessage(message)) {
          continue;
        }
        if (batch.getCount() > 0) {
          sender.sendMessages(batch);
          batch = sender.createMessageBatch();
          if (batch.tryAddMessage(message)) {
            continue;
          }
        }
        rejected.add(
            new Rejected(
                event,
                "larger than the topic's largest message ("
                    + batch.getMaxSizeInBytes()
                    + " bytes with headers)"));
      }
      if (batch.getCount() > 0) {
        sender.sendMessages(batch);
      }
    } catch (ServiceBusException e) {
      throw new RelayFailure(kind(e.getReason()), "publishing failed: " + e.getReason(), e);
    } catch (RuntimeException e) {
      throw new RelayFailure(
          RelayFailure.Kind.TRANSIENT, "publishing failed: " + e.getClass().getSimpleName(), e);
    }
    return rejected;
  }

  /**
   * The event as the producer kit sends it. Its id was assigned once, when the event was written
   * (derived from the causing key), and every re-publish reads it back from the stored event, so it
   * is the same on every send whatever it looks like ({@code Rule.ASSIGNED_ONCE}); an empty or too
   * long id is refused (the event becomes unpublishable with the kit's reason).
   */
  static Outgoing outgoing(OutboxEvent event, String partitionKeyField, SessionIdRule sessions) {
    Outgoing message =
        Outgoing.assignedOnce(event.id(), event.eventType(), event.payload().toString())
            .withProperty(partitionKeyField, event.partitionKey())
            .withProperty(ProducerStamps.ORIGIN, ProducerStamps.RELAY);
    // A subscription without sessions ignores it; one that requires sessions needs it.
    Optional<String> sessionId =
        sessions.sessionIdOf(event.partitionKey(), event.eventType(), event.payload());
    if (sessionId.isPresent()) {
      message = message.withSessionId(sessionId.get());
    }
    if (event.correlationId().isPresent()) {
      message = message.withCorrelationId(event.correlationId().get());
    }
    if (event.traceparent().isPresent()) {
      message = message.withProperty("traceparent", event.traceparent().get());
    }
    if (event.tracestate().isPresent()) {
      message = message.withProperty("tracestate", event.tracestate().get());
    }
    return message;
  }

  private static RelayFailure.Kind kind(ServiceBusFailureReason reason) {
    if (ServiceBusFailureReason.UNAUTHORIZED.equals(reason)
        || ServiceBusFailureReason.MESSAGING_ENTITY_NOT_FOUND.equals(reason)
        || ServiceBusFailureReason.MESSAGING_ENTITY_DISABLED.equals(reason)) {
      return RelayFailure.Kind.MISCONFIGURATION;
    }
    return RelayFailure.Kind.TRANSIENT;
  }

  @Override
  public void close() {
    sender.close();
  }
}
