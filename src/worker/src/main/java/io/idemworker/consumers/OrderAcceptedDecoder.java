package io.idemworker.consumers;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.core.Change;
import io.idemworker.core.DeadLetterReason;
import io.idemworker.core.DocumentPatch;
import io.idemworker.core.Fingerprint;
import io.idemworker.core.IdempotencyKey;
import io.idemworker.core.IncomingMessage;
import io.idemworker.core.MessageDecoder;
import io.idemworker.core.WriteSet;
import io.idemworker.orders.InboxMarkers;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * Decodes {@code OrderAccepted} for one consumer: {@code MessageId} = the event id (the key), body
 * = the outbox payload. The effect is relative, so it is protected by an inbox marker: one
 * transactional batch in partition {@code customerId} creates the marker (the anchor, carrying the
 * fingerprint and a {@code ttl}) and applies the consumer's increment. The marker's id names the
 * consumer, {@code inbox:{consumer}:{eventId}}: every consumer of the topic records its own
 * completion in the shared container, and none suppresses another's.
 *
 * <p>The target document may not exist yet when a customer's first event arrives; the change
 * declares a seed for it (see {@link Change.Anchored}), so the first event costs three round trips
 * and every later one one, with no read before the write.
 *
 * <p>Thread-safe and stateless.
 */
final class OrderAcceptedDecoder implements MessageDecoder {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  private final String consumer;
  private final Function<IdempotencyKey, String> markerId;
  private final long markerTtlSeconds;
  private final CustomerEffect effect;

  /**
   * The decoder for a consumer, with markers {@code inbox:{consumer}:{eventId}}.
   *
   * @param markers the consumer's name and the markers' TTL
   * @param effect the consumer's business
   */
  OrderAcceptedDecoder(InboxMarkers markers, CustomerEffect effect) {
    this(markers, key -> InboxMarkers.id(markers.consumer(), key), effect);
  }

  /**
   * The decoder with another marker id rule; only tests use it, to show what a rule without the
   * consumer loses.
   */
  OrderAcceptedDecoder(
      InboxMarkers markers, Function<IdempotencyKey, String> markerId, CustomerEffect effect) {
    this.consumer = markers.consumer();
    this.markerTtlSeconds = markers.ttlSeconds();
    this.markerId = Objects.requireNonNull(markerId, "markerId");
    this.effect = Objects.requireNonNull(effect, "effect");
  }

  @Override
  public Decoding decode(IncomingMessage message) {
    EventReader.Result read = EventReader.read(message.body());
    if (read instanceof EventReader.Rejected rejected) {
      return rejected.invalid();
    }
    return new Valid(new Accepted(((EventReader.Read) read).event()));
  }

  /** A valid event, for this consumer. */
  private final class Accepted implements ValidMessage {
    private final OrderAccepted event;

    Accepted(OrderAccepted event) {
      this.event = event;
    }

    @Override
    public String entityId() {
      return event.customerId();
    }

    @Override
    public ObjectNode immutableFields() {
      ObjectNode fields = JSON.objectNode();
      fields.put("orderId", event.orderId());
      fields.put("customerId", event.customerId());
      fields.put("currency", event.currency());
      fields.put("total", event.total());
      fields.put("lineCount", event.lineCount());
      fields.put("placedAt", event.placedAt().toString());
      return fields;
    }

    @Override
    public Change change(IdempotencyKey key, Fingerprint fingerprint, Instant acceptedAt) {
      ObjectNode marker = JSON.objectNode();
      marker.put("id", markerId.apply(key));
      marker.put(CustomerDocumentIds.PARTITION_KEY_FIELD, event.customerId());
      marker.put("type", "inbox");
      marker.put("consumer", consumer);
      marker.put("key", key.value());
      marker.put("messageType", OrderAccepted.SUBJECT);
      marker.put("orderId", event.orderId());
      marker.put("processedAt", acceptedAt.toString());
      marker.put("ttl", markerTtlSeconds);
      DocumentPatch patch = effect.patch(event, acceptedAt);
      return new Change.Anchored(
          WriteSet.of(event.customerId(), fingerprint, marker, List.of(), List.of(patch)),
          Optional.of(
              new Change.TargetRules(
                  new Change.Rejection(
                      CustomerReasons.CUSTOMER_DOCUMENT_MISSING,
                      "document "
                          + patch.id()
                          + " of customer "
                          + event.customerId()
                          + " is missing although it was seeded"),
                  new Change.Rejection(
                      DeadLetterReason.STORE_REJECTED,
                      "document " + patch.id() + " refused an unconditional increment"))),
          List.of(effect.seed(event)));
    }
  }
}
