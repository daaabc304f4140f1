package io.idemworker.emulator.cosmos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A scalar expression of the Cosmos DB SQL dialect, evaluated against one document. Evaluation
 * follows the service's three-valued logic: a missing property, an ordering comparison of different
 * types or a function applied to the wrong type yields <em>undefined</em> (represented by {@link
 * MissingNode}), and a {@code WHERE} keeps a document only when its condition is exactly {@code
 * true}. Expressions are immutable and safe to evaluate from any number of threads.
 */
sealed interface SqlExpression {
  /** The undefined value. */
  JsonNode UNDEFINED = MissingNode.getInstance();

  /**
   * The value of this expression for {@code document} (bound to the query's alias).
   *
   * @param parameters values of {@code @name} parameters; an unbound one is undefined
   */
  JsonNode evaluate(JsonNode document, Map<String, JsonNode> parameters);

  /** True when this expression, used as a filter, keeps {@code document}. */
  default boolean matches(JsonNode document, Map<String, JsonNode> parameters) {
    JsonNode value = evaluate(document, parameters);
    return value.isBoolean() && value.booleanValue();
  }

  /**
   * A filter written against one document ({@code FROM c WHERE …} of a patch): evaluates {@code
   * inner}, whose paths start at their alias, with {@code alias} bound to the document.
   */
  record Rooted(String alias, SqlExpression inner) implements SqlExpression {
    @Override
    public JsonNode evaluate(JsonNode document, Map<String, JsonNode> parameters) {
      ObjectNode env = JsonNodeFactory.instance.objectNode();
      env.set(alias, document);
      return inner.evaluate(env, parameters);
    }
  }

  /**
   * {@code value LIKE pattern [ESCAPE 'c']}: {@code %} matches any run of characters, {@code _}
   * one, {@code [abc]}, {@code [a-f]} and {@code [^abc]} one of a set (or not); the escape
   * character makes the next one literal. Case-sensitive. Undefined unless both are strings.
   */
  record Like(SqlExpression value, SqlExpression pattern, Optional<SqlExpression> escape)
      implements SqlExpression {
    @Override
    public JsonNode evaluate(JsonNode document, Map<String, JsonNode> parameters) {
      JsonNode v = value.evaluate(document, parameters);
      JsonNode p = pattern.evaluate(document, parameters);
      if (!v.isTextual() || !p.isTextual()) {
        return UNDEFINED;
      }
      Character esc = null;
      if (escape.isPresent()) {
        JsonNode e = escape.get().evaluate(document, parameters);
        if (!e.isTextual() || e.textValue().length() != 1) {
          return UNDEFINED;
        }
        esc = e.textValue().charAt(0);
      }
      return BooleanNode.valueOf(regex(p.textValue(), esc).matcher(v.textValue()).matches());
    }

    static Pattern regex(String like, Character escape) {
      StringBuilder re = new StringBuilder();
      int i = 0;
      while (i < like.length()) {
        char ch = like.charAt(i++);
        if (escape != null && ch == escape && i < like.length()) {
          re.append(Pattern.quote(String.valueOf(like.charAt(i++))));
        } else if (ch == '%') {
          re.append("(?s:.*)");
        } else if (ch == '_') {
          re.append("(?s:.)");
        } else if (ch == '[' && like.indexOf(']', i) > i) {
          int close = like.indexOf(']', i);
          String set = like.substring(i, close);
          i = close + 1;
          boolean negate = set.startsWith("^");
          if (negate) {
            set = set.substring(1);
          }
          StringBuilder cls = new StringBuilder(negate ? "[^" : "[");
          for (int k = 0; k < set.length(); k++) {
            char c = set.charAt(k);
            boolean range = c == '-' && k > 0 && k < set.length() - 1;
            cls.append(range ? "-" : Character.isLetterOrDigit(c) ? String.valueOf(c) : "\\" + c);
          }
          re.append(cls).append(']');
        } else {
          re.append(Pattern.quote(String.valueOf(ch)));
        }
      }
      return Pattern.compile(re.toString());
    }
  }

  /** {@code EXISTS(SELECT …)}: whether the sub-query, run with the outer bindings, yields a row. */
  record Exists(SqlQuery query) implements SqlExpression {
    @Override
    public JsonNode evaluate(JsonNode document, Map<String, JsonNode> parameters) {
      return BooleanNode.valueOf(!QueryEngine.subquery(query, document, parameters).isEmpty());
    }
  }

  /** {@code ARRAY(SELECT …)}: the sub-query's rows, run with the outer bindings, as an array. */
  record ArrayQuery(SqlQuery query) implements SqlExpression {
    @Override
    public JsonNode evaluate(JsonNode document, Map<String, JsonNode> parameters) {
      ArrayNode out = JsonNodeFactory.instance.arrayNode();
      QueryEngine.subquery(query, document, parameters).forEach(out::add);
      return out;
    }
  }

  /** {@code (SELECT …)} as a value: the sub-query's first row, or undefined when it has none. */
  record Scalar(SqlQuery query) implements SqlExpression {
    @Override
    public JsonNode evaluate(JsonNode document, Map<String, JsonNode> parameters) {
      List<JsonNode> rows = QueryEngine.subquery(query, document, parameters);
      return rows.isEmpty() ? UNDEFINED : rows.get(0);
    }
  }

  /** A constant: number, string, boolean or null. */
  record Literal(JsonNode value) implements SqlExpression {
    public Literal {
      Objects.requireNonNull(value, "value");
    }

    @Override
    public JsonNode evaluate(JsonNode document, Map<String, JsonNode> parameters) {
      return value;
    }
  }

  /** A query parameter such as {@code @status}. */
  record Parameter(String name) implements SqlExpression {
    public Parameter {
      if (!name.startsWith("@") || name.length() < 2) {
        throw new IllegalArgumentException("a parameter name starts with @: " + name);
      }
    }

    @Override
    public JsonNode evaluate(JsonNode document, Map<String, JsonNode> parameters) {
      JsonNode value = parameters.get(name);
      return value == null ? UNDEFINED : value;
    }
  }

  /**
   * A property path: {@code c.a.b}, {@code c["x"]}, {@code c.items[0]}, evaluated from the query's
   * bindings, so its first step is the alias ({@code "c"}). Each step is a {@code String} (object
   * property) or an {@code Integer} (array index).
   */
  record Path(List<Object> steps) implements SqlExpression {
    public Path {
      steps = List.copyOf(steps);
      for (Object step : steps) {
        if (!(step instanceof String) && !(step instanceof Integer)) {
          throw new IllegalArgumentException("a path step is a property name or an index");
        }
      }
    }

    @Override
    public JsonNode evaluate(JsonNode document, Map<String, JsonNode> parameters) {
      JsonNode node = document;
      for (Object step : steps) {
        if (step instanceof String name) {
          node = node.isObject() ? node.path(name) : UNDEFINED;
        } else {
          int index = (Integer) step;
          node = node.isArray() ? node.path(index) : UNDEFINED;
        }
        if (node.isMissingNode()) {
          return UNDEFINED;
        }
      }
      return node;
    }
  }

  /** A comparison; see {@link SqlValues#compare} for which pairs are comparable. */
  record Comparison(Operator operator, SqlExpression left, SqlExpression right)
      implements SqlExpression {
    public Comparison {
      Objects.requireNonNull(operator, "operator");
      Objects.requireNonNull(left, "left");
      Objects.requireNonNull(right, "right");
    }

    @Override
    public JsonNode evaluate(JsonNode document, Map<String, JsonNode> parameters) {
      JsonNode l = left.evaluate(document, parameters);
      JsonNode r = right.evaluate(document, parameters);
      if (operator == Operator.EQ || operator == Operator.NE) {
        var equal = SqlValues.equal(l, r);
        if (equal.isEmpty()) {
          return UNDEFINED;
        }
        return BooleanNode.valueOf(equal.get() == (operator == Operator.EQ));
      }
      var order = SqlValues.compare(l, r);
      if (order.isEmpty()) {
        return UNDEFINED;
      }
      int c = order.getAsInt();
      boolean result =
          switch (operator) {
            case LT -> c < 0;
            case LE -> c <= 0;
            case GT -> c > 0;
            case GE -> c >= 0;
            default -> throw new IllegalStateException("unexpected " + operator);
          };
      return BooleanNode.valueOf(result);
    }

    enum Operator {
      EQ,
      NE,
      LT,
      LE,
      GT,
      GE
    }
  }

  /** {@code AND}: false if either side is false, true if both are true, otherwise undefined. */
  record And(SqlExpression left, SqlExpression right) implements SqlExpression {
    @Override
    public JsonNode evaluate(JsonNode document, Map<String, JsonNode> parameters) {
      JsonNode l = left.evaluate(document, parameters);
      if (l.isBoolean() && !l.booleanValue()) {
        return BooleanNode.FALSE;
      }
      JsonNode r = right.evaluate(document, parameters);
      if (r.isBoolean() && !r.booleanValue()) {
        return BooleanNode.FALSE;
      }
      return l.isBoolean() && r.isBoolean() ? BooleanNode.TRUE : UNDEFINED;
    }
  }

  /** {@code OR}: true if either side is true, false if both are false, otherwise undefined. */
  record Or(SqlExpression left, SqlExpression right) implements SqlExpression {
    @Override
    public JsonNode evaluate(JsonNode document, Map<String, JsonNode> parameters) {
      JsonNode l = left.evaluate(document, parameters);
      if (l.isBoolean() && l.booleanValue()) {
        return BooleanNode.TRUE;
      }
      JsonNode r = right.evaluate(document, parameters);
      if (r.isBoolean() && r.booleanValue()) {
        return BooleanNode.TRUE;
      }
      return l.isBoolean() && r.isBoolean() ? BooleanNode.FALSE : UNDEFINED;
    }
  }

  /** {@code NOT}: negates a boolean; anything else is undefined. */
  record Not(SqlExpression operand) implements SqlExpression {
    @Override
    public JsonNode evaluate(JsonNode document, Map<String, JsonNode> parameters) {
      JsonNode v = operand.evaluate(document, parameters);
      return v.isBoolean() ? BooleanNode.valueOf(!v.booleanValue()) : UNDEFINED;
    }
  }

  /** A call of one of the {@link SqlFunction built-in functions}, arity checked by the parser. */
  record Call(SqlFunction function, List<SqlExpression> arguments) implements SqlExpression {
    public Call {
      arguments = List.copyOf(arguments);
    }

    @Override
    public JsonNode evaluate(JsonNode document, Map<String, JsonNode> parameters) {
      JsonNode[] values = new JsonNode[arguments.size()];
      for (int i = 0; i < values.length; i++) {
        values[i] = arguments.get(i).evaluate(document, parameters);
      }
      return function.apply(values);
    }
  }

  /** {@code left op right} for the operators of {@link SqlOperators}. */
  record Binary(SqlOperators operator, SqlExpression left, SqlExpression right)
      implements SqlExpression {
    @Override
    public JsonNode evaluate(JsonNode document, Map<String, JsonNode> parameters) {
      return operator.apply(
          left.evaluate(document, parameters), () -> right.evaluate(document, parameters));
    }
  }

  /** An array literal {@code [a, b]}; undefined elements are left out, as the service does. */
  record ArrayLiteral(List<SqlExpression> elements) implements SqlExpression {
    public ArrayLiteral {
      elements = List.copyOf(elements);
    }

    @Override
    public JsonNode evaluate(JsonNode document, Map<String, JsonNode> parameters) {
      ArrayNode out = JsonNodeFactory.instance.arrayNode();
      for (SqlExpression e : elements) {
        JsonNode v = e.evaluate(document, parameters);
        if (!v.isMissingNode()) {
          out.add(v);
        }
      }
      return out;
    }
  }

  /** An object literal {@code {"a": x}}; properties whose value is undefined are left out. */
  record ObjectLiteral(List<Map.Entry<String, SqlExpression>> properties) implements SqlExpression {
    public ObjectLiteral {
      properties = List.copyOf(properties);
    }

    @Override
    public JsonNode evaluate(JsonNode document, Map<String, JsonNode> parameters) {
      ObjectNode out = JsonNodeFactory.instance.objectNode();
      for (Map.Entry<String, SqlExpression> p : properties) {
        JsonNode v = p.getValue().evaluate(document, parameters);
        if (!v.isMissingNode()) {
          out.set(p.getKey(), v);
        }
      }
      return out;
    }
  }

  /**
   * An aggregate ({@code COUNT}, {@code SUM}, {@code MIN}, {@code MAX}, {@code AVG}) of {@code
   * argument} over the documents a query keeps. The query engine computes it over the whole set
   * first and binds the result under {@link #slot()}; evaluated against one document, it reads that
   * binding.
   *
   * @param index the aggregate's position in its query, which names its slot
   */
  record Aggregate(Function function, SqlExpression argument, int index) implements SqlExpression {
    /** The aggregate functions of the dialect. */
    enum Function {
      COUNT,
      SUM,
      MIN,
      MAX,
      AVG
    }

    /** The binding name of this aggregate's value; no query parameter can have it. */
    String slot() {
      return "#aggregate" + index;
    }

    @Override
    public JsonNode evaluate(JsonNode document, Map<String, JsonNode> parameters) {
      JsonNode value = parameters.get(slot());
      return value == null ? UNDEFINED : value;
    }
  }
}
