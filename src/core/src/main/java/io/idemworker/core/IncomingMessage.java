package io.idemworker.core;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What the pattern needs to know about one delivery, independent of the broker.
 *
 * <p>Only sender-assigned identity is carried: the broker's sequence number, lock token and receive
 * time are deliberately absent so that no key strategy can build on them.
 *
 * @param messageId the sender-assigned message id, if any (a blank one counts as none)
 * @param correlationId the correlation id, if any
 * @param subject the subject (message type), if any
 * @param contentType the content type, if any
 * @param applicationProperties application properties as sent, without null values
 * @param body the raw body bytes; never null
 * @param deliveryCount how many times the broker delivered this message before (0 on the first)
 */
public record IncomingMessage(
    Optional<String> messageId,
    Optional<String> correlationId,
    Optional<String> subject,
    Optional<String> contentType,
    Map<String, Object> applicationProperties,
    byte[] body,
    long deliveryCount) {

  /** Validates and defensively copies the properties map. */
  public IncomingMessage {
    Objects.requireNonNull(messageId, "messageId");
    Objects.requireNonNull(correlationId, "correlationId");
    Objects.requireNonNull(subject, "subject");
    Objects.requireNonNull(contentType, "contentType");
    Objects.requireNonNull(body, "body");
    // AMQP allows null property values; Map.copyOf does not. Filter only when there are any.
    // (Immutable maps throw on containsKey(null), so look at the entries.)
    Map<String, Object> present = applicationProperties;
    if (present.entrySet().stream().anyMatch(e -> e.getKey() == null || e.getValue() == null)) {
      present = new java.util.HashMap<>(present);
      present.keySet().removeIf(java.util.Objects::isNull);
      present.values().removeIf(java.util.Objects::isNull);
    }
    applicationProperties = Map.copyOf(present);
    messageId = messageId.filter(id -> !id.isBlank());
  }

  /**
   * Returns an application property as a string, if present and non-empty.
   *
   * @param name the property name
   * @return the property's string form
   */
  public Optional<String> property(String name) {
    return Optional.ofNullable(applicationProperties.get(name))
        .map(Object::toString)
        .filter(s -> !s.isEmpty());
  }
}
