package io.idemworker.orders;

import java.math.BigDecimal;
import java.util.Objects;

/**
 * One line of an order, already validated by {@link OrderPlacedReader}.
 *
 * @param sku the stock-keeping unit; 1 to 128 characters
 * @param quantity 1 to 10,000
 * @param unitPrice 0 to 1,000,000,000 with at most 4 decimal places (so every total is exact in the
 *     double that Cosmos DB stores numbers as)
 */
record OrderLine(String sku, int quantity, BigDecimal unitPrice) {

  /** Re-checks the invariants so that no invalid line can be built by other code either. */
  public OrderLine {
    Objects.requireNonNull(sku, "sku");
    Objects.requireNonNull(unitPrice, "unitPrice");
    if (sku.isBlank() || sku.length() > OrderPlaced.MAX_SKU_LENGTH) {
      throw new IllegalArgumentException("sku must be 1 to 128 characters");
    }
    if (quantity < 1 || quantity > OrderPlaced.MAX_QUANTITY) {
      throw new IllegalArgumentException("quantity must be 1 to 10000, was " + quantity);
    }
    if (!isValidUnitPrice(unitPrice)) {
      throw new IllegalArgumentException(
          "unitPrice must be 0 to 1000000000 with at most 4 decimal places");
    }
  }

  /** The largest unit price. */
  public static final BigDecimal MAX_UNIT_PRICE = BigDecimal.valueOf(1_000_000_000L);

  static boolean isValidUnitPrice(BigDecimal unitPrice) {
    // Compare before stripping: a number like 1e999999999 must be rejected without expanding it.
    return unitPrice.signum() >= 0
        && unitPrice.compareTo(MAX_UNIT_PRICE) <= 0
        && unitPrice.stripTrailingZeros().scale() <= 4;
  }

  /**
   * The line's total.
   *
   * @return quantity × unitPrice
   */
  public BigDecimal lineTotal() {
    return unitPrice.multiply(BigDecimal.valueOf(quantity));
  }
}
