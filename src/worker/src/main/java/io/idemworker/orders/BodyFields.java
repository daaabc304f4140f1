package io.idemworker.orders;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.core.DeadLetterReason;
import io.idemworker.core.IncomingMessage;
import io.idemworker.core.MessageDecoder;
import java.io.IOException;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Supplier;

/**
 * Reads message bodies and checks their fields, one rule per field shape, collecting violations
 * that name the field and the rule, never the value. Shared by every order message type so the same
 * field gets the same answer everywhere.
 *
 * <p>Thread-safe and stateless. Each check returns the value when valid and otherwise adds one
 * violation and returns empty.
 */
final class BodyFields {
  /** The largest money amount one message may carry. */
  static final BigDecimal MAX_AMOUNT = BigDecimal.valueOf(1_000_000_000L);

  /** Money is kept with at most this many decimal places (integer units of 0.0001). */
  static final int AMOUNT_SCALE = 4;

  private BodyFields() {}

  /** The result of {@link #parse}: a JSON object or why the body is not one. */
  sealed interface Body permits JsonObject, Unreadable {}

  /**
   * A JSON object.
   *
   * @param root the object
   */
  record JsonObject(ObjectNode root) implements Body {}

  /**
   * Not JSON, or not a JSON object.
   *
   * @param description what the parser found, with line and column; never content
   */
  record Unreadable(String description) implements Body {}

  static Body parse(byte[] body) {
    JsonNode root;
    try {
      root = OrderPlacedReader.MAPPER.readTree(body);
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
    return new JsonObject((ObjectNode) root);
  }

  static Optional<String> id(JsonNode root, String field, List<String> violations) {
    JsonNode node = root.get(field);
    if (node == null || node.isNull()) {
      violations.add(field + " is missing");
      return Optional.empty();
    }
    if (!node.isTextual() || !OrderPlaced.ID_PATTERN.matcher(node.asText()).matches()) {
      violations.add(field + " must be a string of 1-64 letters, digits or -_.:");
      return Optional.empty();
    }
    return Optional.of(node.asText());
  }

  static Optional<String> currency(JsonNode root, List<String> violations) {
    JsonNode node = root.get("currency");
    if (node == null || node.isNull()) {
      violations.add("currency is missing");
      return Optional.empty();
    }
    if (!node.isTextual() || !OrderPlacedReader.isIsoCurrency(node.asText())) {
      violations.add("currency must be an ISO 4217 code such as EUR");
      return Optional.empty();
    }
    return Optional.of(node.asText());
  }

  /** The earliest instant a message may carry (placedAt, changedAt, created). */
  static final Instant EARLIEST = Instant.parse("2000-01-01T00:00:00Z");

  /** The first instant a message may no longer carry. */
  static final Instant LATEST = Instant.parse("2100-01-01T00:00:00Z");

  static Optional<Instant> instant(JsonNode root, String field, List<String> violations) {
    JsonNode node = root.get(field);
    if (node == null || node.isNull()) {
      violations.add(field + " is missing");
      return Optional.empty();
    }
    if (node.isTextual()) {
      try {
        Instant instant = OffsetDateTime.parse(node.asText()).toInstant();
        if (!instant.isBefore(EARLIEST) && instant.isBefore(LATEST)) {
          return Optional.of(instant);
        }
        violations.add(field + " must be from " + EARLIEST + " to before " + LATEST);
        return Optional.empty();
      } catch (DateTimeParseException e) {
        // reported below
      }
    }
    violations.add(field + " must be an ISO 8601 instant such as 2026-11-30T10:00:00Z");
    return Optional.empty();
  }

  /** A positive amount of money, at most {@link #MAX_AMOUNT}, with at most 4 decimal places. */
  static Optional<BigDecimal> amount(JsonNode root, String field, List<String> violations) {
    JsonNode node = root.get(field);
    if (node == null || node.isNull()) {
      violations.add(field + " is missing");
      return Optional.empty();
    }
    // Compare before stripping: a number like 1e999999999 must be rejected without expanding it.
    if (node.isNumber()) {
      BigDecimal value = node.decimalValue();
      if (value.signum() > 0
          && value.compareTo(MAX_AMOUNT) <= 0
          && value.stripTrailingZeros().scale() <= AMOUNT_SCALE) {
        return Optional.of(value.stripTrailingZeros());
      }
    }
    violations.add(
        field + " must be a number above 0 and at most 1000000000 with at most 4 decimal places");
    return Optional.empty();
  }

  /** An integer from {@code min} to {@code max}. */
  static Optional<Long> integer(
      JsonNode root, String field, long min, long max, List<String> violations) {
    JsonNode node = root.get(field);
    if (node == null || node.isNull()) {
      violations.add(field + " is missing");
      return Optional.empty();
    }
    if (node.isIntegralNumber() && node.canConvertToLong()) {
      long value = node.asLong();
      if (value >= min && value <= max) {
        return Optional.of(value);
      }
    }
    violations.add(field + " must be an integer from " + min + " to " + max);
    return Optional.empty();
  }

  /** A string of 0 to {@code maxLength} characters. */
  static Optional<String> text(
      JsonNode root, String field, int maxLength, List<String> violations) {
    JsonNode node = root.get(field);
    if (node == null || node.isNull()) {
      violations.add(field + " is missing");
      return Optional.empty();
    }
    if (!node.isTextual() || node.asText().length() > maxLength) {
      violations.add(field + " must be a string of at most " + maxLength + " characters");
      return Optional.empty();
    }
    return Optional.of(node.asText());
  }

  /**
   * What a change message's fields read to: the order it concerns, the MessageId its key must be,
   * and the valid message, built only when every field passed.
   *
   * @param orderId the order id, when it was valid
   * @param expectedMessageId the MessageId the body implies (called only when valid)
   * @param mismatch the description of a MessageId that differs, naming the rule
   * @param message the valid message (called only when valid)
   */
  record Candidate(
      Optional<String> orderId,
      Supplier<String> expectedMessageId,
      String mismatch,
      Supplier<MessageDecoder.ValidMessage> message) {}

  /**
   * Decodes a change to an existing order strictly: the body must be a JSON object whose fields all
   * pass and include none outside the contract (a field the worker would ignore on a message that
   * changes state is a contract mismatch worth seeing), and, when the MessageId is the key, the
   * MessageId must be the one the body implies.
   *
   * @param message the delivery
   * @param messageIdMustMatchKey whether the MessageId is the idempotency key
   * @param subject the message type, for descriptions
   * @param contract the fields the contract allows
   * @param read reads the fields, adding one violation per broken rule
   * @return the decoding
   */
  static MessageDecoder.Decoding decodeStrict(
      IncomingMessage message,
      boolean messageIdMustMatchKey,
      String subject,
      Set<String> contract,
      BiFunction<ObjectNode, List<String>, Candidate> read) {
    Body body = parse(message.body());
    if (body instanceof Unreadable unreadable) {
      return new MessageDecoder.Invalid(
          DeadLetterReason.UNREADABLE_BODY, unreadable.description(), Optional.empty());
    }
    ObjectNode root = ((JsonObject) body).root();
    List<String> violations = new ArrayList<>();
    Candidate candidate = read.apply(root, violations);
    root.fieldNames()
        .forEachRemaining(
            name -> {
              if (!contract.contains(name)) {
                violations.add(name + " is not a field of " + subject);
              }
            });
    if (!violations.isEmpty()) {
      return new MessageDecoder.Invalid(
          DeadLetterReason.SCHEMA_VIOLATION,
          OrderDecoder.summarize(violations),
          candidate.orderId());
    }
    if (messageIdMustMatchKey
        && message
            .messageId()
            .filter(id -> !id.equals(candidate.expectedMessageId().get()))
            .isPresent()) {
      return new MessageDecoder.Invalid(
          DeadLetterReason.MESSAGE_ID_MISMATCH, candidate.mismatch(), candidate.orderId());
    }
    return new MessageDecoder.Valid(candidate.message().get());
  }

  /** Money in exact integer units of 0.0001, the form sums are kept in. */
  static long units(BigDecimal amount) {
    return amount.movePointRight(AMOUNT_SCALE).longValueExact();
  }
}
