package io.idemworker.relay;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Objects;
import java.util.Optional;

/**
 * A pending outbox event as the change feed returned it.
 *
 * @param id the event id, derived from the message that caused it; becomes the {@code MessageId}
 * @param orderId the partition key
 * @param eventType {@code OrderAccepted}, {@code PaymentCaptured}…; becomes the {@code Subject}
 * @param correlationId carried over as the {@code CorrelationId}
 * @param traceparent the W3C trace context of the work that wrote the event, carried over
 * @param tracestate its {@code tracestate}, carried over
 * @param payload the message body
 * @param createdAt when the event was written ({@code createdAt}, else the document's {@code _ts})
 */
record OutboxEvent(
    String id,
    String orderId,
    String eventType,
    Optional<String> correlationId,
    Optional<String> traceparent,
    Optional<String> tracestate,
    JsonNode payload,
    Instant createdAt) {

  OutboxEvent {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(orderId, "orderId");
    Objects.requireNonNull(eventType, "eventType");
    Objects.requireNonNull(correlationId, "correlationId");
    Objects.requireNonNull(traceparent, "traceparent");
    Objects.requireNonNull(tracestate, "tracestate");
    Objects.requireNonNull(payload, "payload");
    Objects.requireNonNull(createdAt, "createdAt");
  }

  /** What the feed holds for one document, from the relay's point of view. */
  sealed interface Read {}

  /**
   * A pending event to publish.
   *
   * @param event the event
   */
  record Pending(OutboxEvent event) implements Read {}

  /**
   * A pending outbox document that cannot be published as it is.
   *
   * @param id its id
   * @param orderId its partition key
   * @param problem what is wrong, naming the field
   */
  record Malformed(String id, String orderId, String problem) implements Read {}

  /**
   * Anything else: orders, markers, the relay's own lease, events marked {@code unpublishable}, and
   * events a relay of an earlier release marked {@code published}.
   */
  record Other() implements Read {}

  /**
   * Classifies a document from the change feed.
   *
   * @param document the document
   * @return pending, malformed or other
   */
  static Read read(JsonNode document) {
    if (!"outbox".equals(document.path("type").asText())) {
      return new Other();
    }
    // Events carry no status (progress is the relay's checkpoint); "pending" is what events
    // written before that carried, and a relay that still marked them wrote "published".
    JsonNode status = document.path("status");
    if (!status.isMissingNode() && !"pending".equals(status.asText())) {
      return new Other();
    }
    String id = document.path("id").asText();
    String orderId = document.path("orderId").asText();
    if (!document.path("orderId").isTextual()) {
      // Without its partition key the document cannot even be marked; nothing can be done here.
      return new Other();
    }
    if (!document.path("eventType").isTextual() || document.path("eventType").asText().isBlank()) {
      return new Malformed(id, orderId, "eventType is missing or not a string");
    }
    if (!document.path("payload").isObject()) {
      return new Malformed(id, orderId, "payload is missing or not an object");
    }
    return new Pending(
        new OutboxEvent(
            id,
            orderId,
            document.path("eventType").asText(),
            text(document, "correlationId"),
            text(document, "traceparent"),
            text(document, "tracestate"),
            document.get("payload"),
            createdAt(document)));
  }

  private static Optional<String> text(JsonNode document, String field) {
    JsonNode value = document.path(field);
    return value.isTextual() && !value.asText().isBlank()
        ? Optional.of(value.asText())
        : Optional.empty();
  }

  private static Instant createdAt(JsonNode document) {
    Optional<String> createdAt = text(document, "createdAt");
    if (createdAt.isPresent()) {
      try {
        return Instant.parse(createdAt.get());
      } catch (DateTimeParseException e) {
        // fall back on the service's timestamp
      }
    }
    return Instant.ofEpochSecond(document.path("_ts").asLong(0));
  }
}
