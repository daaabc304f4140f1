package io.idemworker.orders;

import io.idemworker.core.IdempotencyKey;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

/**
 * The ids of the documents an order becomes, all in partition {@code orderId}. Deterministic, so
 * readers (the demo's audit, downstream consumers) can find them with point reads.
 */
public final class OrderDocumentIds {
  /** The field every document of an order carries its partition in. */
  public static final String PARTITION_KEY_FIELD = "orderId";

  /** The partition key path of the orders container. */
  public static final String PARTITION_KEY_PATH = "/" + PARTITION_KEY_FIELD;

  /** The type of event the outbox holds for an accepted order. */
  public static final String ORDER_ACCEPTED = "OrderAccepted";

  /** The type of event that completes a payment request the provider captured. */
  public static final String PAYMENT_CAPTURED = "PaymentCaptured";

  /** The type of event that completes a payment request the provider declined. */
  public static final String PAYMENT_DECLINED = "PaymentDeclined";

  /**
   * Every event type the outbox holds, which the relay publishes as the {@code Subject} on the
   * topic (docs/message-contract.md lists them).
   */
  public static final List<String> EVENT_TYPES =
      List.of(ORDER_ACCEPTED, PAYMENT_CAPTURED, PAYMENT_DECLINED);

  /**
   * How long an outbox event document lives from its creation (its {@code ttl}). The relay keeps
   * its progress in its checkpoint, never in the event, so this bounds how long the relay may fall
   * behind before an unread event expires unpublished: its lag alarm fires at half of it.
   */
  public static final Duration OUTBOX_EVENT_TTL = Duration.ofDays(7);

  private OrderDocumentIds() {}

  /**
   * The id of the {@code OrderAccepted} outbox event: a UUID (version 8, RFC 9562) made of the
   * SHA-256 of the event type and the idempotency key, so every replay of one message yields the
   * same id and downstream duplicate detection drops the copy.
   *
   * @param key the idempotency key of the message that created the order
   * @return the event id
   */
  public static String outboxEvent(IdempotencyKey key) {
    return derivedId(ORDER_ACCEPTED, key);
  }

  /**
   * The id of a payment request's two-phase record.
   *
   * @param key the request's idempotency key
   * @return {@code payment:{key}}
   */
  public static String payment(IdempotencyKey key) {
    return "payment:" + key.value();
  }

  /**
   * The id of the outbox event that completes a payment request ({@code PaymentCaptured} or {@code
   * PaymentDeclined}): one per request, whatever the answer, so a second completion collides.
   *
   * @param key the request's idempotency key
   * @return the event id
   */
  public static String paymentEvent(IdempotencyKey key) {
    return derivedId("PaymentCompleted", key);
  }

  private static String derivedId(String kind, IdempotencyKey key) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256")
              .digest((kind + "|" + key.value()).getBytes(StandardCharsets.UTF_8));
      digest[6] = (byte) ((digest[6] & 0x0f) | 0x80);
      digest[8] = (byte) ((digest[8] & 0x3f) | 0x80);
      ByteBuffer bytes = ByteBuffer.wrap(digest, 0, 16);
      return new UUID(bytes.getLong(), bytes.getLong()).toString();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }
}
