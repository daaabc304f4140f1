package io.idemworker.telemetry;

import io.idemworker.core.DeadLetterReason;
import io.idemworker.core.IdempotencyKey;
import io.idemworker.core.IncomingMessage;
import io.idemworker.core.Outcome;
import io.idemworker.orders.Orders;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;

/** Test data: deliveries and their outcomes, built directly without a broker. */
final class Deliveries {
  /** Appears only in the bodies built here, never in ids: a log line must not contain it. */
  static final String SECRET_CUSTOMER = "cust-SECRET-7731";

  private Deliveries() {}

  static IncomingMessage order(String orderId) {
    return order(orderId, Map.of());
  }

  static IncomingMessage order(String orderId, Map<String, Object> properties) {
    return new IncomingMessage(
        Optional.of(orderId),
        Optional.of("corr-" + orderId),
        Optional.of("OrderPlaced"),
        Optional.of("application/json"),
        properties,
        Orders.body(orderId, SECRET_CUSTOMER).getBytes(StandardCharsets.UTF_8),
        2);
  }

  static Outcome processed(String orderId) {
    return new Outcome.Processed(new IdempotencyKey(orderId), orderId);
  }

  static Outcome duplicate(String orderId) {
    return new Outcome.Duplicate(new IdempotencyKey(orderId), orderId);
  }

  static Outcome deadLettered(String orderId, DeadLetterReason reason) {
    return new Outcome.DeadLettered(
        Optional.of(new IdempotencyKey(orderId)),
        Optional.of(orderId),
        reason,
        "field 'customerId' differs from the stored order");
  }

  static Outcome retried(String orderId, Outcome.RetryCause cause) {
    return new Outcome.Retry(
        Optional.of(new IdempotencyKey(orderId)), Optional.of(orderId), cause, "store status 503");
  }
}
