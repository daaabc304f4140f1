package io.idemworker.orders;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The {@code OrderPlaced} message body, validated.
 *
 * <p>Contract: {@code orderId} and {@code customerId} are 1–64 characters of letters, digits and
 * {@code -_.:}; {@code currency} is an ISO 4217 code; {@code placedAt} an ISO 8601 instant; {@code
 * lines} holds 1 to {@value #MAX_LINES} lines. Unknown extra fields are kept in {@link
 * #extraFields()} but are not part of the fingerprint.
 *
 * @param orderId the order id; also the Service Bus MessageId and the Cosmos partition key
 * @param customerId the customer id
 * @param currency the ISO 4217 currency code
 * @param placedAt when the customer placed the order
 * @param lines the order lines
 * @param extraFields unknown top-level fields, kept as sent
 */
record OrderPlaced(
    String orderId,
    String customerId,
    String currency,
    Instant placedAt,
    List<OrderLine> lines,
    Map<String, JsonNode> extraFields) {

  /**
   * At most this many lines: the order, its lines and the outbox event must fit in one Cosmos DB
   * transactional batch, whose limit is 100 operations.
   */
  public static final int MAX_LINES = 98;

  /** The largest quantity on one line. */
  public static final int MAX_QUANTITY = 10_000;

  /** The longest SKU. */
  public static final int MAX_SKU_LENGTH = 128;

  /** Ids: 1–64 characters of letters, digits and {@code -_.:}. */
  static final Pattern ID_PATTERN = Pattern.compile("[A-Za-z0-9_.:\\-]{1,64}");

  /** Re-checks the invariants. */
  public OrderPlaced {
    Objects.requireNonNull(placedAt, "placedAt");
    if (orderId == null || !ID_PATTERN.matcher(orderId).matches()) {
      throw new IllegalArgumentException("orderId must be 1-64 of [A-Za-z0-9_.:-]");
    }
    if (customerId == null || !ID_PATTERN.matcher(customerId).matches()) {
      throw new IllegalArgumentException("customerId must be 1-64 of [A-Za-z0-9_.:-]");
    }
    if (currency == null || !OrderPlacedReader.isIsoCurrency(currency)) {
      throw new IllegalArgumentException("currency must be an ISO 4217 code");
    }
    lines = List.copyOf(lines);
    if (lines.isEmpty() || lines.size() > MAX_LINES) {
      throw new IllegalArgumentException("lines must hold 1 to " + MAX_LINES + " lines");
    }
    extraFields = Map.copyOf(extraFields);
  }

  /**
   * The order's total.
   *
   * @return Σ quantity × unitPrice
   */
  public BigDecimal total() {
    return lines.stream().map(OrderLine::lineTotal).reduce(BigDecimal.ZERO, BigDecimal::add);
  }
}
