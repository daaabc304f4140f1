package io.idemworker.core;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Why a message was dead-lettered. The {@link #code()} is what operators see in the dead-letter
 * queue's {@code DeadLetterReason} and what metrics are labelled with; it never changes.
 *
 * <p>The constants here are the flow's own reasons, the same for every message type. A business
 * package adds the reasons only it can know (a target that never arrives, an amount in another
 * currency) as constants of its own, so {@code core} stays free of any one business.
 *
 * @param code the stable reason code: an UpperCamelCase word of letters and digits, e.g. {@code
 *     IdempotencyConflict}
 */
public record DeadLetterReason(String code) {
  private static final Pattern CODE = Pattern.compile("[A-Z][A-Za-z0-9]{1,63}");

  /** No sender-assigned id to build the idempotency key from. */
  public static final DeadLetterReason MISSING_MESSAGE_ID =
      new DeadLetterReason("MissingMessageId");

  /** The body is larger than the configured maximum. */
  public static final DeadLetterReason BODY_TOO_LARGE = new DeadLetterReason("BodyTooLarge");

  /** The content type or subject is not one this consumer handles. */
  public static final DeadLetterReason UNSUPPORTED_MESSAGE =
      new DeadLetterReason("UnsupportedMessage");

  /** The body is not readable JSON. */
  public static final DeadLetterReason UNREADABLE_BODY = new DeadLetterReason("UnreadableBody");

  /** The body is JSON but breaks the message contract. */
  public static final DeadLetterReason SCHEMA_VIOLATION = new DeadLetterReason("SchemaViolation");

  /** The MessageId differs from the business id in the body. */
  public static final DeadLetterReason MESSAGE_ID_MISMATCH =
      new DeadLetterReason("MessageIdMismatch");

  /** The key was already used for different content. */
  public static final DeadLetterReason IDEMPOTENCY_CONFLICT =
      new DeadLetterReason("IdempotencyConflict");

  /** The store refused the write for a reason that retrying cannot fix. */
  public static final DeadLetterReason STORE_REJECTED = new DeadLetterReason("StoreRejected");

  /**
   * A two-phase record was still in progress under another attempt (or this one could not start its
   * call) on the last delivery the queue allows: dead-lettered with this reason instead of letting
   * the broker say {@code MaxDeliveryCountExceeded}. Nothing was called twice; resubmit it once the
   * other attempt completed or its lease ended, and it completes (as a duplicate, or by taking over
   * and replaying the call with the same key).
   */
  public static final DeadLetterReason CALL_IN_PROGRESS = new DeadLetterReason("CallInProgress");

  /** Checks the code's shape. */
  public DeadLetterReason {
    Objects.requireNonNull(code, "code");
    if (!CODE.matcher(code).matches()) {
      throw new IllegalArgumentException(
          "a reason code is an UpperCamelCase word of 2 to 64 letters and digits, not " + code);
    }
  }

  @Override
  public String toString() {
    return code;
  }
}
