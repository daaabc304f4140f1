package io.idemworker.orders;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.idemworker.core.Change;
import io.idemworker.core.DeadLetterReason;
import io.idemworker.core.DocumentPatch;
import java.util.List;
import java.util.Optional;

/** The dead-letter reasons only the order business can give, beside {@link DeadLetterReason}'s. */
public final class OrderReasons {
  /** A change for an order that never arrived, still missing on the last delivery allowed. */
  public static final DeadLetterReason ORDER_NOT_FOUND = new DeadLetterReason("OrderNotFound");

  /** A credit in another currency than its order's. */
  public static final DeadLetterReason CURRENCY_MISMATCH = new DeadLetterReason("CurrencyMismatch");

  /** A capture request for more than the order still has to capture. */
  public static final DeadLetterReason CAPTURE_EXCEEDS_OUTSTANDING =
      new DeadLetterReason("CaptureExceedsOutstanding");

  /** A credit that would take the order's credits past its total. */
  public static final DeadLetterReason CREDIT_EXCEEDS_ORDER_TOTAL =
      new DeadLetterReason("CreditExceedsOrderTotal");

  /** An increment that would take a counter past 2^53 units, beyond what a double holds exactly. */
  public static final DeadLetterReason COUNTER_LIMIT_EXCEEDED =
      new DeadLetterReason("CounterLimitExceeded");

  /**
   * The largest counter value: 2^53, the last integer every reader using doubles (JavaScript, JSON
   * parsers that read numbers as doubles) holds exactly.
   */
  public static final long MAX_EXACT_UNITS = 1L << 53;

  /** The order's budget of units that capture requests may still reserve. */
  static final String CAPTURABLE_UNITS = "capturableUnits";

  /** The order's budget of units that credits may still take. */
  static final String CREDITABLE_UNITS = "creditableUnits";

  private OrderReasons() {}

  /**
   * Rules for a patch guarded by the order's currency and one bound: a refusal is a currency
   * mismatch when the order's currency differs, else {@code boundBroken}.
   */
  static Change.TargetRules orderInCurrencyWithin(
      String orderId, String what, String currency, Change.Rejection boundBroken) {
    Change.TargetRules plain = orderInCurrency(orderId, what);
    return new Change.TargetRules(
        plain.ifMissing(),
        boundBroken,
        Optional.of(
            order ->
                Optional.of(
                    currency.equals(order.path("currency").asText())
                        ? boundBroken
                        : plain.ifConditionFails())));
  }

  /** The order's currency, and a budget field holding at least {@code units}. */
  static Optional<DocumentPatch.Condition> inCurrencyWithBudget(
      String currency, String budgetField, long units) {
    return Optional.of(
        new DocumentPatch.AllOf(
            List.of(
                inCurrency(currency).orElseThrow(),
                new DocumentPatch.AtLeast(budgetField, units))));
  }

  /** The order's currency, and a counter that stays at most 2^53 after adding {@code units}. */
  static Optional<DocumentPatch.Condition> inCurrencyWithinExact(
      String currency, String counter, long units) {
    return Optional.of(
        new DocumentPatch.AllOf(
            List.of(
                inCurrency(currency).orElseThrow(),
                new DocumentPatch.AbsentOrBelow(counter, MAX_EXACT_UNITS - units + 1))));
  }

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
