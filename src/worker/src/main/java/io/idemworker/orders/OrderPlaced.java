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
 * lines} holds at least 1 line, as many as fit in the order document ({@link #MAX_DOCUMENT_BYTES}).
 * Unknown extra fields are kept in {@link #extraFields()} but are not part of the fingerprint.
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
   * The largest order document Cosmos DB stores (its item limit, 2 MiB). The lines live in the
   * order document only, so this, not a line count, bounds an order: a body whose document would
   * not fit is refused before any write ({@link #DOCUMENT_OVERHEAD_BYTES}).
   */
  public static final int MAX_DOCUMENT_BYTES = 2 * 1024 * 1024;

  /**
   * What the order document adds to the body's own fields, at most: its id, type, total, line
   * count, keys, fingerprint, timestamps and Cosmos DB's system properties.
   */
  public static final int DOCUMENT_OVERHEAD_BYTES = 4096;

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
    if (lines.isEmpty()) {
      throw new IllegalArgumentException("lines must hold at least 1 line");
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
