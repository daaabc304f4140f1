package io.idemworker.orders;

import io.idemworker.core.IncomingMessage;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;

/** Test data: order bodies and the messages that carry them. */
public final class Orders {
  private Orders() {}

  /**
   * A valid order body.
   *
   * @param orderId the order id
   * @param customerId the customer id
   * @return JSON
   */
  public static String body(String orderId, String customerId) {
    return """
        {"orderId":"%s","customerId":"%s","currency":"EUR",
         "placedAt":"2026-11-30T10:00:00Z",
         "lines":[{"sku":"SKU-1","quantity":2,"unitPrice":9.99},
                  {"sku":"SKU-2","quantity":1,"unitPrice":5}]}
        """
        .formatted(orderId, customerId);
  }

  /**
   * A message as a producer sends it.
   *
   * @param messageId the MessageId (empty for none)
   * @param body the body
   * @return the message
   */
  public static IncomingMessage message(String messageId, String body) {
    return new IncomingMessage(
        Optional.ofNullable(messageId),
        Optional.of("corr-1"),
        Optional.of("OrderPlaced"),
        Optional.of("application/json"),
        Map.of(),
        body.getBytes(StandardCharsets.UTF_8),
        0);
  }

  /**
   * A valid order message with MessageId = orderId.
   *
   * @param orderId the order id
   * @return the message
   */
  public static IncomingMessage order(String orderId) {
    return message(orderId, body(orderId, "cust-42"));
  }

  /**
   * A message of any subject.
   *
   * @param subject the Subject, empty for none
   * @param messageId the MessageId
   * @param body the body
   * @param deliveryCount how often it was delivered before
   * @return the message
   */
  public static IncomingMessage typed(
      String subject, String messageId, String body, long deliveryCount) {
    return new IncomingMessage(
        Optional.ofNullable(messageId),
        Optional.of("corr-1"),
        Optional.ofNullable(subject),
        Optional.of("application/json"),
        Map.of(),
        body.getBytes(StandardCharsets.UTF_8),
        deliveryCount);
  }

  /**
   * An {@code OrderStatusChanged} with its MessageId {@code {orderId}:status:{version}}.
   *
   * @param orderId the order
   * @param status the status
   * @param version the version
   * @return the message
   */
  public static IncomingMessage status(String orderId, String status, long version) {
    return typed(
        "OrderStatusChanged",
        OrderMessageTypes.statusMessageId(orderId, version),
        """
        {"orderId":"%s","status":"%s","version":%d,"changedAt":"2026-11-30T11:00:00Z"}"""
            .formatted(orderId, status, version),
        0);
  }

  /**
   * An {@code OrderCredited} with MessageId = creditId.
   *
   * @param orderId the order
   * @param creditId the credit
   * @param amount the amount, as JSON
   * @param currency the currency
   * @return the message
   */
  public static IncomingMessage credit(
      String orderId, String creditId, String amount, String currency) {
    return typed(
        "OrderCredited",
        creditId,
        """
        {"orderId":"%s","creditId":"%s","amount":%s,"currency":"%s","reason":"late delivery"}"""
            .formatted(orderId, creditId, amount, currency),
        0);
  }

  /**
   * A {@code PaymentCaptureRequested} with MessageId = paymentRequestId.
   *
   * @param orderId the order
   * @param requestId the payment request
   * @param amount the amount, as JSON
   * @param currency the currency
   * @return the message
   */
  public static IncomingMessage payment(
      String orderId, String requestId, String amount, String currency) {
    return typed(
        "PaymentCaptureRequested",
        requestId,
        """
        {"orderId":"%s","paymentRequestId":"%s","amount":%s,"currency":"%s"}"""
            .formatted(orderId, requestId, amount, currency),
        0);
  }
}
