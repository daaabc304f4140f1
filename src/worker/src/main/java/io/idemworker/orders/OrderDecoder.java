package io.idemworker.orders;

import io.idemworker.core.DeadLetterReason;
import io.idemworker.core.IncomingMessage;
import io.idemworker.core.MessageDecoder;
import java.util.Locale;
import java.util.Optional;

/**
 * Decodes {@code OrderPlaced} messages for the {@link io.idemworker.core.IdempotentConsumer}.
 *
 * <p>Checks, in order, each failing with its own reason code: the subject (if set) is {@code
 * OrderPlaced} and the content type (if set) is JSON ({@code UnsupportedMessage}); the body is a
 * JSON object ({@code UnreadableBody}); the body meets the contract ({@code SchemaViolation},
 * listing every violation); and, when the key is the MessageId, that the MessageId equals the
 * body's orderId ({@code MessageIdMismatch}).
 *
 * <p>Thread-safe and stateless.
 */
public final class OrderDecoder implements MessageDecoder {
  /** The subject producers set. */
  public static final String SUBJECT = "OrderPlaced";

  static final int MAX_LISTED_VIOLATIONS = 10;

  /** The order document's field naming the api caller that placed it (absent: the queue). */
  public static final String OWNER_FIELD = "owner";

  private final boolean messageIdMustMatchOrderId;
  private final Optional<String> owner;

  /**
   * Creates the decoder.
   *
   * @param messageIdMustMatchOrderId true when the MessageId is the idempotency key and so must
   *     equal the orderId; false when another key strategy (CloudEvents) is in use
   */
  public OrderDecoder(boolean messageIdMustMatchOrderId) {
    this(messageIdMustMatchOrderId, Optional.empty());
  }

  private OrderDecoder(boolean messageIdMustMatchOrderId, Optional<String> owner) {
    this.messageIdMustMatchOrderId = messageIdMustMatchOrderId;
    this.owner = owner;
  }

  /**
   * A decoder for the api: MessageId = orderId, and the order it creates records {@code owner} as
   * its {@value #OWNER_FIELD} (not part of the fingerprint: the same order from another caller is
   * the same content, owned by whoever created it first).
   *
   * @param owner the authenticated caller
   * @return the decoder
   */
  public static OrderDecoder forOwner(String owner) {
    return new OrderDecoder(true, Optional.of(owner));
  }

  @Override
  public Decoding decode(IncomingMessage message) {
    if (message.subject().filter(subject -> !SUBJECT.equals(subject)).isPresent()) {
      return new Invalid(
          DeadLetterReason.UNSUPPORTED_MESSAGE,
          "Subject must be " + SUBJECT + " for this consumer",
          Optional.empty());
    }
    if (message.contentType().filter(type -> !isJson(type)).isPresent()) {
      return new Invalid(
          DeadLetterReason.UNSUPPORTED_MESSAGE,
          "ContentType must be application/json",
          Optional.empty());
    }
    OrderPlacedReader.Result result = OrderPlacedReader.read(message.body());
    if (result instanceof OrderPlacedReader.Unreadable unreadable) {
      return new Invalid(
          DeadLetterReason.UNREADABLE_BODY, unreadable.description(), Optional.empty());
    }
    if (result instanceof OrderPlacedReader.Violations violations) {
      return new Invalid(
          DeadLetterReason.SCHEMA_VIOLATION,
          summarize(violations.violations()),
          violations.orderId());
    }
    OrderPlaced order = ((OrderPlacedReader.Parsed) result).order();
    if (messageIdMustMatchOrderId
        && message.messageId().filter(id -> !id.equals(order.orderId())).isPresent()) {
      return new Invalid(
          DeadLetterReason.MESSAGE_ID_MISMATCH,
          "MessageId must equal the body's orderId",
          Optional.of(order.orderId()));
    }
    return new Valid(
        new OrderMessage(
            order,
            message.messageId(),
            message.correlationId(),
            // Service Bus SDKs put the producer's trace context in Diagnostic-Id.
            message.property("traceparent").or(() -> message.property("Diagnostic-Id")),
            owner));
  }

  /** At most {@value #MAX_LISTED_VIOLATIONS} violations: dead-letter descriptions have a limit. */
  static String summarize(java.util.List<String> violations) {
    if (violations.size() <= MAX_LISTED_VIOLATIONS) {
      return String.join("; ", violations);
    }
    return String.join("; ", violations.subList(0, MAX_LISTED_VIOLATIONS))
        + "; and "
        + (violations.size() - MAX_LISTED_VIOLATIONS)
        + " more";
  }

  private static boolean isJson(String contentType) {
    String type = contentType.toLowerCase(Locale.ROOT).split(";", 2)[0].trim();
    return type.equals("application/json") || type.endsWith("+json");
  }
}
