package io.idemworker.orders;

import io.idemworker.core.IdempotencyKey;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.UUID;

/**
 * The ids of the documents an order becomes, all in partition {@code orderId}. Deterministic, so
 * readers (the demo's audit, downstream consumers) can find them with point reads.
 */
public final class OrderDocumentIds {
  /** The type of event the outbox holds for an accepted order. */
  public static final String ORDER_ACCEPTED = "OrderAccepted";

  private OrderDocumentIds() {}

  /**
   * The id of an order line document.
   *
   * @param orderId the order
   * @param lineNumber 1-based
   * @return {@code orderId:line:N}
   */
  public static String line(String orderId, int lineNumber) {
    return orderId + ":line:" + lineNumber;
  }

  /**
   * The id of the {@code OrderAccepted} outbox event: a UUID (version 8, RFC 9562) made of the
   * SHA-256 of the event type and the idempotency key, so every replay of one message yields the
   * same id and downstream duplicate detection drops the copy.
   *
   * @param key the idempotency key of the message that created the order
   * @return the event id
   */
  public static String outboxEvent(IdempotencyKey key) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256")
              .digest((ORDER_ACCEPTED + "|" + key.value()).getBytes(StandardCharsets.UTF_8));
      digest[6] = (byte) ((digest[6] & 0x0f) | 0x80);
      digest[8] = (byte) ((digest[8] & 0x3f) | 0x80);
      ByteBuffer bytes = ByteBuffer.wrap(digest, 0, 16);
      return new UUID(bytes.getLong(), bytes.getLong()).toString();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }
}
