package io.idemworker.relay;

import com.azure.core.util.BinaryData;
import com.azure.messaging.servicebus.ServiceBusException;
import com.azure.messaging.servicebus.ServiceBusFailureReason;
import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusMessageBatch;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import io.idemworker.servicebus.ProducerStamps;
import io.idemworker.servicebus.SessionIds;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Publishes events with a Service Bus sender: {@code MessageId} = event id, {@code Subject} = event
 * type, {@code CorrelationId} and {@code traceparent}/{@code tracestate} carried over, the payload
 * as a JSON body, {@code orderId} as an application property and as the {@code SessionId} (so a
 * subscription that requires sessions gets one order's events in order). Events go in as few
 * batches as fit, each batch one send, in order.
 *
 * <p>Not thread-safe: the relay calls it from one thread.
 */
final class ServiceBusEventPublisher implements EventPublisher {
  private final ServiceBusSenderClient sender;

  ServiceBusEventPublisher(ServiceBusSenderClient sender) {
    this.sender = Objects.requireNonNull(sender, "sender");
  }

  @Override
  public List<Rejected> publish(List<OutboxEvent> events) {
    List<Rejected> rejected = new ArrayList<>();
    try {
      ServiceBusMessageBatch batch = sender.createMessageBatch();
      for (OutboxEvent event : events) {
        ServiceBusMessage message = message(event);
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

  static ServiceBusMessage message(OutboxEvent event) {
    ServiceBusMessage message =
        new ServiceBusMessage(BinaryData.fromString(event.payload().toString()));
    message.setMessageId(event.id());
    message.setSubject(event.eventType());
    message.setContentType("application/json");
    event.correlationId().ifPresent(message::setCorrelationId);
    message.getApplicationProperties().put("orderId", event.orderId());
    SessionIds.stamp(message, event.orderId());
    message.getApplicationProperties().put(ProducerStamps.ORIGIN, ProducerStamps.RELAY);
    event.traceparent().ifPresent(t -> message.getApplicationProperties().put("traceparent", t));
    event.tracestate().ifPresent(t -> message.getApplicationProperties().put("tracestate", t));
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
