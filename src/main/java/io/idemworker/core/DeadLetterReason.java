package io.idemworker.core;

/**
 * Why a message was dead-lettered. The {@link #code()} is what operators see in the dead-letter
 * queue's {@code DeadLetterReason} and what metrics are labelled with; it never changes.
 */
public enum DeadLetterReason {
  /** No sender-assigned id to build the idempotency key from. */
  MISSING_MESSAGE_ID("MissingMessageId"),
  /** The body is larger than the configured maximum. */
  BODY_TOO_LARGE("BodyTooLarge"),
  /** The content type or subject is not one this consumer handles. */
  UNSUPPORTED_MESSAGE("UnsupportedMessage"),
  /** The body is not readable JSON. */
  UNREADABLE_BODY("UnreadableBody"),
  /** The body is JSON but breaks the message contract. */
  SCHEMA_VIOLATION("SchemaViolation"),
  /** The MessageId differs from the business id in the body. */
  MESSAGE_ID_MISMATCH("MessageIdMismatch"),
  /** The key was already used for different content. */
  IDEMPOTENCY_CONFLICT("IdempotencyConflict"),
  /** The store refused the write for a reason that retrying cannot fix. */
  STORE_REJECTED("StoreRejected");

  private final String code;

  DeadLetterReason(String code) {
    this.code = code;
  }

  /**
   * The stable reason code.
   *
   * @return the code, e.g. {@code IdempotencyConflict}
   */
  public String code() {
    return code;
  }
}
