package io.idemworker.orders;

import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * What the worker refuses to pass on in the fields outside the contract, because Cosmos DB would
 * not store it as sent: numbers that an IEEE 754 double (the service's number type) cannot hold
 * exactly, such as {@code 1e400} (which would become infinity) or {@code 0.10000000000000000001}
 * (which would be rounded), and strings with an unpaired UTF-16 surrogate (which cannot be written
 * as UTF-8). Each violation names the field's path, never its value. Stateless.
 */
final class ExtraFields {
  /** At most this many violations are listed: dead-letter descriptions have a limit. */
  private static final int MAX_LISTED = 10;

  private ExtraFields() {}

  /** One line per offending value, at most {@value #MAX_LISTED}; empty when all can be kept. */
  static List<String> violations(Map<String, JsonNode> extras) {
    List<String> out = new ArrayList<>();
    extras.forEach((name, value) -> walk(path(name), value, out));
    return out;
  }

  /** The description for a body past the JSON parser's limits, naming the limit. */
  static String beyondLimits(StreamConstraintsException e) {
    String limit = String.valueOf(e.getOriginalMessage());
    int from = limit.indexOf(", from `");
    if (from > 0) {
      limit = limit.substring(0, from) + ")";
    }
    return "body is beyond the JSON parser's limits: " + limit;
  }

  private static void walk(String path, JsonNode node, List<String> out) {
    // Iteration over a node's children recurses at most as deep as the parser allowed (1000).
    if (out.size() >= MAX_LISTED) {
      return;
    }
    if (node.isNumber() && !fitsADouble(node)) {
      out.add(
          path
              + " is a number that Cosmos DB cannot store exactly (outside the range or precision"
              + " of a double)");
    } else if (node.isTextual() && hasUnpairedSurrogate(node.textValue())) {
      out.add(path + " is a string with an unpaired UTF-16 surrogate");
    } else if (node.isObject()) {
      Iterator<Map.Entry<String, JsonNode>> fields = node.fields();
      while (fields.hasNext()) {
        Map.Entry<String, JsonNode> f = fields.next();
        if (hasUnpairedSurrogate(f.getKey())) {
          out.add(path + " has a field name with an unpaired UTF-16 surrogate");
        } else {
          walk(path + "." + path(f.getKey()), f.getValue(), out);
        }
      }
    } else if (node.isArray()) {
      for (int i = 0; i < node.size(); i++) {
        walk(path + "[" + i + "]", node.get(i), out);
      }
    }
  }

  /** Whether a double holds the value exactly, or as the shortest decimal that reads back. */
  static boolean fitsADouble(JsonNode number) {
    double d = number.doubleValue();
    if (!Double.isFinite(d)) {
      return false;
    }
    BigDecimal exact = number.decimalValue();
    return new BigDecimal(d).compareTo(exact) == 0
        || new BigDecimal(Double.toString(d)).compareTo(exact) == 0;
  }

  static boolean hasUnpairedSurrogate(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c)) {
        if (i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
          i++;
          continue;
        }
        return true;
      }
      if (Character.isLowSurrogate(c)) {
        return true;
      }
    }
    return false;
  }

  private static String path(String name) {
    String shown = name.length() <= 64 ? name : name.substring(0, 64) + "…";
    return hasUnpairedSurrogate(shown) ? "(unprintable name)" : shown;
  }
}
