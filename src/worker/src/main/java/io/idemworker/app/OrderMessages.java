package io.idemworker.app;

import com.azure.core.util.BinaryData;
import com.azure.messaging.servicebus.ServiceBusMessage;
import io.idemworker.servicebus.sending.Outgoing;
import io.idemworker.servicebus.sending.ProducerKit;
import java.nio.charset.StandardCharsets;

/** Builds {@code OrderPlaced} messages exactly as the contract in the README asks producers to. */
public final class OrderMessages {
  private OrderMessages() {}

  /**
   * An {@code OrderPlaced} message for the {@link ProducerKit}: MessageId = orderId (a business
   * key: refused when empty or random-looking), JSON, subject {@code OrderPlaced}.
   *
   * @param orderId the order id
   * @param jsonBody the body
   * @param correlationId the correlation id
   * @return the message
   */
  public static Outgoing outgoing(String orderId, String jsonBody, String correlationId) {
    return Outgoing.businessKey(orderId, "OrderPlaced", jsonBody).withCorrelationId(correlationId);
  }

  /**
   * An {@code OrderPlaced} message, unstamped (tests that build their own): MessageId = orderId,
   * JSON content type, subject {@code OrderPlaced}.
   *
   * @param orderId the order id (becomes the MessageId, which the broker's duplicate detection and
   *     the worker both key on)
   * @param jsonBody the body
   * @param correlationId the correlation id
   * @return the message
   */
  public static ServiceBusMessage orderPlaced(
      String orderId, String jsonBody, String correlationId) {
    ServiceBusMessage message =
        new ServiceBusMessage(BinaryData.fromBytes(jsonBody.getBytes(StandardCharsets.UTF_8)));
    message.setMessageId(orderId);
    message.setContentType("application/json");
    message.setSubject("OrderPlaced");
    message.setCorrelationId(correlationId);
    return message;
  }
}
