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
}
