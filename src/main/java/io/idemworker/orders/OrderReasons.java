package io.idemworker.orders;

import io.idemworker.core.DeadLetterReason;

/** The dead-letter reasons only the order business can give, beside {@link DeadLetterReason}'s. */
public final class OrderReasons {
  /** A change for an order that never arrived, still missing on the last delivery allowed. */
  public static final DeadLetterReason ORDER_NOT_FOUND = new DeadLetterReason("OrderNotFound");

  /** A credit in another currency than its order's. */
  public static final DeadLetterReason CURRENCY_MISMATCH = new DeadLetterReason("CurrencyMismatch");

  private OrderReasons() {}
}
