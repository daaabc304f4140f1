package io.idemworker.emulator.cosmos;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Comparator;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Comparison rules of the Cosmos DB SQL dialect over JSON values. Equality holds for two values of
 * the same JSON type that are equal (numbers by value, so {@code 5 = 5.0}; arrays and objects
 * deeply) and is false for two defined values of different types; ordering ({@code < <= > >=}) is
 * defined for two numbers or two strings (ordinal). Anything else, undefined included, is not
 * comparable and yields an empty answer, which the caller turns into undefined.
 */
final class SqlValues {
  /**
   * The total order of {@code ORDER BY}: undefined, null, booleans (false first), numbers, strings,
   * arrays, objects; within a type by value.
   */
  static final Comparator<JsonNode> ORDER_BY = SqlValues::orderBy;

  private SqlValues() {}

  static Optional<Boolean> equal(JsonNode a, JsonNode b) {
    int ta = typeRank(a);
    int tb = typeRank(b);
    if (ta == 0 || tb == 0) {
      return Optional.empty();
    }
    // Two defined values of different types are unequal (so `c.n != null` keeps numbers), as
    // Microsoft's own SDK query tests expect of the service; its published table says undefined.
    return Optional.of(ta == tb && deepEqual(a, b));
  }

  static OptionalInt compare(JsonNode a, JsonNode b) {
    if (a.isNumber() && b.isNumber()) {
      return OptionalInt.of(compareNumbers(a, b));
    }
    if (a.isTextual() && b.isTextual()) {
      return OptionalInt.of(Integer.signum(a.textValue().compareTo(b.textValue())));
    }
    return OptionalInt.empty();
  }

  private static int orderBy(JsonNode a, JsonNode b) {
    int ta = typeRank(a);
    int tb = typeRank(b);
    if (ta != tb) {
      return Integer.compare(ta, tb);
    }
    return switch (ta) {
      case 2 -> Boolean.compare(a.booleanValue(), b.booleanValue());
      case 3 -> compareNumbers(a, b);
      case 4 -> a.textValue().compareTo(b.textValue());
      case 5, 6 -> a.toString().compareTo(b.toString());
      default -> 0;
    };
  }

  private static int typeRank(JsonNode n) {
    if (n.isMissingNode()) {
      return 0;
    }
    if (n.isNull()) {
      return 1;
    }
    if (n.isBoolean()) {
      return 2;
    }
    if (n.isNumber()) {
      return 3;
    }
    if (n.isTextual()) {
      return 4;
    }
    return n.isArray() ? 5 : 6;
  }

  private static int compareNumbers(JsonNode a, JsonNode b) {
    if (a.isIntegralNumber()
        && b.isIntegralNumber()
        && a.canConvertToLong()
        && b.canConvertToLong()) {
      return Long.compare(a.longValue(), b.longValue());
    }
    return Double.compare(a.doubleValue(), b.doubleValue());
  }

  private static boolean deepEqual(JsonNode a, JsonNode b) {
    if (typeRank(a) != typeRank(b)) {
      return false;
    }
    if (a.isNumber()) {
      return compareNumbers(a, b) == 0;
    }
    if (a.isArray()) {
      if (a.size() != b.size()) {
        return false;
      }
      for (int i = 0; i < a.size(); i++) {
        if (!deepEqual(a.get(i), b.get(i))) {
          return false;
        }
      }
      return true;
    }
    if (a.isObject()) {
      if (a.size() != b.size()) {
        return false;
      }
      for (Iterator<Map.Entry<String, JsonNode>> it = a.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        JsonNode other = b.get(e.getKey());
        if (other == null || !deepEqual(e.getValue(), other)) {
          return false;
        }
      }
      return true;
    }
    return a.equals(b);
  }

  /**
   * A key equal for two values exactly when {@link #equal} holds (numbers by value, so {@code 5}
   * and {@code 5.0} share one; object properties in any order), for DISTINCT and GROUP BY.
   */
  static String distinctKey(JsonNode n) {
    StringBuilder out = new StringBuilder();
    appendKey(n, out);
    return out.toString();
  }

  private static void appendKey(JsonNode n, StringBuilder out) {
    if (n.isMissingNode()) {
      out.append('u');
    } else if (n.isNumber()) {
      out.append('n').append(n.decimalValue().stripTrailingZeros().toPlainString()).append(';');
    } else if (n.isArray()) {
      out.append('[');
      for (JsonNode e : n) {
        appendKey(e, out);
        out.append(',');
      }
      out.append(']');
    } else if (n.isObject()) {
      java.util.TreeMap<String, JsonNode> sorted = new java.util.TreeMap<>();
      n.fields().forEachRemaining(e -> sorted.put(e.getKey(), e.getValue()));
      out.append('{');
      sorted.forEach(
          (k, v) -> {
            out.append(com.fasterxml.jackson.databind.node.TextNode.valueOf(k)).append(':');
            appendKey(v, out);
            out.append(',');
          });
      out.append('}');
    } else {
      out.append(n.toString());
    }
  }

  /**
   * {@code n} with every whole number in long range written as an integer ({@code 5.0} as {@code
   * 5}), recursively; other values as they are. The service keeps numbers as doubles and writes
   * whole ones without a fraction.
   */
  static JsonNode wholeNumbersAsIntegers(JsonNode n) {
    if (n.isFloatingPointNumber()) {
      double d = n.doubleValue();
      return d == Math.rint(d) && Math.abs(d) < 9.0e15
          ? com.fasterxml.jackson.databind.node.LongNode.valueOf((long) d)
          : n;
    }
    if (n.isArray()) {
      com.fasterxml.jackson.databind.node.ArrayNode out =
          com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.arrayNode();
      n.forEach(e -> out.add(wholeNumbersAsIntegers(e)));
      return out;
    }
    if (n.isObject()) {
      com.fasterxml.jackson.databind.node.ObjectNode out =
          com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode();
      n.fields().forEachRemaining(e -> out.set(e.getKey(), wholeNumbersAsIntegers(e.getValue())));
      return out;
    }
    return n;
  }
}
