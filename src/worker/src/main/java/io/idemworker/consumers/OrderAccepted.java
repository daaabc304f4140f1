package io.idemworker.consumers;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * An {@code OrderAccepted} event as the consumers read it: the outbox payload {@code {orderId,
 * customerId, currency, total, lineCount, placedAt}}. Validates itself.
 *
 * @param orderId the order; 1–64 letters, digits or {@code -_.:}
 * @param customerId the customer, the partition key of every document the consumers write; same
 *     shape
 * @param currency an ISO 4217 code
 * @param total the order's total, at least 0, at most {@link #MAX_TOTAL}, at most 4 decimal places
 * @param lineCount 1–100,000 (an order's lines fit in its 2 MiB document)
 * @param placedAt when the order was placed
 */
record OrderAccepted(
    String orderId,
    String customerId,
    String currency,
    BigDecimal total,
    int lineCount,
    Instant placedAt) {
  static final String SUBJECT = "OrderAccepted";

  /**
   * The largest total read: sums are kept in integer units of 0.0001 in a 64-bit integer, so one
   * total must stay far below 2^63 units for a customer's sum of many to stay exact.
   */
  static final BigDecimal MAX_TOTAL = BigDecimal.valueOf(100_000_000_000L);

  static final int MAX_LINES = 100_000;
  static final int SCALE = 4;
  static final Pattern ID = Pattern.compile("[A-Za-z0-9_.:\\-]{1,64}");

  /** Re-checks every invariant. */
  OrderAccepted {
    Objects.requireNonNull(placedAt, "placedAt");
    Objects.requireNonNull(total, "total");
    if (orderId == null || !ID.matcher(orderId).matches()) {
      throw new IllegalArgumentException("orderId must be 1-64 of [A-Za-z0-9_.:-]");
    }
    if (customerId == null || !ID.matcher(customerId).matches()) {
      throw new IllegalArgumentException("customerId must be 1-64 of [A-Za-z0-9_.:-]");
    }
    if (currency == null || !EventReader.isIsoCurrency(currency)) {
      throw new IllegalArgumentException("currency must be an ISO 4217 code");
    }
    if (total.signum() < 0 || total.compareTo(MAX_TOTAL) > 0 || total.scale() > SCALE) {
      throw new IllegalArgumentException("total must be 0 to " + MAX_TOTAL + ", 4 decimals");
    }
    if (lineCount < 1 || lineCount > MAX_LINES) {
      throw new IllegalArgumentException("lineCount must be 1 to " + MAX_LINES);
    }
  }

  /**
   * The total in exact integer units of 0.0001, the form sums are kept in.
   *
   * @return total × 10,000
   */
  long totalUnits() {
    return total.movePointRight(SCALE).longValueExact();
  }

  /**
   * The whole currency units of the total (rounded down): the loyalty points it earns.
   *
   * @return ⌊total⌋
   */
  long wholeUnits() {
    return total.toBigInteger().longValueExact();
  }
}
