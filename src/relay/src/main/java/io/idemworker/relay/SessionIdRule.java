package io.idemworker.relay;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Objects;
import java.util.Optional;

/**
 * Which {@code SessionId} the relay sets on an event it publishes. A subscription without sessions
 * ignores it; one that requires sessions refuses a message without it, and hands a session's
 * messages to one receiver at a time, in sequence. Implementations must be stateless and must not
 * throw; an id longer than 128 characters makes the event unpublishable.
 */
@FunctionalInterface
public interface SessionIdRule {

  /**
   * The session of one event.
   *
   * @param partitionKey the event's partition key value (its entity, in the container's own
   *     partition key field)
   * @param eventType the event type, its {@code Subject}
   * @param payload the event's body
   * @return the {@code SessionId}, or empty to set none
   */
  Optional<String> sessionIdOf(String partitionKey, String eventType, JsonNode payload);

  /**
   * The event's partition key value: every event of one entity in one session. The default.
   *
   * @return the rule
   */
  static SessionIdRule partitionKey() {
    return (partitionKey, eventType, payload) -> Optional.of(partitionKey);
  }

  /**
   * No {@code SessionId}: for topics whose subscriptions never require sessions.
   *
   * @return the rule
   */
  static SessionIdRule none() {
    return (partitionKey, eventType, payload) -> Optional.empty();
  }

  /**
   * A top-level string field of the payload, none when the payload lacks it.
   *
   * @param field the field's name
   * @return the rule
   */
  static SessionIdRule payloadField(String field) {
    Objects.requireNonNull(field, "field");
    return (partitionKey, eventType, payload) ->
        payload.path(field).isTextual()
            ? Optional.of(payload.path(field).asText())
            : Optional.empty();
  }
}
