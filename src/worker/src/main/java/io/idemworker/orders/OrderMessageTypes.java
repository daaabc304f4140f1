package io.idemworker.orders;

import io.idemworker.core.MessageDecoder;
import io.idemworker.core.SubjectRouter;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The message types of the {@code orders} queue, routed by {@code Subject}, and the protection each
 * needs:
 *
 * <table>
 *   <caption>message types</caption>
 *   <tr><th>Subject</th><th>key (MessageId)</th><th>protection</th></tr>
 *   <tr><td>{@code OrderPlaced}</td><td>orderId</td><td>the order's create (never expires)</td></tr>
 *   <tr><td>{@code OrderStatusChanged}</td><td>{@code {orderId}:status:{version}}</td>
 *       <td>version guard (conditional patch)</td></tr>
 *   <tr><td>{@code OrderCredited}</td><td>creditId</td>
 *       <td>inbox marker in the order's batch, with a TTL</td></tr>
 *   <tr><td>{@code PaymentCaptureRequested}</td><td>paymentRequestId</td>
 *       <td>two-phase record {@code payment:{key}} around the provider call</td></tr>
 * </table>
 */
public final class OrderMessageTypes {
  /** The subjects handled, in contract order. */
  public static final List<String> SUBJECTS =
      List.of(
          OrderDecoder.SUBJECT,
          StatusChangeDecoder.SUBJECT,
          CreditDecoder.SUBJECT,
          PaymentDecoder.SUBJECT);

  /** {@code PaymentCaptureRequested}. */
  public static final String PAYMENT_CAPTURE_REQUESTED = PaymentDecoder.SUBJECT;

  /** {@code OrderStatusChanged}. */
  public static final String ORDER_STATUS_CHANGED = StatusChangeDecoder.SUBJECT;

  /** {@code OrderCredited}. */
  public static final String ORDER_CREDITED = CreditDecoder.SUBJECT;

  private OrderMessageTypes() {}

  /**
   * The decoder for the queue: every type, routed by {@code Subject}.
   *
   * @param messageIdIsKey true when the MessageId is the idempotency key, so it must match the body
   *     (orderId, {@code {orderId}:status:{version}}, creditId)
   * @param markers how credits' inbox markers are named and how long they live
   * @return the decoder
   */
  public static MessageDecoder decoder(boolean messageIdIsKey, InboxMarkers markers) {
    return decoder(messageIdIsKey, markers, Optional.empty());
  }

  /**
   * The decoder for the queue: every type, routed by {@code Subject}, with payments when a provider
   * is configured.
   *
   * @param messageIdIsKey true when the MessageId is the idempotency key, so it must match the body
   *     (orderId, {@code {orderId}:status:{version}}, creditId, paymentRequestId)
   * @param markers how credits' inbox markers are named and how long they live
   * @param payments the payment provider and the claim lease; empty = payment requests are
   *     dead-lettered as {@code UnsupportedMessage} naming {@code PAYMENTS_BASE_URL}
   * @return the decoder
   */
  public static MessageDecoder decoder(
      boolean messageIdIsKey, InboxMarkers markers, Optional<Payments> payments) {
    Map<String, MessageDecoder> bySubject = new LinkedHashMap<>();
    bySubject.put(OrderDecoder.SUBJECT, new OrderDecoder(messageIdIsKey));
    bySubject.put(StatusChangeDecoder.SUBJECT, new StatusChangeDecoder(messageIdIsKey));
    bySubject.put(CreditDecoder.SUBJECT, new CreditDecoder(messageIdIsKey, markers));
    bySubject.put(
        PaymentDecoder.SUBJECT,
        payments
            .<MessageDecoder>map(p -> new PaymentDecoder(messageIdIsKey, p.provider(), p.lease()))
            .orElse(
                message ->
                    new MessageDecoder.Invalid(
                        io.idemworker.core.DeadLetterReason.UNSUPPORTED_MESSAGE,
                        PaymentDecoder.SUBJECT
                            + " needs a payment provider, and none is configured"
                            + " (PAYMENTS_BASE_URL)",
                        Optional.empty())));
    return new SubjectRouter(bySubject);
  }

  /**
   * The payment provider and the lease a claim holds around one call.
   *
   * @param provider the provider
   * @param lease longer than the provider's request timeout, shorter than the queue's lock
   */
  public record Payments(PaymentProvider provider, Duration lease) {
    /** Requires both. */
    public Payments {
      java.util.Objects.requireNonNull(provider, "provider");
      java.util.Objects.requireNonNull(lease, "lease");
    }
  }

  /**
   * Whether a message type is protected by an inbox marker, whose expiry bounds how late a copy may
   * come back (what {@code resubmit} checks).
   *
   * @param subject the message's subject
   * @return true for marker-protected types
   */
  public static boolean isMarkerProtected(String subject) {
    return CreditDecoder.SUBJECT.equals(subject);
  }

  /**
   * The MessageId of a status change.
   *
   * @param orderId the order
   * @param version the version
   * @return {@code {orderId}:status:{version}}
   */
  public static String statusMessageId(String orderId, long version) {
    return StatusChangeDecoder.messageId(orderId, version);
  }
}
