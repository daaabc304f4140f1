package io.idemworker.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.TextNode;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * Writes JSON in one canonical form so that equal content always hashes equally: object keys in
 * code-point order, no insignificant white space, numbers as plain decimals without trailing zeros
 * ({@code 9.90}, {@code 9.9} and {@code 9.9e0} are all {@code 9.9}), strings escaped minimally.
 */
final class CanonicalJson {
  private CanonicalJson() {}

  static String write(JsonNode node) {
    StringBuilder out = new StringBuilder(256);
    write(node, out);
    return out.toString();
  }

  private static void write(JsonNode node, StringBuilder out) {
    switch (node.getNodeType()) {
      case OBJECT -> {
        List<Map.Entry<String, JsonNode>> fields = new ArrayList<>(node.properties());
        Collections.sort(fields, Map.Entry.comparingByKey());
        out.append('{');
        for (int i = 0; i < fields.size(); i++) {
          if (i > 0) {
            out.append(',');
          }
          out.append(TextNode.valueOf(fields.get(i).getKey()));
          out.append(':');
          write(fields.get(i).getValue(), out);
        }
        out.append('}');
      }
      case ARRAY -> {
        out.append('[');
        for (int i = 0; i < node.size(); i++) {
          if (i > 0) {
            out.append(',');
          }
          write(node.get(i), out);
        }
        out.append(']');
      }
      case NUMBER -> out.append(canonicalNumber(node));
      case STRING -> out.append(node);
      case BOOLEAN -> out.append(node.booleanValue());
      case NULL, MISSING -> out.append("null");
      default -> out.append(TextNode.valueOf(node.asText()));
    }
  }

  private static String canonicalNumber(JsonNode node) {
    BigDecimal value =
        node.isFloatingPointNumber() && !node.isBigDecimal()
            ? BigDecimal.valueOf(node.doubleValue())
            : node.decimalValue();
    if (value.signum() == 0) {
      return "0";
    }
    return value.stripTrailingZeros().toPlainString();
  }

  /**
   * Returns a node for a decimal that reads back canonically whatever the JSON library does.
   *
   * @param value the decimal
   * @return a JSON number node
   */
  static JsonNode decimal(BigDecimal value) {
    return JsonNodeFactory.instance.numberNode(value);
  }
}
