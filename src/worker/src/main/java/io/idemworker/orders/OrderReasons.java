package io.idemworker.orders;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.idemworker.core.Change;
import io.idemworker.core.DeadLetterReason;
import io.idemworker.core.DocumentPatch;
import java.util.Optional;

/** The dead-letter reasons only the order business can give, beside {@link DeadLetterReason}'s. */
public final class OrderReasons {
  /** A change for an order that never arrived, still missing on the last delivery allowed. */
  public static final DeadLetterReason ORDER_NOT_FOUND = new DeadLetterReason("OrderNotFound");

  /** A credit in another currency than its order's. */
  public static final DeadLetterReason CURRENCY_MISMATCH = new DeadLetterReason("CurrencyMismatch");

  private OrderReasons() {}

  /**
   * How a change to an existing order answers a missing order.
   *
   * @param orderId the order
   * @param what the change, e.g. {@code credit}
   * @return {@code OrderNotFound}, naming the order
   */
  static Change.Rejection orderNotFound(String orderId, String what) {
    return new Change.Rejection(
        ORDER_NOT_FOUND,
        "no order " + orderId + " for this " + what + " (its OrderPlaced has not arrived)");
  }

  /**
   * The rules of a change that must find its order in its own currency: missing → {@code
   * OrderNotFound} on the last delivery, another currency → {@code CurrencyMismatch}.
   *
   * @param orderId the order
   * @param what the change, e.g. {@code payment}
   * @return the rules
   */
  static Change.TargetRules orderInCurrency(String orderId, String what) {
    return new Change.TargetRules(
        orderNotFound(orderId, what),
        new Change.Rejection(
            CURRENCY_MISMATCH, "currency must equal the currency of order " + orderId));
  }

  /**
   * The condition that pairs with {@link #orderInCurrency}.
   *
   * @param currency the message's currency
   * @return the order's {@code currency} equals it
   */
  static Optional<DocumentPatch.Condition> inCurrency(String currency) {
    return Optional.of(
        new DocumentPatch.FieldEquals("currency", JsonNodeFactory.instance.textNode(currency)));
  }
}
