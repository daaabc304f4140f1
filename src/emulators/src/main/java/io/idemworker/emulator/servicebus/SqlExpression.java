package io.idemworker.emulator.servicebus;

import io.idemworker.emulator.servicebus.SqlTokens.Kind;
import io.idemworker.emulator.servicebus.SqlTokens.Token;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.apache.qpid.proton.message.Message;

/**
 * A recursive-descent parser for the {@link SqlFilter} subset. Parsing yields a tree of lambdas;
 * evaluating one is thread-safe because it only reads the message.
 */
final class SqlExpression {
  /** SQL's three truth values; a filter matches only on TRUE. */
  enum Truth {
    TRUE,
    FALSE,
    UNKNOWN;

    static Truth of(boolean value) {
      return value ? TRUE : FALSE;
    }

    Truth not() {
      return this == UNKNOWN ? UNKNOWN : of(this == FALSE);
    }

    Truth and(Truth other) {
      if (this == FALSE || other == FALSE) {
        return FALSE;
      }
      return this == TRUE && other == TRUE ? TRUE : UNKNOWN;
    }

    Truth or(Truth other) {
      if (this == TRUE || other == TRUE) {
        return TRUE;
      }
      return this == FALSE && other == FALSE ? FALSE : UNKNOWN;
    }
  }

  /** A predicate over a message. */
  interface Predicate {
    Truth test(Message m);
  }

  /** An operand: a constant or a property; empty when the property is missing or NULL. */
  private interface Operand {
    Optional<Object> value(Message m);
  }

  private static final List<String> ARITHMETIC = List.of("+", "-", "*", "/", "%");

  private final String source;
  private final List<Token> tokens;
  private int next;

  private SqlExpression(String source) {
    this.source = source;
    this.tokens = SqlTokens.tokenize(source);
  }

  static Predicate parse(String source) {
    SqlExpression p = new SqlExpression(source);
    Predicate result = p.or();
    if (p.peek().kind() != Kind.END) {
      throw p.error("unexpected '" + p.peek().text() + "'");
    }
    return result;
  }

  private Predicate or() {
    Predicate left = and();
    while (peek().is("OR")) {
      next++;
      Predicate a = left;
      Predicate b = and();
      left =
          m -> {
            Truth x = a.test(m);
            return x == Truth.TRUE ? x : x.or(b.test(m));
          };
    }
    return left;
  }

  private Predicate and() {
    Predicate left = not();
    while (peek().is("AND")) {
      next++;
      Predicate a = left;
      Predicate b = not();
      left =
          m -> {
            Truth x = a.test(m);
            return x == Truth.FALSE ? x : x.and(b.test(m));
          };
    }
    return left;
  }

  private Predicate not() {
    if (peek().is("NOT")) {
      next++;
      Predicate inner = not();
      return m -> inner.test(m).not();
    }
    return primary();
  }

  private Predicate primary() {
    if (peek().is("(")) {
      next++;
      Predicate inner = or();
      expect(")");
      return inner;
    }
    if (peek().is("EXISTS")) {
      next++;
      expect("(");
      Token t = take();
      if (t.kind() != Kind.WORD) {
        throw error(t, "EXISTS takes a property name");
      }
      Property property = property(t);
      expect(")");
      return property::exists;
    }
    Operand left = operand();
    Token op = peek();
    if (op.is("IS")) {
      next++;
      boolean negated = takeIf("NOT");
      expect("NULL");
      return m -> Truth.of(left.value(m).isEmpty() != negated);
    }
    boolean negated = takeIf("NOT");
    if (peek().is("IN")) {
      next++;
      return in(left, negated);
    }
    if (peek().is("LIKE")) {
      next++;
      return like(left, negated);
    }
    if (negated) {
      throw error("NOT must be followed by IN or LIKE here");
    }
    if (op.kind() == Kind.SYMBOL
        && List.of("=", "<>", "!=", "<", "<=", ">", ">=").contains(op.text())) {
      next++;
      Operand right = operand();
      String operator = op.text();
      return m -> compare(left.value(m), right.value(m), operator);
    }
    throw error(op, "expected a comparison, IN, LIKE or IS after an operand");
  }

  private Predicate in(Operand left, boolean negated) {
    expect("(");
    List<Operand> values = new ArrayList<>();
    do {
      values.add(operand());
    } while (takeIf(","));
    expect(")");
    return m -> {
      Optional<Object> v = left.value(m);
      if (v.isEmpty()) {
        return Truth.UNKNOWN;
      }
      for (Operand candidate : values) {
        if (compare(v, candidate.value(m), "=") == Truth.TRUE) {
          return Truth.of(!negated);
        }
      }
      return Truth.of(negated);
    };
  }

  private Predicate like(Operand left, boolean negated) {
    Token t = take();
    if (t.kind() != Kind.STRING) {
      throw error(t, "LIKE takes a string pattern");
    }
    if (peek().is("ESCAPE")) {
      throw error("LIKE ... ESCAPE is not supported by this emulator");
    }
    StringBuilder regex = new StringBuilder();
    for (char c : t.text().toCharArray()) {
      switch (c) {
        case '%' -> regex.append(".*");
        case '_' -> regex.append('.');
        default -> regex.append(Pattern.quote(String.valueOf(c)));
      }
    }
    Pattern pattern = Pattern.compile(regex.toString(), Pattern.DOTALL);
    return m -> {
      Optional<Object> v = left.value(m);
      if (v.isEmpty() || !(v.get() instanceof String s)) {
        return Truth.UNKNOWN;
      }
      return Truth.of(pattern.matcher(s).matches() != negated);
    };
  }

  private Operand operand() {
    Operand o = single();
    Token after = peek();
    if (after.kind() == Kind.SYMBOL && ARITHMETIC.contains(after.text())) {
      throw error(after, "arithmetic is not supported by this emulator");
    }
    return o;
  }

  private Operand single() {
    Token t = take();
    switch (t.kind()) {
      case STRING -> {
        Optional<Object> v = Optional.of(t.text());
        return m -> v;
      }
      case NUMBER -> {
        Optional<Object> v = Optional.of(new BigDecimal(t.text()));
        return m -> v;
      }
      case WORD -> {
        if (t.is("TRUE") || t.is("FALSE")) {
          Optional<Object> v = Optional.of(t.is("TRUE"));
          return m -> v;
        }
        if (t.is("NULL")) {
          return m -> Optional.empty();
        }
        if (isKeyword(t)) {
          throw error(t, "expected an operand but found " + t.text());
        }
        if (peek().is("(")) {
          throw error(t, "functions are not supported by this emulator: " + t.text());
        }
        Property p = property(t);
        return p::value;
      }
      case SYMBOL -> {
        if (t.is("-") && peek().kind() == Kind.NUMBER) {
          Optional<Object> v = Optional.of(new BigDecimal(take().text()).negate());
          return m -> v;
        }
        if (ARITHMETIC.contains(t.text())) {
          throw error(t, "arithmetic is not supported by this emulator");
        }
        throw error(t, "expected an operand but found '" + t.text() + "'");
      }
      default -> throw error(t, "expected an operand but the expression ended");
    }
  }

  private static boolean isKeyword(Token t) {
    for (String k : List.of("AND", "OR", "NOT", "IN", "IS", "LIKE", "EXISTS", "ESCAPE")) {
      if (t.is(k)) {
        return true;
      }
    }
    return false;
  }

  /** A property reference, resolved against a message at evaluation time. */
  private record Property(boolean system, String name) {
    Optional<Object> value(Message m) {
      if (system) {
        return MessageProperties.system(m, name).map(v -> v);
      }
      return MessageProperties.applicationIgnoringCase(m, name)
          .map(Map.Entry::getValue)
          .filter(v -> v != MessageProperties.NULL);
    }

    Truth exists(Message m) {
      return Truth.of(
          system
              ? MessageProperties.system(m, name).isPresent()
              : MessageProperties.applicationIgnoringCase(m, name).isPresent());
    }
  }

  private Property property(Token t) {
    String text = t.text();
    int dot = text.indexOf('.');
    if (dot > 0 && !text.startsWith("[")) {
      String scope = text.substring(0, dot).toLowerCase(Locale.ROOT);
      String name = unquote(text.substring(dot + 1));
      if (scope.equals("sys")) {
        if (!MessageProperties.isSystemProperty(name)) {
          throw error(t, "system property sys." + name + " is not supported by this emulator");
        }
        return new Property(true, name);
      }
      if (scope.equals("user")) {
        return new Property(false, name);
      }
      throw error(t, "scope must be sys or user but was " + text.substring(0, dot));
    }
    return new Property(false, unquote(text));
  }

  private static String unquote(String name) {
    return name.startsWith("[") && name.endsWith("]") ? name.substring(1, name.length() - 1) : name;
  }

  /** SQL comparison: unknown when either side is missing or the types do not compare. */
  private static Truth compare(Optional<Object> left, Optional<Object> right, String operator) {
    if (left.isEmpty() || right.isEmpty()) {
      return Truth.UNKNOWN;
    }
    Object a = left.get();
    Object b = right.get();
    int c;
    if (a instanceof Number x && b instanceof Number y) {
      Optional<BigDecimal> bx = decimal(x);
      Optional<BigDecimal> by = decimal(y);
      if (bx.isEmpty() || by.isEmpty()) {
        return Truth.UNKNOWN;
      }
      c = bx.get().compareTo(by.get());
    } else if (a instanceof String x && b instanceof String y) {
      c = x.compareTo(y);
    } else if (a instanceof Boolean x && b instanceof Boolean y) {
      if (!operator.equals("=") && !operator.equals("<>") && !operator.equals("!=")) {
        return Truth.UNKNOWN;
      }
      c = x.equals(y) ? 0 : 1;
    } else {
      return Truth.UNKNOWN;
    }
    return Truth.of(
        switch (operator) {
          case "=" -> c == 0;
          case "<>", "!=" -> c != 0;
          case "<" -> c < 0;
          case "<=" -> c <= 0;
          case ">" -> c > 0;
          default -> c >= 0;
        });
  }

  private static Optional<BigDecimal> decimal(Number n) {
    if (n instanceof BigDecimal d) {
      return Optional.of(d);
    }
    try {
      return Optional.of(new BigDecimal(n.toString()));
    } catch (NumberFormatException e) {
      return Optional.empty(); // NaN or infinity
    }
  }

  private Token peek() {
    return tokens.get(next);
  }

  private Token take() {
    Token t = tokens.get(next);
    if (t.kind() != Kind.END) {
      next++;
    }
    return t;
  }

  private boolean takeIf(String text) {
    if (peek().is(text)) {
      next++;
      return true;
    }
    return false;
  }

  private void expect(String text) {
    Token t = take();
    if (!t.is(text)) {
      throw error(t, "expected '" + text + "' but found " + describe(t));
    }
  }

  private static String describe(Token t) {
    return t.kind() == Kind.END ? "the end" : "'" + t.text() + "'";
  }

  private IllegalArgumentException error(String message) {
    return error(peek(), message);
  }

  private IllegalArgumentException error(Token t, String message) {
    return new IllegalArgumentException(
        "SQL filter '" + source + "' at position " + (t.position() + 1) + ": " + message);
  }
}
