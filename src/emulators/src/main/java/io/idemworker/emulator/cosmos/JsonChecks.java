package io.idemworker.emulator.cosmos;

import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.Map;

/**
 * What the service's JSON parser refuses beyond syntax: numbers outside the IEEE 754 double range
 * (which Jackson would otherwise read as infinity and write back as the string {@code "Infinity"}),
 * and bodies past the parser's size limits. Stateless.
 */
final class JsonChecks {
  private JsonChecks() {}

  /**
   * Throws a 400 {@link CosmosError} naming the path of the first number that is not a finite
   * double.
   */
  static void rejectNonFiniteNumbers(JsonNode root) {
    // Iterative: a deeply nested body must not cost a deep stack here.
    Deque<Map.Entry<String, JsonNode>> todo = new ArrayDeque<>();
    todo.push(Map.entry("", root));
    while (!todo.isEmpty()) {
      Map.Entry<String, JsonNode> next = todo.pop();
      JsonNode node = next.getValue();
      if (node.isNumber() && !Double.isFinite(node.doubleValue())) {
        throw CosmosError.badRequest(
            "The request payload is invalid: the number at '"
                + (next.getKey().isEmpty() ? "/" : next.getKey())
                + "' is outside the range of a double.");
      }
      if (node.isObject()) {
        Iterator<Map.Entry<String, JsonNode>> fields = node.fields();
        while (fields.hasNext()) {
          Map.Entry<String, JsonNode> f = fields.next();
          todo.push(Map.entry(next.getKey() + "/" + shorten(f.getKey()), f.getValue()));
        }
      } else if (node.isArray()) {
        for (int i = 0; i < node.size(); i++) {
          todo.push(Map.entry(next.getKey() + "/" + i, node.get(i)));
        }
      }
    }
  }

  /** The answer for valid-looking JSON that is past a parser limit, naming the limit. */
  static String beyondLimits(StreamConstraintsException e) {
    String limit = String.valueOf(e.getOriginalMessage());
    int from = limit.indexOf(", from `");
    if (from > 0) {
      limit = limit.substring(0, from) + ")";
    }
    return "The request payload is beyond the JSON parser's limits: " + limit.replace('"', '\'');
  }

  private static String shorten(String name) {
    return name.length() <= 64 ? name : name.substring(0, 64) + "…";
  }
}
