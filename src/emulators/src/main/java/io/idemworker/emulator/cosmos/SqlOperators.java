package io.idemworker.emulator.cosmos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.TextNode;

/**
 * The binary operators of the dialect that compute a value: string concatenation {@code ||},
 * coalescing {@code ??} and arithmetic {@code + - * / %}. As on the service, {@code ||} needs two
 * strings and arithmetic two numbers, anything else (undefined included) giving undefined; {@code a
 * ?? b} is {@code a} unless {@code a} is undefined ({@code null} counts as defined). Integer
 * arithmetic stays integral unless it overflows a long; a division or modulo by zero is undefined.
 * Stateless.
 */
enum SqlOperators {
  COALESCE("??"),
  CONCAT("||"),
  ADD("+"),
  SUBTRACT("-"),
  MULTIPLY("*"),
  DIVIDE("/"),
  MODULO("%");

  final String symbol;

  SqlOperators(String symbol) {
    this.symbol = symbol;
  }

  /** The operator written {@code symbol}, or null. */
  static SqlOperators of(String symbol) {
    for (SqlOperators o : values()) {
      if (o.symbol.equals(symbol)) {
        return o;
      }
    }
    return null;
  }

  /** {@code left op right}; {@code right} is only evaluated when needed (for {@code ??}). */
  JsonNode apply(JsonNode left, java.util.function.Supplier<JsonNode> right) {
    if (this == COALESCE) {
      return left.isMissingNode() ? right.get() : left;
    }
    JsonNode r = right.get();
    if (this == CONCAT) {
      return left.isTextual() && r.isTextual()
          ? TextNode.valueOf(left.textValue() + r.textValue())
          : SqlExpression.UNDEFINED;
    }
    if (!left.isNumber() || !r.isNumber()) {
      return SqlExpression.UNDEFINED;
    }
    JsonNodeFactory f = JsonNodeFactory.instance;
    boolean integral =
        left.isIntegralNumber()
            && r.isIntegralNumber()
            && left.canConvertToLong()
            && r.canConvertToLong();
    if (integral && this != DIVIDE) {
      long a = left.longValue();
      long b = r.longValue();
      try {
        return switch (this) {
          case ADD -> f.numberNode(Math.addExact(a, b));
          case SUBTRACT -> f.numberNode(Math.subtractExact(a, b));
          case MULTIPLY -> f.numberNode(Math.multiplyExact(a, b));
          default -> b == 0 ? SqlExpression.UNDEFINED : f.numberNode(a % b);
        };
      } catch (ArithmeticException overflow) {
        // fall through to double arithmetic, as the service computes in doubles
      }
    }
    double a = left.doubleValue();
    double b = r.doubleValue();
    double v =
        switch (this) {
          case ADD -> a + b;
          case SUBTRACT -> a - b;
          case MULTIPLY -> a * b;
          case DIVIDE -> b == 0 ? Double.NaN : a / b;
          default -> b == 0 ? Double.NaN : a % b;
        };
    if (Double.isNaN(v) || Double.isInfinite(v)) {
      return SqlExpression.UNDEFINED;
    }
    if (v == Math.rint(v) && Math.abs(v) < 9.0e15) {
      return f.numberNode((long) v); // the service writes whole numbers without a fraction
    }
    return f.numberNode(v);
  }
}
