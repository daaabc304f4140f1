package io.idemworker.consumers;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.idemworker.core.DeadLetterReason;
import io.idemworker.core.MessageDecoder;
import java.io.IOException;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Currency;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Reads an {@code OrderAccepted} body into an {@link OrderAccepted}, or says which fields break the
 * contract (names and rules, never values). A tolerant reader: fields beyond the contract are
 * ignored (the producer may add some), and are not part of the fingerprint. Numbers are read as
 * exact decimals, never binary doubles.
 *
 * <p>Thread-safe and stateless.
 */
final class EventReader {
  private static final ObjectMapper MAPPER =
      JsonMapper.builder()
          .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
          .build();

  private static final Set<String> ISO_CURRENCIES =
      Currency.getAvailableCurrencies().stream()
          .map(Currency::getCurrencyCode)
          .collect(Collectors.toUnmodifiableSet());

  private EventReader() {}

  /** The result of {@link #read}. */
  sealed interface Result permits Read, Rejected {}

  /**
   * A valid event.
   *
   * @param event the event
   */
  record Read(OrderAccepted event) implements Result {}

  /**
   * An event that breaks the contract.
   *
   * @param invalid the dead-letter answer
   */
  record Rejected(MessageDecoder.Invalid invalid) implements Result {}

  static boolean isIsoCurrency(String code) {
    return ISO_CURRENCIES.contains(code);
  }

  static Result read(byte[] body) {
    JsonNode root;
    try {
      root = MAPPER.readTree(body);
    } catch (IOException e) {
      return rejected(DeadLetterReason.UNREADABLE_BODY, "body is not valid JSON", Optional.empty());
    }
    if (root == null || !root.isObject()) {
      return rejected(
          DeadLetterReason.UNREADABLE_BODY, "body must be a JSON object", Optional.empty());
    }
    List<String> violations = new ArrayList<>();
    Optional<String> orderId = id(root, "orderId", violations);
    Optional<String> customerId = id(root, "customerId", violations);
    Optional<String> currency = currency(root, violations);
    Optional<BigDecimal> total = total(root, violations);
    Optional<Integer> lineCount = lineCount(root, violations);
    Optional<Instant> placedAt = instant(root, "placedAt", violations);
    if (!violations.isEmpty()) {
      return rejected(
          DeadLetterReason.SCHEMA_VIOLATION,
          OrderAccepted.SUBJECT + ": " + String.join("; ", violations),
          customerId);
    }
    return new Read(
        new OrderAccepted(
            orderId.get(),
            customerId.get(),
            currency.get(),
            total.get(),
            lineCount.get(),
            placedAt.get()));
  }

  private static Result rejected(
      DeadLetterReason reason, String description, Optional<String> entityId) {
    return new Rejected(new MessageDecoder.Invalid(reason, description, entityId));
  }

  private static Optional<String> id(JsonNode root, String field, List<String> violations) {
    JsonNode node = root.get(field);
    if (node == null || node.isNull()) {
      violations.add(field + " is missing");
    } else if (!node.isTextual() || !OrderAccepted.ID.matcher(node.asText()).matches()) {
      violations.add(field + " must be a string of 1-64 letters, digits or -_.:");
    } else {
      return Optional.of(node.asText());
    }
    return Optional.empty();
  }

  private static Optional<String> currency(JsonNode root, List<String> violations) {
    JsonNode node = root.get("currency");
    if (node == null || node.isNull()) {
      violations.add("currency is missing");
    } else if (!node.isTextual() || !isIsoCurrency(node.asText())) {
      violations.add("currency must be an ISO 4217 code such as EUR");
    } else {
      return Optional.of(node.asText());
    }
    return Optional.empty();
  }

  private static Optional<BigDecimal> total(JsonNode root, List<String> violations) {
    JsonNode node = root.get("total");
    if (node == null || node.isNull()) {
      violations.add("total is missing");
      return Optional.empty();
    }
    // Compare before stripping: a number like 1e999999999 must be rejected without expanding it.
    if (node.isNumber()) {
      BigDecimal value = node.decimalValue();
      if (value.signum() >= 0 && value.compareTo(OrderAccepted.MAX_TOTAL) <= 0) {
        BigDecimal stripped = value.signum() == 0 ? BigDecimal.ZERO : value.stripTrailingZeros();
        if (stripped.scale() <= OrderAccepted.SCALE) {
          return Optional.of(stripped.setScale(Math.max(0, stripped.scale())));
        }
      }
    }
    violations.add(
        "total must be a number from 0 to "
            + OrderAccepted.MAX_TOTAL.toPlainString()
            + " with at most 4 decimal places");
    return Optional.empty();
  }

  private static Optional<Integer> lineCount(JsonNode root, List<String> violations) {
    JsonNode node = root.get("lineCount");
    if (node == null || node.isNull()) {
      violations.add("lineCount is missing");
    } else if (node.isIntegralNumber()
        && node.canConvertToInt()
        && node.asInt() >= 1
        && node.asInt() <= OrderAccepted.MAX_LINES) {
      return Optional.of(node.asInt());
    } else {
      violations.add("lineCount must be an integer from 1 to " + OrderAccepted.MAX_LINES);
    }
    return Optional.empty();
  }

  private static Optional<Instant> instant(JsonNode root, String field, List<String> violations) {
    JsonNode node = root.get(field);
    if (node == null || node.isNull()) {
      violations.add(field + " is missing");
      return Optional.empty();
    }
    if (node.isTextual()) {
      try {
        return Optional.of(OffsetDateTime.parse(node.asText()).toInstant());
      } catch (DateTimeParseException e) {
        // reported below
      }
    }
    violations.add(field + " must be an ISO 8601 instant such as 2026-11-30T10:00:00Z");
    return Optional.empty();
  }
}
