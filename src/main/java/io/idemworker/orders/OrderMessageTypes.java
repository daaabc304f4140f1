package io.idemworker.orders;

import io.idemworker.core.MessageDecoder;
import io.idemworker.core.SubjectRouter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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
 * </table>
 */
public final class OrderMessageTypes {
  /** The subjects handled, in contract order. */
  public static final List<String> SUBJECTS =
      List.of(OrderDecoder.SUBJECT, StatusChangeDecoder.SUBJECT, CreditDecoder.SUBJECT);

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
    Map<String, MessageDecoder> bySubject = new LinkedHashMap<>();
    bySubject.put(OrderDecoder.SUBJECT, new OrderDecoder(messageIdIsKey));
    bySubject.put(StatusChangeDecoder.SUBJECT, new StatusChangeDecoder(messageIdIsKey));
    bySubject.put(CreditDecoder.SUBJECT, new CreditDecoder(messageIdIsKey, markers));
    return new SubjectRouter(bySubject);
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
