package io.idemworker.emulator.cosmos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A validated partial update of one item: up to {@value #MAX_OPERATIONS} operations on JSON-pointer
 * paths and an optional filter predicate ({@code FROM c WHERE …}). Built from the request body the
 * SDKs send ({@code {"operations":[…],"condition":"…"}}, or a bare array of operations as the
 * JavaScript SDK sends when no condition is given). Immutable and thread-safe; {@link #applyTo}
 * works on a copy.
 */
record ItemPatch(List<PatchOperation> operations, Optional<SqlExpression> condition) {
  static final int MAX_OPERATIONS = 10;

  ItemPatch {
    operations = List.copyOf(operations);
    Objects.requireNonNull(condition, "condition");
    if (operations.isEmpty()) {
      throw CosmosError.badRequest("A patch needs at least one operation.");
    }
    if (operations.size() > MAX_OPERATIONS) {
      throw CosmosError.badRequest(
          "A patch may carry at most "
              + MAX_OPERATIONS
              + " operations, got "
              + operations.size()
              + ".");
    }
  }

  /**
   * Reads a patch request body.
   *
   * @throws CosmosError 400 naming what is wrong
   */
  static ItemPatch parse(JsonNode body) {
    JsonNode ops;
    Optional<SqlExpression> condition = Optional.empty();
    if (body.isArray()) {
      ops = body;
    } else if (body.isObject()) {
      ops = body.path("operations");
      JsonNode cond = body.get("condition");
      if (cond != null && !cond.isNull()) {
        if (!cond.isTextual()) {
          throw CosmosError.badRequest("The patch condition must be a string 'FROM c WHERE …'.");
        }
        if (!cond.textValue().isBlank()) {
          condition = Optional.of(SqlParser.parseFilter(cond.textValue()));
        }
      }
    } else {
      throw CosmosError.badRequest("A patch body is an object with 'operations'.");
    }
    if (!ops.isArray()) {
      throw CosmosError.badRequest("A patch body needs an 'operations' array.");
    }
    List<PatchOperation> parsed = new ArrayList<>(ops.size());
    for (JsonNode op : ops) {
      parsed.add(PatchOperation.parse(op));
    }
    return new ItemPatch(parsed, condition);
  }

  /**
   * The operation for a {@code Patch} entry of a transactional batch: {@code {"operationType":
   * "Patch","id":…,"resourceBody":{"operations":[…],"condition":…},"ifMatch":…}}.
   *
   * @throws CosmosError 400 naming what is wrong
   */
  static Container.ItemOp batchOperation(JsonNode entry, String ifMatch) {
    JsonNode id = entry.get("id");
    if (id == null || !id.isTextual()) {
      throw CosmosError.badRequest("A Patch operation needs an id.");
    }
    JsonNode body = entry.get("resourceBody");
    if (body == null || !(body.isObject() || body.isArray())) {
      throw CosmosError.badRequest("A Patch operation needs a resourceBody with 'operations'.");
    }
    return Container.ItemOp.patch(id.textValue(), parse(body), ifMatch);
  }

  /**
   * Checks the condition against {@code current}, then applies every operation in order to a copy.
   *
   * @return the patched copy; {@code current} is left as it was
   * @throws CosmosError 412 when the condition does not hold, 400 when an operation cannot apply
   */
  ObjectNode applyTo(ObjectNode current) {
    if (condition.isPresent() && !condition.get().matches(current, Map.of())) {
      throw new CosmosError(412, "One of the specified pre-condition is not met.");
    }
    ObjectNode doc = current.deepCopy();
    for (PatchOperation op : operations) {
      op.applyTo(doc);
    }
    return doc;
  }

  /** One operation; {@code value} is present for add, set, replace and incr. */
  record PatchOperation(Kind kind, List<String> path, Optional<JsonNode> value, List<String> from) {
    PatchOperation {
      path = List.copyOf(path);
      from = List.copyOf(from);
      if (path.isEmpty()) {
        throw CosmosError.badRequest("A patch path must name a property, not the whole document.");
      }
    }

    static PatchOperation parse(JsonNode op) {
      if (!op.isObject()) {
        throw CosmosError.badRequest("A patch operation must be a JSON object.");
      }
      String name = op.path("op").asText("");
      Kind kind =
          switch (name) {
            case "add" -> Kind.ADD;
            case "set" -> Kind.SET;
            case "replace" -> Kind.REPLACE;
            case "remove" -> Kind.REMOVE;
            case "incr" -> Kind.INCR;
            case "move" -> Kind.MOVE;
            default ->
                throw CosmosError.badRequest(
                    "Unknown patch operation '"
                        + name
                        + "': expected add, set, replace, remove, incr or move.");
          };
      List<String> path = pointer(op.get("path"), "path");
      List<String> from = List.of();
      Optional<JsonNode> value = Optional.empty();
      switch (kind) {
        case MOVE -> {
          from = pointer(op.get("from"), "from");
          if (from.size() < path.size() && path.subList(0, from.size()).equals(from)) {
            throw CosmosError.badRequest(
                "A move cannot put a node inside itself: 'from' is a prefix of 'path'.");
          }
        }
        case REMOVE -> {}
        default -> {
          JsonNode v = op.get("value");
          if (v == null) {
            throw CosmosError.badRequest("The " + name + " operation needs a 'value'.");
          }
          if (kind == Kind.INCR && !v.isNumber()) {
            throw CosmosError.badRequest(
                "The incr operation needs a number as 'value', got " + v + ".");
          }
          value = Optional.of(v);
        }
      }
      return new PatchOperation(kind, path, value, from);
    }

    private static List<String> pointer(JsonNode node, String field) {
      if (node == null || !node.isTextual()) {
        throw CosmosError.badRequest("A patch operation needs a '" + field + "' string.");
      }
      String text = node.textValue();
      if (!text.startsWith("/") || text.length() < 2) {
        throw CosmosError.badRequest(
            "The patch " + field + " '" + text + "' is not a JSON pointer such as /a/b/0.");
      }
      List<String> parts = new ArrayList<>();
      for (String raw : text.substring(1).split("/", -1)) {
        if (raw.isEmpty()) {
          throw CosmosError.badRequest(
              "The patch " + field + " '" + text + "' has an empty segment.");
        }
        parts.add(raw.replace("~1", "/").replace("~0", "~"));
      }
      return Collections.unmodifiableList(parts);
    }

    void applyTo(ObjectNode doc) {
      switch (kind) {
        case ADD -> add("Add", doc, path, value.orElseThrow().deepCopy(), true);
        case SET -> add("Set", doc, path, value.orElseThrow().deepCopy(), false);
        case REPLACE -> {
          require(doc, path, "replace");
          add("Replace", doc, path, value.orElseThrow().deepCopy(), false);
        }
        case REMOVE -> remove(doc, path, "remove");
        case INCR -> increment(doc);
        case MOVE -> {
          JsonNode moved = remove(doc, from, "move from");
          add("Move", doc, path, moved, false);
        }
      }
    }

    private void increment(ObjectNode doc) {
      JsonNode by = value.orElseThrow();
      Optional<JsonNode> current = find(doc, path);
      if (current.isEmpty()) {
        add("Increment", doc, path, by.deepCopy(), false);
        return;
      }
      JsonNode now = current.get();
      if (!now.isNumber()) {
        throw CosmosError.badRequest(
            "The incr operation applies to a number, but '" + pathText(path) + "' is " + now + ".");
      }
      JsonNode sum;
      if (now.isIntegralNumber()
          && by.isIntegralNumber()
          && now.canConvertToLong()
          && by.canConvertToLong()) {
        try {
          sum = LongNode.valueOf(Math.addExact(now.longValue(), by.longValue()));
        } catch (ArithmeticException overflow) {
          sum = DoubleNode.valueOf(now.doubleValue() + by.doubleValue());
        }
      } else {
        sum = DoubleNode.valueOf(now.doubleValue() + by.doubleValue());
      }
      add("Increment", doc, path, sum, false);
    }

    /** Adds ({@code insert}: array indices shift right) or overwrites the node at {@code p}. */
    private static void add(
        String operation, ObjectNode doc, List<String> p, JsonNode v, boolean insert) {
      JsonNode parent = parentOf(doc, p, operation);
      String last = p.get(p.size() - 1);
      if (parent instanceof ObjectNode o) {
        o.set(last, v);
        return;
      }
      ArrayNode array = (ArrayNode) parent;
      if (last.equals("-")) {
        array.add(v);
        return;
      }
      int index = index(last, p);
      if (index > array.size()) {
        throw CosmosError.badRequest(
            "The index in '"
                + pathText(p)
                + "' is past the end of an array of "
                + array.size()
                + ".");
      }
      if (insert || index == array.size()) {
        array.insert(index, v);
      } else {
        array.set(index, v);
      }
    }

    private static JsonNode remove(ObjectNode doc, List<String> p, String what) {
      JsonNode parent = parentOf(doc, p, what.startsWith("move") ? "Move" : "Remove");
      String last = p.get(p.size() - 1);
      JsonNode removed;
      if (parent instanceof ObjectNode o) {
        removed = o.remove(last);
      } else {
        ArrayNode array = (ArrayNode) parent;
        int index = last.equals("-") ? array.size() : index(last, p);
        removed = index < array.size() ? array.remove(index) : null;
      }
      if (removed == null) {
        throw CosmosError.badRequest(
            "The "
                + what
                + " operation needs an existing path, but '"
                + pathText(p)
                + "' is absent.");
      }
      return removed;
    }

    private static void require(ObjectNode doc, List<String> p, String what) {
      if (find(doc, p).isEmpty()) {
        throw CosmosError.badRequest(
            "The "
                + what
                + " operation needs an existing path, but '"
                + pathText(p)
                + "' is absent.");
      }
    }

    private static Optional<JsonNode> find(JsonNode doc, List<String> p) {
      JsonNode node = doc;
      for (String step : p) {
        if (node.isObject()) {
          node = node.get(step);
        } else if (node.isArray()) {
          int i = parseIndex(step);
          node = i >= 0 && i < node.size() ? node.get(i) : null;
        } else {
          node = null;
        }
        if (node == null) {
          return Optional.empty();
        }
      }
      return Optional.of(node);
    }

    /**
     * The object or array that holds the last step of {@code p}; when it is missing, a 400 in the
     * service's words, naming the first step that does not exist.
     */
    private static JsonNode parentOf(ObjectNode doc, List<String> p, String operation) {
      Optional<JsonNode> parent = find(doc, p.subList(0, p.size() - 1));
      if (parent.isEmpty() || !(parent.get().isObject() || parent.get().isArray())) {
        String missing = p.get(0);
        for (int i = 1; i < p.size(); i++) {
          if (find(doc, p.subList(0, i)).isEmpty()) {
            break;
          }
          missing = p.get(i);
        }
        throw CosmosError.badRequest(
            operation
                + " Operation only support adding a leaf node of an existing node(array or object),"
                + " no path found beyond: '"
                + missing
                + "' (in '"
                + pathText(p)
                + "'; a patch creates one level at a time).");
      }
      return parent.get();
    }

    private static int index(String step, List<String> p) {
      int i = parseIndex(step);
      if (i < 0) {
        throw CosmosError.badRequest(
            "'" + step + "' in '" + pathText(p) + "' is not an array index (0, 1, … or -).");
      }
      return i;
    }

    private static int parseIndex(String step) {
      if (step.isEmpty() || step.length() > 9 || !step.chars().allMatch(Character::isDigit)) {
        return -1;
      }
      if (step.length() > 1 && step.charAt(0) == '0') {
        return -1;
      }
      return Integer.parseInt(step);
    }

    private static String pathText(List<String> p) {
      StringBuilder sb = new StringBuilder();
      for (String s : p) {
        sb.append('/').append(s.replace("~", "~0").replace("/", "~1"));
      }
      return sb.toString();
    }
  }

  enum Kind {
    ADD,
    SET,
    REPLACE,
    REMOVE,
    INCR,
    MOVE
  }
}
