package io.idemworker.orders;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Currency;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Reads an {@code OrderPlaced} body and checks it against the contract, collecting every violation
 * with the path of the field it concerns ({@code lines[2].quantity}), never the field's value.
 *
 * <p>Thread-safe and stateless.
 */
final class OrderPlacedReader {
  static final ObjectMapper MAPPER =
      JsonMapper.builder()
          .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
          .build();

  private static final Set<String> CONTRACT_FIELDS =
      Set.of("orderId", "customerId", "currency", "placedAt", "lines");
  private static final Set<String> ISO_CURRENCIES =
      Currency.getAvailableCurrencies().stream()
          .map(Currency::getCurrencyCode)
          .collect(Collectors.toUnmodifiableSet());

  private OrderPlacedReader() {}

  /** The result of {@link #read}. */
  sealed interface Result permits Parsed, Unreadable, Violations {}

  /**
   * A valid order.
   *
   * @param order the order
   */
  record Parsed(OrderPlaced order) implements Result {}

  /**
   * Not JSON, or not a JSON object.
   *
   * @param description what the parser found
   */
  record Unreadable(String description) implements Result {}

  /**
   * JSON that breaks the contract.
   *
   * @param violations one entry per broken rule, each naming its field
   * @param orderId the order id, when it was valid
   */
  record Violations(List<String> violations, Optional<String> orderId) implements Result {}

  static boolean isIsoCurrency(String code) {
    return ISO_CURRENCIES.contains(code);
  }

  static Result read(byte[] body) {
    BodyFields.Body parsed = BodyFields.parse(body);
    if (parsed instanceof BodyFields.Unreadable unreadable) {
      return new Unreadable(unreadable.description());
    }
    JsonNode root = ((BodyFields.JsonObject) parsed).root();
    List<String> violations = new ArrayList<>();
    // The order document holds the body's fields and lines: one that cannot fit is refused here,
    // naming the field that makes it large, rather than by the store's 413 after the checks.
    if (body.length > OrderPlaced.MAX_DOCUMENT_BYTES - OrderPlaced.DOCUMENT_OVERHEAD_BYTES) {
      violations.add(
          "lines make the order document larger than Cosmos DB's item limit ("
              + body.length
              + " bytes of body, at most "
              + (OrderPlaced.MAX_DOCUMENT_BYTES - OrderPlaced.DOCUMENT_OVERHEAD_BYTES)
              + "); split the order");
      return new Violations(
          List.copyOf(violations), BodyFields.id(root, "orderId", new ArrayList<>()));
    }
    String orderId = BodyFields.id(root, "orderId", violations).orElse(null);
    String customerId = BodyFields.id(root, "customerId", violations).orElse(null);
    String currency = BodyFields.currency(root, violations).orElse(null);
    Instant placedAt = BodyFields.instant(root, "placedAt", violations).orElse(null);
    List<OrderLine> lines = lines(root, violations);
    Optional<String> validOrderId = Optional.ofNullable(orderId);
    if (!violations.isEmpty()) {
      return new Violations(List.copyOf(violations), validOrderId);
    }
    Map<String, JsonNode> extras = new LinkedHashMap<>();
    root.properties()
        .forEach(
            field -> {
              if (!CONTRACT_FIELDS.contains(field.getKey())) {
                extras.put(field.getKey(), field.getValue());
              }
            });
    ExtraFields.violations(extras).forEach(violations::add);
    OrderPlaced order = new OrderPlaced(orderId, customerId, currency, placedAt, lines, extras);
    if (order.total().movePointRight(4).compareTo(BigDecimal.valueOf(OrderReasons.MAX_EXACT_UNITS))
        > 0) {
      violations.add(
          "lines: the total (sum of quantity x unitPrice) must be at most 2^53 units of 0.0001"
              + " (900719925474.0992), so that readers using doubles hold it exactly");
    }
    if (!violations.isEmpty()) {
      return new Violations(List.copyOf(violations), validOrderId);
    }
    return new Parsed(order);
  }

  private static List<OrderLine> lines(JsonNode root, List<String> violations) {
    JsonNode node = root.get("lines");
    if (node == null || node.isNull()) {
      violations.add("lines is missing");
      return List.of();
    }
    if (!node.isArray() || node.isEmpty()) {
      violations.add("lines must be an array of at least 1 line");
      return List.of();
    }
    List<OrderLine> lines = new ArrayList<>(node.size());
    for (int i = 0; i < node.size(); i++) {
      String path = "lines[" + i + "]";
      JsonNode line = node.get(i);
      if (!line.isObject()) {
        violations.add(path + " must be an object");
        continue;
      }
      int before = violations.size();
      JsonNode sku = line.get("sku");
      if (sku == null
          || !sku.isTextual()
          || sku.asText().isBlank()
          || sku.asText().length() > OrderPlaced.MAX_SKU_LENGTH) {
        violations.add(path + ".sku must be a non-empty string of at most 128 characters");
      }
      JsonNode quantity = line.get("quantity");
      if (quantity == null
          || !quantity.isIntegralNumber()
          || !quantity.canConvertToInt()
          || quantity.intValue() < 1
          || quantity.intValue() > OrderPlaced.MAX_QUANTITY) {
        violations.add(path + ".quantity must be an integer from 1 to 10000");
      }
      JsonNode price = line.get("unitPrice");
      BigDecimal unitPrice = price != null && price.isNumber() ? price.decimalValue() : null;
      if (unitPrice == null || !OrderLine.isValidUnitPrice(unitPrice)) {
        violations.add(
            path
                + ".unitPrice must be a number from 0 to 1000000000 with at most 4 decimal places");
      }
      if (violations.size() == before) {
        lines.add(new OrderLine(sku.asText(), quantity.intValue(), unitPrice));
      }
    }
    return lines;
  }
}
