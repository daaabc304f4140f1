package io.idemworker.orders;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
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
    JsonNode root;
    try {
      root = MAPPER.readTree(body);
    } catch (StreamConstraintsException e) {
      return new Unreadable(ExtraFields.beyondLimits(e));
    } catch (JsonProcessingException e) {
      JsonLocation at = e.getLocation();
      return new Unreadable(
          at == null
              ? "body is not valid JSON"
              : "body is not valid JSON at line "
                  + at.getLineNr()
                  + ", column "
                  + at.getColumnNr());
    } catch (IOException e) {
      return new Unreadable("body could not be read as JSON");
    }
    if (root == null || !root.isObject()) {
      return new Unreadable("body must be a JSON object");
    }
    List<String> violations = new ArrayList<>();
    String orderId = id(root, "orderId", violations);
    String customerId = id(root, "customerId", violations);
    String currency = currency(root, violations);
    Instant placedAt = instant(root, violations);
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
    if (!violations.isEmpty()) {
      return new Violations(List.copyOf(violations), validOrderId);
    }
    return new Parsed(new OrderPlaced(orderId, customerId, currency, placedAt, lines, extras));
  }

  private static String id(JsonNode root, String field, List<String> violations) {
    JsonNode node = root.get(field);
    if (node == null || node.isNull()) {
      violations.add(field + " is missing");
      return null;
    }
    if (!node.isTextual() || !OrderPlaced.ID_PATTERN.matcher(node.asText()).matches()) {
      violations.add(field + " must be a string of 1-64 letters, digits or -_.:");
      return null;
    }
    return node.asText();
  }

  private static String currency(JsonNode root, List<String> violations) {
    JsonNode node = root.get("currency");
    if (node == null || node.isNull()) {
      violations.add("currency is missing");
      return null;
    }
    if (!node.isTextual() || !isIsoCurrency(node.asText())) {
      violations.add("currency must be an ISO 4217 code such as EUR");
      return null;
    }
    return node.asText();
  }

  private static Instant instant(JsonNode root, List<String> violations) {
    JsonNode node = root.get("placedAt");
    if (node == null || node.isNull()) {
      violations.add("placedAt is missing");
      return null;
    }
    if (node.isTextual()) {
      try {
        return OffsetDateTime.parse(node.asText()).toInstant();
      } catch (DateTimeParseException e) {
        // reported below
      }
    }
    violations.add("placedAt must be an ISO 8601 instant such as 2026-11-30T10:00:00Z");
    return null;
  }

  private static List<OrderLine> lines(JsonNode root, List<String> violations) {
    JsonNode node = root.get("lines");
    if (node == null || node.isNull()) {
      violations.add("lines is missing");
      return List.of();
    }
    if (!node.isArray() || node.isEmpty() || node.size() > OrderPlaced.MAX_LINES) {
      violations.add("lines must be an array of 1 to " + OrderPlaced.MAX_LINES + " lines");
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
