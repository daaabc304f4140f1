package io.idemworker.core;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A change to one existing document: field operations applied atomically, only when the document
 * exists and, if a {@link Condition} is given, only when the stored document satisfies it. A store
 * answers a missing document and an unmet condition differently ({@link EffectStore.TargetMissing},
 * {@link EffectStore.ConditionFailed}), because the flow must: the first means "not yet", the
 * second is the business rule the condition encodes.
 *
 * @param id the document's id
 * @param operations the field operations, applied in order; at least one
 * @param condition the precondition on the stored document, if any
 */
public record DocumentPatch(String id, List<Operation> operations, Optional<Condition> condition) {
  private static final Pattern FIELD = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,63}");

  /** Checks the id and copies the operations. */
  public DocumentPatch {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(condition, "condition");
    operations = List.copyOf(operations);
    if (id.isEmpty() || operations.isEmpty()) {
      throw new IllegalArgumentException("a patch needs an id and at least one operation");
    }
  }

  /**
   * One field operation. Fields are top-level names, so every store can express them (a Cosmos DB
   * patch path is {@code /name}).
   */
  public sealed interface Operation {
    /**
     * The top-level field this operation changes.
     *
     * @return the field name
     */
    String field();
  }

  /**
   * Sets a field to a value, adding it when absent.
   *
   * @param field the field
   * @param value the new value
   */
  public record SetField(String field, JsonNode value) implements Operation {
    /** Checks the field name. */
    public SetField {
      checkField(field);
      Objects.requireNonNull(value, "value");
    }
  }

  /**
   * Adds an integer to a field (absent counts as 0). Integers only: money is kept in integer minor
   * units, because adding binary fractions drifts.
   *
   * @param field the field
   * @param delta the amount to add
   */
  public record Increment(String field, long delta) implements Operation {
    /** Checks the field name. */
    public Increment {
      checkField(field);
    }
  }

  /** A precondition on the stored document, kept to what both stores can evaluate exactly. */
  public sealed interface Condition {}

  /**
   * The field holds exactly this value.
   *
   * @param field the field
   * @param value the value it must equal
   */
  public record FieldEquals(String field, JsonNode value) implements Condition {
    /** Checks the field name; the value must be a string, number or boolean. */
    public FieldEquals {
      checkField(field);
      Objects.requireNonNull(value, "value");
      if (!value.isValueNode() || value.isNull()) {
        throw new IllegalArgumentException("FieldEquals compares strings, numbers or booleans");
      }
    }
  }

  /**
   * The field is absent, or holds an integer below the bound: the version guard.
   *
   * @param field the field
   * @param bound the stored value must be below this
   */
  public record AbsentOrBelow(String field, long bound) implements Condition {
    /** Checks the field name. */
    public AbsentOrBelow {
      checkField(field);
    }
  }

  /**
   * The field is present and at least {@code bound}: a budget that a decrement must not take below
   * zero ({@code c.field >= bound}).
   *
   * @param field a plain top-level field
   * @param bound the least value that passes
   */
  public record AtLeast(String field, long bound) implements Condition {
    /** Checks the field name. */
    public AtLeast {
      checkField(field);
    }
  }

  /**
   * Every one of the conditions holds: a compare-and-set on several fields, such as a two-phase
   * record's status and attempt number (its fencing token).
   *
   * @param conditions the conditions; at least two, none of them an {@code AllOf}
   */
  public record AllOf(List<Condition> conditions) implements Condition {
    /** Copies and checks the conditions. */
    public AllOf {
      conditions = List.copyOf(conditions);
      if (conditions.size() < 2 || conditions.stream().anyMatch(AllOf.class::isInstance)) {
        throw new IllegalArgumentException("AllOf takes two or more plain conditions");
      }
    }
  }

  private static void checkField(String field) {
    Objects.requireNonNull(field, "field");
    if (!FIELD.matcher(field).matches()) {
      throw new IllegalArgumentException("not a plain top-level field name: " + field);
    }
  }
}
