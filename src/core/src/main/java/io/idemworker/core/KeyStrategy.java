package io.idemworker.core;

/**
 * Derives the {@link IdempotencyKey} of a message from sender-assigned identity only.
 *
 * <p>Implementations are stateless and thread-safe. They must never use a broker-made id, a
 * delivery count or a receive time: those differ between copies of one logical message.
 */
public interface KeyStrategy {

  /**
   * Derives the key, or explains why the message has none.
   *
   * @param message the delivery
   * @return the key, or the rejection that dead-letters the message
   */
  KeyResult keyOf(IncomingMessage message);

  /** The result of {@link #keyOf}: a key, or a rejection naming the missing field. */
  sealed interface KeyResult {}

  /**
   * A derived key.
   *
   * @param key the key
   */
  record Found(IdempotencyKey key) implements KeyResult {
    /** Requires the key. */
    public Found {
      java.util.Objects.requireNonNull(key, "key");
    }
  }

  /**
   * No key could be derived.
   *
   * @param reason the dead-letter reason
   * @param description names the missing or bad field
   */
  record Missing(DeadLetterReason reason, String description) implements KeyResult {
    /** Requires both values. */
    public Missing {
      java.util.Objects.requireNonNull(reason, "reason");
      java.util.Objects.requireNonNull(description, "description");
    }
  }
}
