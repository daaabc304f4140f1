package io.idemworker.infra;

import io.idemworker.infra.Bicep.Arr;
import io.idemworker.infra.Bicep.Declaration;
import io.idemworker.infra.Bicep.Expr;
import io.idemworker.infra.Bicep.Node;
import io.idemworker.infra.Bicep.Obj;
import io.idemworker.infra.Bicep.Template;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * Evaluates the values of one template for given parameter values, the way ARM would before
 * deploying, so tests can ask "with these parameters, what does the template send?" (for example:
 * with the placeholder image, are there probes?).
 *
 * <p>It knows the small expression language our templates use for choices: string, number, bool and
 * {@code null} literals, object and array literals, parameters (given, else their default) and
 * variables, {@code ==}, {@code !=}, {@code <}, {@code >}, {@code <=}, {@code >=}, {@code &&},
 * {@code ||}, {@code !}, {@code c ? a : b}, {@code empty(x)}, and {@code union}, {@code take} and
 * {@code contains} on known values. Everything else (resource properties, other functions,
 * interpolations of unknown values) becomes an {@link Opaque} value carrying its source text: fine
 * to carry and compare, but a condition that depends on one fails loudly with {@link
 * IllegalStateException} instead of guessing. Not thread-safe (one evaluation per instance at a
 * time); cheap to create.
 */
final class BicepEval {

  /** A value only Azure knows (a resource property, a function result), kept as source text. */
  record Opaque(String text) {}

  /** The value of {@code fail(message)} on the branch taken: the deployment would stop here. */
  record Failure(String message) {}

  /** Bicep's {@code null}. */
  enum Null {
    NULL
  }

  private final Template template;
  private final Map<String, Object> params;
  private final Map<String, Function<List<Object>, Object>> functions;
  private final Set<String> evaluating = new HashSet<>();

  BicepEval(Template template, Map<String, Object> params) {
    this(template, params, Map.of());
  }

  /**
   * With {@code functions}: what Azure would answer for the named functions (say {@code
   * uniqueString} or {@code subscription}), called only with known arguments; others stay opaque.
   */
  BicepEval(
      Template template,
      Map<String, Object> params,
      Map<String, Function<List<Object>, Object>> functions) {
    this(template, params, functions, null);
  }

  /**
   * With {@code modules} as well: reads a module's template from its path, so {@code m.outputs.x}
   * evaluates module {@code m}'s output {@code x} with the parameters this template gives it, and
   * {@code r.name} a resource's evaluated property. Cycles and failures become {@link Opaque}.
   */
  BicepEval(
      Template template,
      Map<String, Object> params,
      Map<String, Function<List<Object>, Object>> functions,
      Function<String, Template> modules) {
    this.template = template;
    this.params = Map.copyOf(params);
    this.functions = Map.copyOf(functions);
    this.modules = modules;
  }

  private final Function<String, Template> modules;
  private final Map<String, Object> symbols = new LinkedHashMap<>();
  private final Map<String, BicepEval> children = new LinkedHashMap<>();

  /**
   * A child evaluation of module {@code symbol}'s template with the parameters given to it; the
   * same one each time.
   */
  BicepEval module(String symbol) {
    BicepEval known = children.get(symbol);
    if (known != null) {
      return known;
    }
    Declaration d =
        template
            .find("module", symbol)
            .orElseThrow(() -> new IllegalArgumentException("no module " + symbol));
    if (modules == null) {
      throw new IllegalStateException("no module loader for " + symbol);
    }
    BicepEval child =
        new BicepEval(modules.apply(d.type()), moduleParams(symbol), functions, modules);
    children.put(symbol, child);
    return child;
  }

  Template template() {
    return template;
  }

  private Object symbol(Declaration d) {
    if (symbols.containsKey(d.name())) {
      return symbols.get(d.name());
    }
    if (!evaluating.add("symbol:" + d.name())) {
      return new Opaque(d.name());
    }
    try {
      Object value;
      if (d.keyword().equals("module")) {
        BicepEval child = module(d.name());
        Map<String, Object> outputs = new LinkedHashMap<>();
        for (Declaration output : child.template.all("output")) {
          try {
            outputs.put(output.name(), child.output(output.name()));
          } catch (RuntimeException e) {
            outputs.put(output.name(), new Opaque(d.name() + ".outputs." + output.name()));
          }
        }
        value = Map.of("outputs", outputs);
      } else {
        value = resource(d.name());
      }
      symbols.put(d.name(), value);
      return value;
    } catch (RuntimeException e) {
      return new Opaque(d.name());
    } finally {
      evaluating.remove("symbol:" + d.name());
    }
  }

  /** The {@code params} of the module named {@code symbol}, evaluated: what it would be given. */
  @SuppressWarnings("unchecked")
  Map<String, Object> moduleParams(String symbol) {
    Declaration d =
        template
            .find("module", symbol)
            .orElseThrow(() -> new IllegalArgumentException("no module " + symbol));
    return (Map<String, Object>)
        template.body(d).at("params").map(this::node).orElse(Map.<String, Object>of());
  }

  /** Whether the resource or module named {@code symbol} is deployed: its {@code if}, evaluated. */
  boolean deployed(String symbol) {
    Declaration d =
        template.declarations().stream()
            .filter(x -> x.name().equals(symbol))
            .filter(x -> x.keyword().equals("resource") || x.keyword().equals("module"))
            .findFirst()
            .orElseThrow(() -> new IllegalArgumentException("no resource or module " + symbol));
    return d.condition().map(c -> truth(expression(c), "if (" + c + ")")).orElse(true);
  }

  /** The body of the resource named {@code symbol}, evaluated. */
  @SuppressWarnings("unchecked")
  Map<String, Object> resource(String symbol) {
    Declaration d =
        template
            .find("resource", symbol)
            .orElseThrow(() -> new IllegalArgumentException("no resource " + symbol));
    return (Map<String, Object>) node(template.body(d));
  }

  /** The value of the output named {@code name}. */
  Object output(String name) {
    Declaration d =
        template
            .find("output", name)
            .orElseThrow(() -> new IllegalArgumentException("no output " + name));
    return node(d.value().orElseThrow());
  }

  /** The value at a dotted path of an evaluated object, if every step is an object key. */
  static Optional<Object> at(Object value, String dottedPath) {
    Object current = value;
    for (String key : dottedPath.split("\\.")) {
      if (!(current instanceof Map<?, ?> map) || !map.containsKey(key)) {
        return Optional.empty();
      }
      current = map.get(key);
    }
    return Optional.of(current);
  }

  Object node(Node node) {
    if (node instanceof Obj obj) {
      Map<String, Object> out = new LinkedHashMap<>();
      obj.properties().forEach((k, v) -> out.put(unquote(k), node(v)));
      return out;
    }
    if (node instanceof Arr arr) {
      List<Object> out = new ArrayList<>();
      arr.items().forEach(item -> out.add(node(item)));
      return out;
    }
    return expression(((Expr) node).text());
  }

  Object expression(String text) {
    Parser parser = new Parser(text);
    Object value = parser.ternary();
    parser.skipSpaces();
    if (!parser.atEnd()) {
      throw new IllegalArgumentException("cannot read past offset " + parser.pos + " of: " + text);
    }
    return value;
  }

  private Object identifier(String name) {
    if (params.containsKey(name)) {
      return params.get(name);
    }
    Optional<Declaration> declared =
        template.find("param", name).or(() -> template.find("var", name));
    if (declared.isEmpty() && modules != null) {
      Optional<Declaration> symbol =
          template.declarations().stream()
              .filter(d -> d.name().equals(name))
              .filter(d -> d.keyword().equals("resource") || d.keyword().equals("module"))
              .findFirst();
      if (symbol.isPresent()) {
        return symbol(symbol.get());
      }
    }
    if (declared.isEmpty() || declared.get().value().isEmpty()) {
      return new Opaque(name);
    }
    if (!evaluating.add(name)) {
      throw new IllegalArgumentException("cycle through " + name);
    }
    try {
      return node(declared.get().value().get());
    } finally {
      evaluating.remove(name);
    }
  }

  private static String unquote(String key) {
    return key.length() >= 2 && key.startsWith("'") && key.endsWith("'")
        ? key.substring(1, key.length() - 1)
        : key;
  }

  private static boolean truth(Object value, String context) {
    if (value instanceof Boolean b) {
      return b;
    }
    throw new IllegalStateException("cannot decide " + context + ": " + value);
  }

  private static boolean known(Object value) {
    return !(value instanceof Opaque);
  }

  /** Recursive descent over one expression's text (already free of comments and line breaks). */
  private final class Parser {
    private final String src;
    private int pos;

    Parser(String src) {
      this.src = src;
    }

    Object ternary() {
      int start = pos;
      Object condition = or();
      skipSpaces();
      if (peek('?')) {
        pos++;
        Object whenTrue = ternary();
        expect(':');
        Object whenFalse = ternary();
        String context = src.substring(start, pos).trim();
        return truth(condition, context) ? whenTrue : whenFalse;
      }
      return condition;
    }

    private Object or() {
      Object left = and();
      while (consume("||")) {
        Object right = and();
        left = logical(left, right, true);
      }
      return left;
    }

    private Object and() {
      Object left = comparison();
      while (consume("&&")) {
        Object right = comparison();
        left = logical(left, right, false);
      }
      return left;
    }

    private Object logical(Object left, Object right, boolean isOr) {
      if (!known(left) || !known(right)) {
        return new Opaque(left + (isOr ? " || " : " && ") + right);
      }
      boolean l = truth(left, "operand");
      boolean r = truth(right, "operand");
      return isOr ? l || r : l && r;
    }

    private Object comparison() {
      Object left = remainder();
      for (String op : List.of("==", "!=", "<=", ">=", "<", ">")) {
        if (consume(op)) {
          Object right = remainder();
          if (!known(left) || !known(right)) {
            return new Opaque(left + " " + op + " " + right);
          }
          return switch (op) {
            case "==" -> left.equals(right);
            case "!=" -> !left.equals(right);
            default -> compare(op, left, right);
          };
        }
      }
      return left;
    }

    private Object compare(String op, Object left, Object right) {
      if (!(left instanceof Long l) || !(right instanceof Long r)) {
        throw new IllegalStateException("cannot compare " + left + " " + op + " " + right);
      }
      return switch (op) {
        case "<" -> l < r;
        case ">" -> l > r;
        case "<=" -> l <= r;
        default -> l >= r;
      };
    }

    private Object remainder() {
      Object left = unary();
      while (consume("%")) {
        Object right = unary();
        if (!known(left) || !known(right)) {
          left = new Opaque(left + " % " + right);
        } else if (left instanceof Long l && right instanceof Long r) {
          left = l % r;
        } else {
          throw new IllegalStateException("cannot take " + left + " % " + right);
        }
      }
      return left;
    }

    private Object unary() {
      skipSpaces();
      if (peek('!') && !src.startsWith("!=", pos)) {
        pos++;
        Object value = unary();
        return known(value) ? !truth(value, "!") : new Opaque("!" + value);
      }
      return primary();
    }

    private Object primary() {
      skipSpaces();
      if (atEnd()) {
        throw new IllegalArgumentException("expression ends early: " + src);
      }
      char c = src.charAt(pos);
      if (c == '(') {
        pos++;
        Object value = ternary();
        expect(')');
        return value;
      }
      if (c == '\'') {
        return string();
      }
      if (c == '{') {
        return object();
      }
      if (c == '[') {
        return array();
      }
      if (Character.isDigit(c)
          || (c == '-' && pos + 1 < src.length() && Character.isDigit(src.charAt(pos + 1)))) {
        int start = pos++;
        while (!atEnd() && Character.isDigit(src.charAt(pos))) {
          pos++;
        }
        return Long.valueOf(src.substring(start, pos));
      }
      int start = pos;
      String name = name();
      switch (name) {
        case "true":
          return Boolean.TRUE;
        case "false":
          return Boolean.FALSE;
        case "null":
          return Null.NULL;
        default:
          break;
      }
      Object value;
      if (peek('(')) {
        List<Object> args = arguments();
        boolean allKnown = args.stream().allMatch(BicepEval::known);
        if (name.equals("fail") && args.size() == 1) {
          value = new Failure(String.valueOf(args.get(0)));
        } else if (name.equals("empty") && args.size() == 1 && allKnown) {
          value = isEmpty(args.get(0));
        } else if (name.equals("replace") && args.size() == 3 && allKnown) {
          value =
              String.valueOf(args.get(0))
                  .replace(String.valueOf(args.get(1)), String.valueOf(args.get(2)));
        } else if (name.equals("toLower") && args.size() == 1 && allKnown) {
          value = String.valueOf(args.get(0)).toLowerCase(java.util.Locale.ROOT);
        } else if (name.equals("concat")
            && !args.isEmpty()
            && args.stream().allMatch(a -> a instanceof List<?>)) {
          List<Object> joined = new ArrayList<>();
          args.forEach(a -> joined.addAll((List<?>) a));
          value = joined;
        } else if (name.equals("string") && args.size() == 1 && allKnown) {
          value = String.valueOf(args.get(0));
        } else if (name.equals("union")
            && !args.isEmpty()
            && args.stream().allMatch(a -> a instanceof Map<?, ?>)) {
          // Objects only, shallow: later arguments win, as ARM's union does for top-level keys.
          Map<Object, Object> merged = new LinkedHashMap<>();
          args.forEach(a -> merged.putAll((Map<?, ?>) a));
          value = merged;
        } else if (name.equals("take")
            && args.size() == 2
            && args.get(0) instanceof String s
            && args.get(1) instanceof Long n) {
          value = s.substring(0, (int) Math.max(0, Math.min(n, s.length())));
        } else if (name.equals("contains") && args.size() == 2 && allKnown) {
          value =
              args.get(0) instanceof List<?> list
                  ? list.contains(args.get(1))
                  : args.get(0) instanceof Map<?, ?> map
                      ? map.containsKey(args.get(1))
                      : String.valueOf(args.get(0)).contains(String.valueOf(args.get(1)));
        } else if (functions.containsKey(name) && allKnown) {
          value = functions.get(name).apply(args);
        } else {
          value = opaque(start);
        }
      } else {
        value = identifier(name);
      }
      while (peek('.') || peek('[')) {
        if (peek('.')) {
          pos++;
          String key = name();
          value =
              value instanceof Map<?, ?> map && map.containsKey(key) ? map.get(key) : opaque(start);
        } else {
          skipBracket();
          value = opaque(start);
        }
      }
      return value;
    }

    private boolean isEmpty(Object v) {
      if (v instanceof String s) {
        return s.isEmpty();
      }
      if (v instanceof List<?> l) {
        return l.isEmpty();
      }
      if (v instanceof Map<?, ?> m) {
        return m.isEmpty();
      }
      return v == Null.NULL;
    }

    private Opaque opaque(int start) {
      return new Opaque(src.substring(start, pos));
    }

    private List<Object> arguments() {
      expect('(');
      List<Object> args = new ArrayList<>();
      skipSpaces();
      if (peek(')')) {
        pos++;
        return args;
      }
      while (true) {
        args.add(ternary());
        skipSpaces();
        if (peek(',')) {
          pos++;
          continue;
        }
        expect(')');
        return args;
      }
    }

    private Object string() {
      int start = pos;
      pos++;
      StringBuilder out = new StringBuilder();
      boolean opaque = false;
      while (!atEnd()) {
        char c = src.charAt(pos);
        if (c == '\\') {
          out.append(src.charAt(pos + 1));
          pos += 2;
        } else if (c == '$' && src.startsWith("${", pos)) {
          pos += 2;
          Object inner = ternary();
          expect('}');
          if (inner instanceof String || inner instanceof Long || inner instanceof Boolean) {
            out.append(inner);
          } else {
            opaque = true;
          }
        } else if (c == '\'') {
          pos++;
          return opaque ? new Opaque(src.substring(start, pos)) : out.toString();
        } else {
          out.append(c);
          pos++;
        }
      }
      throw new IllegalArgumentException("unterminated string in: " + src);
    }

    private Map<String, Object> object() {
      expect('{');
      Map<String, Object> out = new LinkedHashMap<>();
      while (true) {
        skipSpacesAndCommas();
        if (peek('}')) {
          pos++;
          return out;
        }
        String key = peek('\'') ? String.valueOf(string()) : name();
        expect(':');
        out.put(key, ternary());
      }
    }

    private List<Object> array() {
      expect('[');
      List<Object> out = new ArrayList<>();
      while (true) {
        skipSpacesAndCommas();
        if (peek(']')) {
          pos++;
          return out;
        }
        out.add(ternary());
      }
    }

    private void skipBracket() {
      int depth = 0;
      do {
        char c = src.charAt(pos);
        if (c == '[') {
          depth++;
        } else if (c == ']') {
          depth--;
        }
        pos++;
      } while (depth > 0 && !atEnd());
    }

    private String name() {
      skipSpaces();
      int start = pos;
      while (!atEnd() && (Character.isLetterOrDigit(src.charAt(pos)) || src.charAt(pos) == '_')) {
        pos++;
      }
      if (start == pos) {
        throw new IllegalArgumentException("expected a name at offset " + pos + " of: " + src);
      }
      return src.substring(start, pos);
    }

    private boolean consume(String op) {
      skipSpaces();
      if (src.startsWith(op, pos)) {
        pos += op.length();
        return true;
      }
      return false;
    }

    private void expect(char c) {
      skipSpaces();
      if (!peek(c)) {
        throw new IllegalArgumentException("expected '" + c + "' at offset " + pos + " of: " + src);
      }
      pos++;
    }

    private boolean peek(char c) {
      skipSpaces();
      return !atEnd() && src.charAt(pos) == c;
    }

    void skipSpaces() {
      while (!atEnd() && Character.isWhitespace(src.charAt(pos))) {
        pos++;
      }
    }

    private void skipSpacesAndCommas() {
      while (!atEnd() && (Character.isWhitespace(src.charAt(pos)) || src.charAt(pos) == ',')) {
        pos++;
      }
    }

    boolean atEnd() {
      return pos >= src.length();
    }
  }
}
