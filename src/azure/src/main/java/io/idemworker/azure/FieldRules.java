package io.idemworker.azure;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * The contract of a message body, field by field: what each top-level field must hold. A body that
 * breaks a rule is dead-lettered at once as {@code SchemaViolation}, with a description that names
 * every broken field and its rule and never a value. The fields named here are the message's
 * content: they are fingerprinted (a copy with the same key and different content is a reused key,
 * dead-lettered as {@code IdempotencyConflict}); fields not named are kept out of the fingerprint.
 *
 * <pre>{@code
 * rules -> rules.id("shipmentId").text("origin", 1, 64).instant("createdAt").integer("version", 1, 1000)
 * }</pre>
 *
 * <p>Not thread-safe while it is being filled; a {@link MessageType} copies it when registered.
 */
public final class FieldRules {
  private static final Pattern ID = Pattern.compile("[A-Za-z0-9_.:\\-]{1,128}");
  private static final Pattern FIELD = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,63}");

  private final Map<String, Rule> rules = new LinkedHashMap<>();

  FieldRules() {}

  private record Rule(boolean required, Predicate<JsonNode> holds, String description) {}

  /**
   * A required identifier: a string of 1–128 letters, digits and {@code -_.:}, the shape a key, a
   * partition key value and a document id can all take.
   *
   * @param field the field
   * @return these rules
   */
  public FieldRules id(String field) {
    return rule(
        field,
        true,
        node -> node.isTextual() && ID.matcher(node.asText()).matches(),
        "must be 1-128 letters, digits or -_.:");
  }

  /**
   * A required string of a bounded length.
   *
   * @param field the field
   * @param min the least length, at least 0
   * @param max the greatest length
   * @return these rules
   */
  public FieldRules text(String field, int min, int max) {
    if (min < 0 || max < min) {
      throw new IllegalArgumentException("text lengths must be 0 <= min <= max");
    }
    return rule(
        field,
        true,
        node ->
            node.isTextual()
                && node.asText().codePointCount(0, node.asText().length()) >= min
                && node.asText().codePointCount(0, node.asText().length()) <= max,
        "must be a string of " + min + "-" + max + " characters");
  }

  /**
   * A required integer in a range.
   *
   * @param field the field
   * @param min the least value
   * @param max the greatest value
   * @return these rules
   */
  public FieldRules integer(String field, long min, long max) {
    if (max < min) {
      throw new IllegalArgumentException("integer bounds must be min <= max");
    }
    return rule(
        field,
        true,
        node ->
            node.isIntegralNumber()
                && node.canConvertToLong()
                && node.asLong() >= min
                && node.asLong() <= max,
        "must be an integer from " + min + " to " + max);
  }

  /**
   * A required ISO 8601 instant, such as {@code 2026-11-30T10:00:00Z}.
   *
   * @param field the field
   * @return these rules
   */
  public FieldRules instant(String field) {
    return rule(field, true, FieldRules::isInstant, "must be an ISO 8601 instant");
  }

  /**
   * A required string that is one of the given values.
   *
   * @param field the field
   * @param values the allowed values
   * @return these rules
   */
  public FieldRules oneOf(String field, Set<String> values) {
    Set<String> allowed = Set.copyOf(values);
    return rule(
        field,
        true,
        node -> node.isTextual() && allowed.contains(node.asText()),
        "must be one of " + String.join(" | ", allowed.stream().sorted().toList()));
  }

  /**
   * A required field under a rule of the caller's own.
   *
   * @param field the field
   * @param holds whether a present value is valid; must not throw
   * @param description what the rule asks, as it appears in dead-letter descriptions (never a
   *     value), e.g. {@code "must be a non-empty array"}
   * @return these rules
   */
  public FieldRules custom(String field, Predicate<JsonNode> holds, String description) {
    return rule(field, true, holds, description);
  }

  /**
   * An optional field: absent or {@code null} passes; a present value must hold the rule.
   *
   * @param field the field
   * @param holds whether a present value is valid; must not throw
   * @param description what the rule asks
   * @return these rules
   */
  public FieldRules optional(String field, Predicate<JsonNode> holds, String description) {
    return rule(field, false, holds, description);
  }

  private FieldRules rule(
      String field, boolean required, Predicate<JsonNode> holds, String description) {
    Objects.requireNonNull(field, "field");
    Objects.requireNonNull(holds, "holds");
    Objects.requireNonNull(description, "description");
    if (!FIELD.matcher(field).matches()) {
      throw new IllegalArgumentException("not a plain top-level field name: " + field);
    }
    if (rules.putIfAbsent(field, new Rule(required, holds, description)) != null) {
      throw new IllegalArgumentException("field " + field + " has a rule already");
    }
    return this;
  }

  FieldRules copy() {
    FieldRules copy = new FieldRules();
    copy.rules.putAll(rules);
    return copy;
  }

  boolean isEmpty() {
    return rules.isEmpty();
  }

  /**
   * Every broken rule of a body, each naming its field.
   *
   * @param body the body
   * @return the violations, empty when the body keeps the contract
   */
  List<String> violations(ObjectNode body) {
    List<String> violations = new ArrayList<>();
    rules.forEach(
        (field, rule) -> {
          JsonNode value = body.get(field);
          if (value == null || value.isNull()) {
            if (rule.required()) {
              violations.add(field + " is missing");
            }
            return;
          }
          boolean holds;
          try {
            holds = rule.holds().test(value);
          } catch (RuntimeException e) {
            holds = false;
          }
          if (!holds) {
            violations.add(field + " " + rule.description());
          }
        });
    return violations;
  }

  /**
   * The named fields of a body, as they were declared, in sequence: the message's content.
   *
   * @param body a body that keeps the contract
   * @return a new object with only those fields
   */
  ObjectNode contentOf(ObjectNode body) {
    ObjectNode content = body.objectNode();
    rules
        .keySet()
        .forEach(
            field -> {
              JsonNode value = body.get(field);
              if (value != null && !value.isNull()) {
                content.set(field, value.deepCopy());
              }
            });
    return content;
  }

  private static boolean isInstant(JsonNode node) {
    if (!node.isTextual()) {
      return false;
    }
    try {
      Instant.parse(node.asText());
      return true;
    } catch (DateTimeParseException e) {
      return false;
    }
  }
}
