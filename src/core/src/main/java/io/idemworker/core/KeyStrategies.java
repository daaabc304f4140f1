package io.idemworker.core;

import java.util.Objects;
import java.util.Optional;
import java.util.stream.Stream;

/** The key strategies the worker offers. */
public final class KeyStrategies {
  private KeyStrategies() {}

  /**
   * The sender's {@code MessageId}; the default. The producer sets it to the business id.
   *
   * @return the strategy
   */
  public static KeyStrategy messageId() {
    return message ->
        message
            .messageId()
            .map(id -> keyOrMissing(id, "MessageId"))
            .orElseGet(
                () ->
                    new KeyStrategy.Missing(
                        DeadLetterReason.MISSING_MESSAGE_ID,
                        "MessageId is missing: the producer must set it to the message's business key"));
  }

  /**
   * CloudEvents {@code source} + {@code id}, read from the application properties {@code
   * cloudEvents:source}/{@code cloudEvents:id} (AMQP binding) or {@code ce-source}/{@code ce-id}.
   * The key is {@code source + "|" + id}: the CloudEvents spec makes that pair unique per event.
   *
   * @return the strategy
   */
  public static KeyStrategy cloudEvents() {
    return message -> {
      Optional<String> source = firstOf(message, "cloudEvents:source", "ce-source", "ce_source");
      Optional<String> id = firstOf(message, "cloudEvents:id", "ce-id", "ce_id");
      if (source.isEmpty()) {
        return new KeyStrategy.Missing(
            DeadLetterReason.MISSING_MESSAGE_ID,
            "application property cloudEvents:source (or ce-source) is missing");
      }
      if (id.isEmpty()) {
        return new KeyStrategy.Missing(
            DeadLetterReason.MISSING_MESSAGE_ID,
            "application property cloudEvents:id (or ce-id) is missing");
      }
      return keyOrMissing(source.get() + "|" + id.get(), "cloudEvents:source + cloudEvents:id");
    };
  }

  /**
   * Prefixes another strategy's key with a consumer name. The prefixed key is what the anchor
   * records and what the ids of outgoing events derive from, so two consumers that replay the same
   * message emit distinct, each deterministic, event ids. It does not give each consumer its own
   * duplicate check when the anchor document's id is the business id; consumers that must each
   * apply their own effect to a shared store anchor on an inbox marker that names the consumer
   * ({@code inbox:{consumer}:{key}}), and then need no prefix.
   *
   * @param consumerName the consumer's name; non-blank
   * @param inner the strategy whose key is prefixed
   * @return the strategy
   */
  public static KeyStrategy prefixed(String consumerName, KeyStrategy inner) {
    Objects.requireNonNull(inner, "inner");
    if (consumerName == null || consumerName.isBlank()) {
      throw new IllegalArgumentException("consumer name must not be blank");
    }
    return message -> {
      KeyStrategy.KeyResult result = inner.keyOf(message);
      if (result instanceof KeyStrategy.Found found) {
        return new KeyStrategy.Found(new IdempotencyKey(consumerName + ":" + found.key().value()));
      }
      return result;
    };
  }

  /** A key, or a rejection when the value cannot be one (blank or too long): never a throw. */
  private static KeyStrategy.KeyResult keyOrMissing(String value, String field) {
    if (value.isBlank()) {
      return new KeyStrategy.Missing(DeadLetterReason.MISSING_MESSAGE_ID, field + " is blank");
    }
    if (value.length() > IdempotencyKey.MAX_LENGTH) {
      return new KeyStrategy.Missing(
          DeadLetterReason.MISSING_MESSAGE_ID,
          field + " is longer than " + IdempotencyKey.MAX_LENGTH + " characters");
    }
    return new KeyStrategy.Found(new IdempotencyKey(value));
  }

  private static Optional<String> firstOf(IncomingMessage message, String... names) {
    return Stream.of(names).map(message::property).flatMap(Optional::stream).findFirst();
  }
}
