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
 * @param partitionKey the partition key value, read from the container's partition key field
 * @param eventType e.g. {@code ShipmentDelivered}; becomes the {@code Subject}
 * @param correlationId carried over as the {@code CorrelationId}
 * @param traceparent the W3C trace context of the work that wrote the event, carried over
 * @param tracestate its {@code tracestate}, carried over
 * @param payload the message body
 * @param createdAt when the event was written ({@code createdAt}, else the document's {@code _ts})
 */
record OutboxEvent(
    String id,
    String partitionKey,
    String eventType,
    Optional<String> correlationId,
    Optional<String> traceparent,
    Optional<String> tracestate,
    JsonNode payload,
    Instant createdAt) {

  OutboxEvent {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(partitionKey, "partitionKey");
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
   * @param partitionKey its partition key value
   * @param problem what is wrong, naming the field
   */
  record Malformed(String id, String partitionKey, String problem) implements Read {}

  /**
   * Anything else: business documents, markers, the relay's own lease, events marked {@code
   * unpublishable}, and events a relay of an earlier release marked {@code published}.
   */
  record Other() implements Read {}

  /**
   * Classifies a document from the change feed.
   *
   * @param document the document
   * @param partitionKeyField the container's partition key field, a top-level one
   * @return pending, malformed or other
   */
  static Read read(JsonNode document, String partitionKeyField) {
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
    String partitionKey = document.path(partitionKeyField).asText();
    if (!document.path(partitionKeyField).isTextual()) {
      // Without its partition key the document cannot even be marked; nothing can be done here.
      return new Other();
    }
    if (!document.path("eventType").isTextual() || document.path("eventType").asText().isBlank()) {
      return new Malformed(id, partitionKey, "eventType is missing or not a string");
    }
    if (!document.path("payload").isObject()) {
      return new Malformed(id, partitionKey, "payload is missing or not an object");
    }
    return new Pending(
        new OutboxEvent(
            id,
            partitionKey,
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
