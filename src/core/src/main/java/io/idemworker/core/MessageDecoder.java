package io.idemworker.core;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.Optional;

/**
 * The business side of the flow: reads and validates a body, and says which documents a valid
 * message becomes. Implementations are stateless and thread-safe and never touch the store.
 */
public interface MessageDecoder {

  /**
   * Reads and validates one message.
   *
   * @param message the delivery
   * @return {@link Valid} or {@link Invalid}; never throws for bad input
   */
  Decoding decode(IncomingMessage message);

  /** The result of {@link #decode}. */
  sealed interface Decoding permits Valid, Invalid {}

  /**
   * A message that satisfies the contract.
   *
   * @param message the business view
   */
  record Valid(ValidMessage message) implements Decoding {
    /** Requires the message. */
    public Valid {
      java.util.Objects.requireNonNull(message, "message");
    }
  }

  /**
   * A message that breaks the contract and will never be processable.
   *
   * @param reason the reason code
   * @param description names the field and the rule; never the value
   * @param entityId the entity id, when it could be read
   */
  record Invalid(DeadLetterReason reason, String description, Optional<String> entityId)
      implements Decoding {
    /** Requires every component. */
    public Invalid {
      java.util.Objects.requireNonNull(reason, "reason");
      java.util.Objects.requireNonNull(description, "description");
      java.util.Objects.requireNonNull(entityId, "entityId");
    }
  }

  /** A validated message. */
  interface ValidMessage {

    /**
     * The business id the message concerns (the entity it changes), for logs and outcomes.
     *
     * @return the entity id
     */
    String entityId();

    /**
     * The immutable business fields that define the message's content, as fingerprinted.
     *
     * @return a fresh object node
     */
    ObjectNode immutableFields();

    /**
     * What this message asks of the store, under which protection.
     *
     * @param key the idempotency key (deterministic ids of markers and outgoing events derive from
     *     it)
     * @param fingerprint the fingerprint of {@link #immutableFields()}
     * @param acceptedAt when the worker accepted it
     * @return the change
     */
    Change change(IdempotencyKey key, Fingerprint fingerprint, Instant acceptedAt);
  }
}
