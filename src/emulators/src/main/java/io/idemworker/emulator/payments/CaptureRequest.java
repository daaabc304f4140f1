package io.idemworker.emulator.payments;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Currency;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The parameters of one capture in canonical form: the amount without trailing zeros, so that
 * {@code 9.90} and {@code 9.9} are the same request. Two requests with one idempotency key are
 * compared with {@link #equals}.
 */
record CaptureRequest(String orderId, BigDecimal amount, String currency) {
  static final Set<String> FIELDS = Set.of("orderId", "amount", "currency");
  static final BigDecimal MAX_AMOUNT = new BigDecimal("999999999999.9999");
  private static final BigDecimal DECLINING_FRACTION = new BigDecimal("0.13");
  private static final Pattern ORDER_ID = Pattern.compile("[A-Za-z0-9_.:-]{1,64}");
  private static final Pattern DECIMAL_TEXT = Pattern.compile("[0-9]{1,12}(\\.[0-9]+)?");
  private static final Set<String> CURRENCIES =
      Currency.getAvailableCurrencies().stream()
          .map(Currency::getCurrencyCode)
          .collect(Collectors.toUnmodifiableSet());

  CaptureRequest {
    Objects.requireNonNull(orderId, "orderId");
    Objects.requireNonNull(currency, "currency");
    amount = Objects.requireNonNull(amount, "amount").stripTrailingZeros();
  }

  /** A parameter that is missing or out of range, named as the API names it. */
  record Violation(String param, String message) {}

  /** Either the request or every violation found, in field order. */
  record Parsed(Optional<CaptureRequest> request, List<Violation> violations) {}

  static Parsed parse(JsonNode body) {
    List<Violation> violations = new ArrayList<>();
    if (body == null || !body.isObject()) {
      violations.add(new Violation("body", "the body must be a JSON object"));
      return new Parsed(Optional.empty(), violations);
    }
    for (Iterator<String> names = body.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!FIELDS.contains(name)) {
        violations.add(new Violation(name, "unknown field '" + name + "'"));
      }
    }
    String orderId = text(body.get("orderId"));
    if (orderId == null || !ORDER_ID.matcher(orderId).matches()) {
      violations.add(
          new Violation("orderId", "orderId must be 1-64 letters, digits or -_.: characters"));
    }
    BigDecimal amount = amount(body.get("amount"));
    if (amount == null) {
      violations.add(
          new Violation(
              "amount",
              "amount must be a decimal greater than 0 and at most "
                  + MAX_AMOUNT.toPlainString()
                  + " with at most 4 decimal places"));
    }
    String currency = text(body.get("currency"));
    if (currency == null || !CURRENCIES.contains(currency)) {
      violations.add(
          new Violation("currency", "currency must be an upper-case ISO 4217 code such as EUR"));
    }
    if (!violations.isEmpty()) {
      return new Parsed(Optional.empty(), violations);
    }
    return new Parsed(Optional.of(new CaptureRequest(orderId, amount, currency)), List.of());
  }

  /** The test rule: an amount whose fractional part is exactly .13 is declined. */
  boolean declines() {
    return amount.remainder(BigDecimal.ONE).compareTo(DECLINING_FRACTION) == 0;
  }

  /** The amount as the API echoes it: plain decimal notation, no trailing zeros. */
  String amountText() {
    return amount.toPlainString();
  }

  /** The names of the parameters in which {@code other} differs from this request. */
  List<String> differingFields(CaptureRequest other) {
    List<String> fields = new ArrayList<>();
    if (!orderId.equals(other.orderId)) {
      fields.add("orderId");
    }
    if (amount.compareTo(other.amount) != 0) {
      fields.add("amount");
    }
    if (!currency.equals(other.currency)) {
      fields.add("currency");
    }
    return fields;
  }

  private static String text(JsonNode node) {
    return node != null && node.isTextual() ? node.asText() : null;
  }

  private static BigDecimal amount(JsonNode node) {
    BigDecimal value;
    if (node == null) {
      return null;
    } else if (node.isTextual() && DECIMAL_TEXT.matcher(node.asText()).matches()) {
      value = new BigDecimal(node.asText());
    } else if (node.isNumber()) {
      value = node.decimalValue();
    } else {
      return null;
    }
    boolean inRange = value.signum() > 0 && value.compareTo(MAX_AMOUNT) <= 0;
    return inRange && value.stripTrailingZeros().scale() <= 4 ? value : null;
  }
}
