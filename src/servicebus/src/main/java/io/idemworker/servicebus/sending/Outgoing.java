package io.idemworker.servicebus.sending;

import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One message a producer sends through the {@link ProducerKit}, before it becomes a Service Bus
 * message. Validates itself: the MessageId must pass {@link MessageIds#problem} under its rule, so
 * an empty or random-looking business key never reaches the broker.
 *
 * @param rule how the producer came by the MessageId
 * @param messageId the MessageId: the business key, or {@code source|id}
 * @param subject the message type ({@code Subject})
 * @param contentType the content type ({@code application/json} for every type the worker reads)
 * @param body the body (copied)
 * @param correlationId the correlation id
 * @param sessionId the session id (in session mode, the message's session key), at most 128
 *     characters
 * @param properties application properties (copied, null values kept; the kit adds its own stamp)
 */
public record Outgoing(
    MessageIds.Rule rule,
    String messageId,
    String subject,
    Optional<String> contentType,
    byte[] body,
    Optional<String> correlationId,
    Optional<String> sessionId,
    Map<String, Object> properties) {

  /** Refuses a MessageId its rule does not allow, naming the field. */
  public Outgoing {
    Objects.requireNonNull(rule, "rule");
    Optional<String> problem = MessageIds.problem(rule, messageId);
    if (problem.isPresent()) {
      throw new IllegalArgumentException(problem.get());
    }
    if (subject == null || subject.isBlank()) {
      throw new IllegalArgumentException("Subject must name the message type");
    }
    Objects.requireNonNull(contentType, "contentType");
    body = Objects.requireNonNull(body, "body").clone();
    Objects.requireNonNull(correlationId, "correlationId");
    Objects.requireNonNull(sessionId, "sessionId");
    if (sessionId.isPresent()
        && (sessionId.get().isBlank() || sessionId.get().length() > MessageIds.MAX_LENGTH)) {
      throw new IllegalArgumentException(
          "SessionId must be 1-" + MessageIds.MAX_LENGTH + " characters, not blank");
    }
    // AMQP application properties may hold null values, which Map.copyOf refuses.
    properties =
        Collections.unmodifiableMap(
            new LinkedHashMap<>(Objects.requireNonNull(properties, "properties")));
  }

  @Override
  public byte[] body() {
    return body.clone();
  }

  /**
   * A JSON message keyed by its business key.
   *
   * @param businessKey the MessageId ({@link MessageIds.Rule#BUSINESS_KEY})
   * @param subject the message type
   * @param json the body
   * @return the message, without correlation or session id
   */
  public static Outgoing businessKey(String businessKey, String subject, String json) {
    return new Outgoing(
        MessageIds.Rule.BUSINESS_KEY,
        businessKey,
        subject,
        Optional.of("application/json"),
        json.getBytes(StandardCharsets.UTF_8),
        Optional.empty(),
        Optional.empty(),
        Map.of());
  }

  /**
   * A JSON message keyed by an id that was assigned once and stored with what it names (an outbox
   * event's id, read back on every re-publish; a business id that is itself a random UUID): only
   * refused when empty or too long ({@link MessageIds.Rule#ASSIGNED_ONCE}).
   *
   * @param storedId the MessageId
   * @param subject the message type
   * @param json the body
   * @return the message, without correlation or session id
   */
  public static Outgoing assignedOnce(String storedId, String subject, String json) {
    return new Outgoing(
        MessageIds.Rule.ASSIGNED_ONCE,
        storedId,
        subject,
        Optional.of("application/json"),
        json.getBytes(StandardCharsets.UTF_8),
        Optional.empty(),
        Optional.empty(),
        Map.of());
  }

  /**
   * A JSON CloudEvent in binary mode: MessageId {@code source|id} and the application properties
   * {@code cloudEvents:source} and {@code cloudEvents:id} the worker's CloudEvents key strategy
   * reads.
   *
   * @param source the CloudEvents {@code source}
   * @param id the CloudEvents {@code id}, assigned once per event
   * @param type the event type (the {@code Subject})
   * @param json the body
   * @return the message
   */
  public static Outgoing cloudEvent(String source, String id, String type, String json) {
    if (source == null || source.isBlank() || id == null || id.isBlank()) {
      throw new IllegalArgumentException("cloudEvents:source and cloudEvents:id must not be empty");
    }
    Map<String, Object> properties = new LinkedHashMap<>();
    properties.put("cloudEvents:source", source);
    properties.put("cloudEvents:id", id);
    properties.put("cloudEvents:type", type);
    properties.put("cloudEvents:specversion", "1.0");
    return new Outgoing(
        MessageIds.Rule.CLOUD_EVENTS,
        source + "|" + id,
        type,
        Optional.of("application/json"),
        json.getBytes(StandardCharsets.UTF_8),
        Optional.empty(),
        Optional.empty(),
        properties);
  }

  /**
   * This message with a correlation id.
   *
   * @param value the correlation id
   * @return a copy
   */
  public Outgoing withCorrelationId(String value) {
    return new Outgoing(
        rule, messageId, subject, contentType, body, Optional.of(value), sessionId, properties);
  }

  /**
   * This message in a session (session mode: {@code SessionId} = the session key).
   *
   * @param value the session id
   * @return a copy
   */
  public Outgoing withSessionId(String value) {
    return new Outgoing(
        rule, messageId, subject, contentType, body, correlationId, Optional.of(value), properties);
  }

  /**
   * This message with one more application property.
   *
   * @param name the property
   * @param value its value
   * @return a copy
   */
  public Outgoing withProperty(String name, Object value) {
    Map<String, Object> more = new LinkedHashMap<>(properties);
    more.put(name, value);
    return new Outgoing(
        rule, messageId, subject, contentType, body, correlationId, sessionId, more);
  }
}
