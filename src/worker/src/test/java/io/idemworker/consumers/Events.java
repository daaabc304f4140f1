package io.idemworker.consumers;

import io.idemworker.core.IncomingMessage;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;

/** Test data: {@code OrderAccepted} events as the relay publishes them. */
public final class Events {
  private Events() {}

  /**
   * An event body (the outbox payload).
   *
   * @param orderId the order
   * @param customerId the customer
   * @param currency the currency
   * @param total the total, as a JSON number literal
   * @return JSON
   */
  public static String body(String orderId, String customerId, String currency, String total) {
    return """
        {"orderId":"%s","customerId":"%s","currency":"%s","total":%s,"lineCount":2,
         "placedAt":"2026-11-30T10:00:00Z"}
        """
        .formatted(orderId, customerId, currency, total);
  }

  /**
   * An event message: MessageId = the event id, Subject {@code OrderAccepted}.
   *
   * @param eventId the event id
   * @param body the body
   * @return the message
   */
  public static IncomingMessage message(String eventId, String body) {
    return typed("OrderAccepted", eventId, body);
  }

  static IncomingMessage typed(String subject, String eventId, String body) {
    return new IncomingMessage(
        Optional.of(eventId),
        Optional.empty(),
        Optional.ofNullable(subject),
        Optional.of("application/json"),
        Map.of(),
        body.getBytes(StandardCharsets.UTF_8),
        0);
  }
}
