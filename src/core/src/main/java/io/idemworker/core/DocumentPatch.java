package io.idemworker.core;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * A change to one existing document: field operations applied atomically, only when the document
 * exists and, if a {@link Condition} is given, only when the stored document satisfies it. A store
 * answers a missing document and an unmet condition differently ({@link EffectStore.TargetMissing},
 * {@link EffectStore.ConditionFailed}), because the flow must: the first means "not yet", the
 * second is the business rule the condition encodes.
 *
 * <p>Operations and conditions are closed sets that stores dispatch on with {@link Operation#fold}
 * and {@link Condition#fold}: a new kind does not compile until every store handles it. An {@link
 * AppendToArray} adds a {@link HoldsArray} condition on its field to the patch's condition (the
 * constructor does it), so a store never appends where no array is.
 *
 * @param id the document's id
 * @param operations the field operations, applied in order; at least one
 * @param condition the precondition on the stored document, if any
 */
public record DocumentPatch(String id, List<Operation> operations, Optional<Condition> condition) {
  private static final Pattern FIELD = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,63}");

  /**
   * Checks the id, copies the operations, and adds a {@link HoldsArray} condition for each field an
   * {@link AppendToArray} appends to.
   */
  public DocumentPatch {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(condition, "condition");
    operations = List.copyOf(operations);
    if (id.isEmpty() || operations.isEmpty()) {
      throw new IllegalArgumentException("a patch needs an id and at least one operation");
    }
    condition = withArrays(operations, condition);
  }

  /**
   * A patch without a condition (other than the arrays its appends need).
   *
   * @param id the document's id
   * @param operations the field operations; at least one
   */
  public DocumentPatch(String id, List<Operation> operations) {
    this(id, operations, Optional.empty());
  }

  private static Optional<Condition> withArrays(
      List<Operation> operations, Optional<Condition> condition) {
    Set<String> arrays = new LinkedHashSet<>();
    for (Operation operation : operations) {
      if (operation instanceof AppendToArray append) {
        arrays.add(append.field());
      }
    }
    if (arrays.isEmpty()) {
      return condition;
    }
    List<Condition> all = new ArrayList<>();
    condition.ifPresent(
        c -> all.addAll(c instanceof AllOf allOf ? allOf.conditions() : List.of(c)));
    for (String field : arrays) {
      if (!all.contains(new HoldsArray(field))) {
        all.add(new HoldsArray(field));
      }
    }
    return Optional.of(all.size() == 1 ? all.get(0) : new AllOf(all));
  }

  /**
   * One field operation. Fields are top-level names, so every store can express them (a Cosmos DB
   * patch path is {@code /name}).
   */
  public sealed interface Operation permits SetField, Increment, AppendToArray {
    /**
     * The top-level field this operation changes.
     *
     * @return the field name
     */
    String field();

    /**
     * Applies the function for this kind of operation. Stores dispatch with it, so a new kind of
     * operation does not compile until every store handles it.
     *
     * @param <T> what the caller makes of the operation
     * @param set sets a field
     * @param increment adds to an integer field
     * @param append appends to an array field
     * @return the chosen function's value
     */
    <T> T fold(
        Function<SetField, T> set,
        Function<Increment, T> increment,
        Function<AppendToArray, T> append);
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

    @Override
    public <T> T fold(
        Function<SetField, T> set,
        Function<Increment, T> increment,
        Function<AppendToArray, T> append) {
      return set.apply(this);
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

    @Override
    public <T> T fold(
        Function<SetField, T> set,
        Function<Increment, T> increment,
        Function<AppendToArray, T> append) {
      return increment.apply(this);
    }
  }

  /**
   * Appends a value to the end of the array a field holds: a relative change (a note added, a scan
   * recorded), so a message that appends must be protected by an inbox marker in the same write, as
   * an {@link Increment} is. The field must already hold an array (create the document with an
   * empty one): the patch's condition requires it ({@link HoldsArray}), so a document without the
   * array is answered {@link EffectStore.ConditionFailed} and nothing is written.
   *
   * @param field the array field
   * @param value the element to append
   */
  public record AppendToArray(String field, JsonNode value) implements Operation {
    /** Checks the field name. */
    public AppendToArray {
      checkField(field);
      Objects.requireNonNull(value, "value");
    }

    @Override
    public <T> T fold(
        Function<SetField, T> set,
        Function<Increment, T> increment,
        Function<AppendToArray, T> append) {
      return append.apply(this);
    }
  }

  /** A precondition on the stored document, kept to what both stores can evaluate exactly. */
  public sealed interface Condition permits FieldEquals, AbsentOrBelow, AtLeast, HoldsArray, AllOf {
    /**
     * Applies the function for this kind of condition. Stores dispatch with it, so a new kind of
     * condition does not compile until every store evaluates it.
     *
     * @param <T> what the caller makes of the condition
     * @param equals the field holds a value
     * @param absentOrBelow the field is absent or below a bound
     * @param atLeast the field is at least a bound
     * @param holdsArray the field holds an array
     * @param allOf every one of several conditions holds
     * @return the chosen function's value
     */
    <T> T fold(
        Function<FieldEquals, T> equals,
        Function<AbsentOrBelow, T> absentOrBelow,
        Function<AtLeast, T> atLeast,
        Function<HoldsArray, T> holdsArray,
        Function<AllOf, T> allOf);
  }

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

    @Override
    public <T> T fold(
        Function<FieldEquals, T> equals,
        Function<AbsentOrBelow, T> absentOrBelow,
        Function<AtLeast, T> atLeast,
        Function<HoldsArray, T> holdsArray,
        Function<AllOf, T> allOf) {
      return equals.apply(this);
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

    @Override
    public <T> T fold(
        Function<FieldEquals, T> equals,
        Function<AbsentOrBelow, T> absentOrBelow,
        Function<AtLeast, T> atLeast,
        Function<HoldsArray, T> holdsArray,
        Function<AllOf, T> allOf) {
      return absentOrBelow.apply(this);
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

    @Override
    public <T> T fold(
        Function<FieldEquals, T> equals,
        Function<AbsentOrBelow, T> absentOrBelow,
        Function<AtLeast, T> atLeast,
        Function<HoldsArray, T> holdsArray,
        Function<AllOf, T> allOf) {
      return atLeast.apply(this);
    }
  }

  /**
   * The field holds an array (of any length): what an {@link AppendToArray} needs.
   *
   * @param field the field
   */
  public record HoldsArray(String field) implements Condition {
    /** Checks the field name. */
    public HoldsArray {
      checkField(field);
    }

    @Override
    public <T> T fold(
        Function<FieldEquals, T> equals,
        Function<AbsentOrBelow, T> absentOrBelow,
        Function<AtLeast, T> atLeast,
        Function<HoldsArray, T> holdsArray,
        Function<AllOf, T> allOf) {
      return holdsArray.apply(this);
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

    @Override
    public <T> T fold(
        Function<FieldEquals, T> equals,
        Function<AbsentOrBelow, T> absentOrBelow,
        Function<AtLeast, T> atLeast,
        Function<HoldsArray, T> holdsArray,
        Function<AllOf, T> allOf) {
      return allOf.apply(this);
    }
  }

  private static void checkField(String field) {
    Objects.requireNonNull(field, "field");
    if (!FIELD.matcher(field).matches()) {
      throw new IllegalArgumentException("not a plain top-level field name: " + field);
    }
  }
}
