package io.idemworker.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * Writes JSON in one canonical form so that equal content always hashes equally: object keys in
 * UTF-16 code unit order (as {@link String#compareTo}), no insignificant white space, numbers as
 * plain decimals without trailing zeros ({@code 9.90}, {@code 9.9} and {@code 9.9e0} are all {@code
 * 9.9}; exponents beyond ±{@value #MAX_PLAIN_EXPONENT} stay in E-notation so no input can make the
 * plain form huge), strings escaped minimally by this class itself (only {@code "}, {@code \} and
 * control characters), so that a library upgrade cannot change the fingerprints of stored
 * documents.
 */
final class CanonicalJson {
  static final int MAX_PLAIN_EXPONENT = 100;

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
          string(fields.get(i).getKey(), out);
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
      case STRING -> string(node.textValue(), out);
      case BOOLEAN -> out.append(node.booleanValue());
      case NULL, MISSING -> out.append("null");
      default -> string(node.asText(), out);
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
    BigDecimal stripped = value.stripTrailingZeros();
    long exponent = (long) stripped.precision() - stripped.scale();
    if (Math.abs(exponent) > MAX_PLAIN_EXPONENT) {
      return stripped.toString();
    }
    return stripped.toPlainString();
  }

  /**
   * Appends {@code text} as a canonical JSON string.
   *
   * @param text the string
   * @param out where it goes
   */
  static void appendString(String text, StringBuilder out) {
    string(text, out);
  }

  private static void string(String text, StringBuilder out) {
    out.append('"');
    int plain = 0;
    while (plain < text.length() && !needsEscape(text.charAt(plain))) {
      plain++;
    }
    if (plain == text.length()) {
      out.append(text).append('"');
      return;
    }
    out.append(text, 0, plain);
    for (int i = plain; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\b' -> out.append("\\b");
        case '\f' -> out.append("\\f");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }

  private static boolean needsEscape(char c) {
    return c < 0x20 || c == '"' || c == '\\';
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
