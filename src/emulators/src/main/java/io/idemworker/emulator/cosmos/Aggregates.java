package io.idemworker.emulator.cosmos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.LongNode;
import java.util.List;

/**
 * The aggregate functions over the defined values of one query's documents. {@code COUNT} counts
 * them; {@code SUM} and {@code AVG} need numbers (any other value makes them undefined; {@code SUM}
 * of nothing is 0, {@code AVG} of nothing undefined); {@code MIN} and {@code MAX} take numbers,
 * strings, booleans or null in the {@link SqlValues#ORDER_BY} order and are undefined over nothing
 * or over an array or object. Integers stay integers while they fit a long. Stateless.
 */
final class Aggregates {
  private Aggregates() {}

  static JsonNode apply(SqlExpression.Aggregate.Function function, List<JsonNode> values) {
    return switch (function) {
      case COUNT -> LongNode.valueOf(values.size());
      case SUM -> sum(values);
      case AVG -> {
        JsonNode sum = sum(values);
        yield sum.isMissingNode() || values.isEmpty()
            ? SqlExpression.UNDEFINED
            : DoubleNode.valueOf(sum.doubleValue() / values.size());
      }
      case MIN, MAX -> extreme(values, function == SqlExpression.Aggregate.Function.MAX);
    };
  }

  private static JsonNode sum(List<JsonNode> values) {
    long whole = 0;
    double real = 0;
    boolean integral = true;
    for (JsonNode v : values) {
      if (!v.isNumber()) {
        return SqlExpression.UNDEFINED;
      }
      if (integral && v.isIntegralNumber() && v.canConvertToLong()) {
        try {
          whole = Math.addExact(whole, v.longValue());
          continue;
        } catch (ArithmeticException overflow) {
          // continue in doubles below
        }
      }
      if (integral) {
        integral = false;
        real = whole;
      }
      real += v.doubleValue();
    }
    return integral ? LongNode.valueOf(whole) : DoubleNode.valueOf(real);
  }

  private static JsonNode extreme(List<JsonNode> values, boolean max) {
    JsonNode best = SqlExpression.UNDEFINED;
    for (JsonNode v : values) {
      if (v.isContainerNode()) {
        return SqlExpression.UNDEFINED;
      }
      if (best.isMissingNode()) {
        best = v;
      } else {
        int c = SqlValues.ORDER_BY.compare(v, best);
        if (max ? c > 0 : c < 0) {
          best = v;
        }
      }
    }
    return best;
  }
}
