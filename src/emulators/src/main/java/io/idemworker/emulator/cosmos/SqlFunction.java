package io.idemworker.emulator.cosmos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/**
 * The built-in functions the emulator's SQL evaluator knows. A function given an argument of the
 * wrong type answers undefined, as the service does; {@code ignoreCase} (the optional last argument
 * of the string functions) must be a boolean.
 */
enum SqlFunction {
  IS_DEFINED(1, 1),
  IS_NULL(1, 1),
  IS_STRING(1, 1),
  IS_NUMBER(1, 1),
  IS_BOOL(1, 1),
  IS_BOOLEAN(1, 1),
  IS_PRIMITIVE(1, 1),
  IS_ARRAY(1, 1),
  IS_OBJECT(1, 1),
  STARTSWITH(2, 3),
  ENDSWITH(2, 3),
  CONTAINS(2, 3),
  ARRAY_CONTAINS(2, 2),
  ARRAY_LENGTH(1, 1),
  ABS(1, 1),
  LEFT(2, 2),
  LENGTH(1, 1),
  LOWER(1, 1),
  UPPER(1, 1);

  final int minArguments;
  final int maxArguments;

  SqlFunction(int minArguments, int maxArguments) {
    this.minArguments = minArguments;
    this.maxArguments = maxArguments;
  }

  /** The function of that name (any case), if the emulator knows it. */
  static Optional<SqlFunction> named(String name) {
    String upper = name.toUpperCase(Locale.ROOT);
    return Arrays.stream(values()).filter(f -> f.name().equals(upper)).findFirst();
  }

  JsonNode apply(JsonNode[] args) {
    JsonNode x = args[0];
    return switch (this) {
      case IS_DEFINED -> BooleanNode.valueOf(!x.isMissingNode());
      case IS_NULL -> BooleanNode.valueOf(x.isNull());
      case IS_STRING -> BooleanNode.valueOf(x.isTextual());
      case IS_NUMBER -> BooleanNode.valueOf(x.isNumber());
      case IS_BOOL, IS_BOOLEAN -> BooleanNode.valueOf(x.isBoolean());
      case IS_PRIMITIVE ->
          BooleanNode.valueOf(x.isNull() || x.isBoolean() || x.isNumber() || x.isTextual());
      case IS_ARRAY -> BooleanNode.valueOf(x.isArray());
      case IS_OBJECT -> BooleanNode.valueOf(x.isObject());
      case STARTSWITH, ENDSWITH, CONTAINS -> stringTest(args);
      case ARRAY_CONTAINS -> arrayContains(x, args[1]);
      case ARRAY_LENGTH -> x.isArray() ? IntNode.valueOf(x.size()) : SqlExpression.UNDEFINED;
      case ABS -> abs(x);
      case LEFT -> left(x, args[1]);
      case LENGTH ->
          x.isTextual()
              ? IntNode.valueOf(x.textValue().codePointCount(0, x.textValue().length()))
              : SqlExpression.UNDEFINED;
      case LOWER ->
          x.isTextual()
              ? TextNode.valueOf(x.textValue().toLowerCase(Locale.ROOT))
              : SqlExpression.UNDEFINED;
      case UPPER ->
          x.isTextual()
              ? TextNode.valueOf(x.textValue().toUpperCase(Locale.ROOT))
              : SqlExpression.UNDEFINED;
    };
  }

  private JsonNode stringTest(JsonNode[] args) {
    JsonNode s = args[0];
    JsonNode p = args[1];
    boolean ignoreCase = false;
    if (args.length == 3) {
      if (!args[2].isBoolean()) {
        return SqlExpression.UNDEFINED;
      }
      ignoreCase = args[2].booleanValue();
    }
    if (!s.isTextual() || !p.isTextual()) {
      return SqlExpression.UNDEFINED;
    }
    String text = ignoreCase ? s.textValue().toLowerCase(Locale.ROOT) : s.textValue();
    String part = ignoreCase ? p.textValue().toLowerCase(Locale.ROOT) : p.textValue();
    boolean result =
        switch (this) {
          case STARTSWITH -> text.startsWith(part);
          case ENDSWITH -> text.endsWith(part);
          default -> text.contains(part);
        };
    return BooleanNode.valueOf(result);
  }

  private static JsonNode abs(JsonNode x) {
    if (!x.isNumber()) {
      return SqlExpression.UNDEFINED;
    }
    if (x.isIntegralNumber() && x.canConvertToLong() && x.longValue() != Long.MIN_VALUE) {
      return LongNode.valueOf(Math.abs(x.longValue()));
    }
    return DoubleNode.valueOf(Math.abs(x.doubleValue()));
  }

  /** The first {@code n} characters (code points) of {@code s}; a negative n is undefined. */
  private static JsonNode left(JsonNode s, JsonNode n) {
    if (!s.isTextual() || !n.isIntegralNumber() || n.longValue() < 0) {
      return SqlExpression.UNDEFINED;
    }
    String text = s.textValue();
    int count = text.codePointCount(0, text.length());
    int take = (int) Math.min(n.longValue(), count);
    return TextNode.valueOf(text.substring(0, text.offsetByCodePoints(0, take)));
  }

  private static JsonNode arrayContains(JsonNode array, JsonNode value) {
    if (!array.isArray()) {
      return SqlExpression.UNDEFINED;
    }
    for (JsonNode element : array) {
      if (SqlValues.equal(element, value).orElse(false)) {
        return BooleanNode.TRUE;
      }
    }
    return BooleanNode.FALSE;
  }
}
