package io.idemworker.orders;

import java.math.BigDecimal;
import java.util.Objects;

/**
 * One line of an order, already validated by {@link OrderPlacedReader}.
 *
 * @param sku the stock-keeping unit; 1 to 128 characters
 * @param quantity 1 to 10,000
 * @param unitPrice at least 0, at most 4 decimal places
 */
public record OrderLine(String sku, int quantity, BigDecimal unitPrice) {

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
    if (unitPrice.signum() < 0 || unitPrice.stripTrailingZeros().scale() > 4) {
      throw new IllegalArgumentException("unitPrice must be >= 0 with at most 4 decimal places");
    }
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
