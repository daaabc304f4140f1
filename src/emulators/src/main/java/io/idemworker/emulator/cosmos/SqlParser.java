package io.idemworker.emulator.cosmos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * Parses the subset of the Cosmos DB SQL dialect the emulator serves: patch filter predicates
 * ({@code FROM c WHERE …}) and single-container queries ({@code SELECT [TOP n] [VALUE] … FROM c
 * [WHERE …] [ORDER BY …] [OFFSET m LIMIT n]}). Anything outside the subset is refused with a 400
 * whose message names the construct. Stateless and thread-safe.
 */
final class SqlParser {
  private static final Set<String> KEYWORDS =
      Set.of(
          "SELECT",
          "TOP",
          "VALUE",
          "FROM",
          "WHERE",
          "AND",
          "OR",
          "NOT",
          "ORDER",
          "BY",
          "ASC",
          "DESC",
          "OFFSET",
          "LIMIT",
          "AS",
          "TRUE",
          "FALSE",
          "NULL",
          "UNDEFINED",
          "JOIN",
          "IN",
          "BETWEEN",
          "GROUP",
          "DISTINCT",
          "LIKE",
          "EXISTS",
          "ARRAY");
  private static final Set<String> UNSUPPORTED_KEYWORDS =
      Set.of("JOIN", "IN", "BETWEEN", "GROUP", "DISTINCT", "LIKE", "EXISTS", "ARRAY");

  private final List<Token> tokens;
  private final String text;
  private int pos;
  private String alias = "";

  private SqlParser(String text) {
    this.text = text;
    this.tokens = tokenize(text);
  }

  /**
   * Parses a patch condition, {@code FROM <alias> WHERE <expression>} (keywords in any case).
   *
   * @throws CosmosError 400 naming the problem
   */
  static SqlExpression parseFilter(String condition) {
    SqlParser p = new SqlParser(condition);
    p.expectKeyword("FROM");
    p.alias = p.fromClause();
    p.expectKeyword("WHERE");
    SqlExpression where = p.expression();
    p.expectEnd();
    return where;
  }

  /**
   * Parses a query.
   *
   * @throws CosmosError 400 naming the problem or the unsupported construct
   */
  static SqlQuery parseQuery(String query) {
    SqlParser p = new SqlParser(query);
    return p.query();
  }

  private SqlQuery query() {
    expectKeyword("SELECT");
    if (peekKeyword("DISTINCT")) {
      throw unsupported("DISTINCT");
    }
    Optional<SqlExpression> top = Optional.empty();
    if (acceptKeyword("TOP")) {
      top = Optional.of(countOperand("TOP"));
    }
    boolean value = acceptKeyword("VALUE");
    boolean star = false;
    List<SqlQuery.Projection> projections = new ArrayList<>();
    int selectStart = pos;
    if (!value && accept(Kind.SYMBOL, "*")) {
      star = true;
    } else {
      // The alias is only known after FROM: skip to it, then come back for the projections.
      skipToKeyword("FROM");
    }
    int selectEnd = pos;
    expectKeyword("FROM");
    alias = fromClause();
    Optional<SqlExpression> where = Optional.empty();
    if (acceptKeyword("WHERE")) {
      where = Optional.of(expression());
    }
    Optional<SqlQuery.OrderBy> orderBy = Optional.empty();
    if (acceptKeyword("ORDER")) {
      expectKeyword("BY");
      SqlExpression key = primary();
      if (!(key instanceof SqlExpression.Path)) {
        throw CosmosError.badRequest(
            "ORDER BY supports one property path of the document, such as c.createdAt.");
      }
      boolean descending = false;
      if (acceptKeyword("DESC")) {
        descending = true;
      } else {
        acceptKeyword("ASC");
      }
      if (peek(Kind.SYMBOL, ",")) {
        throw unsupported("ORDER BY on more than one property");
      }
      orderBy = Optional.of(new SqlQuery.OrderBy(key, descending));
    }
    Optional<SqlExpression> offset = Optional.empty();
    Optional<SqlExpression> limit = Optional.empty();
    if (acceptKeyword("OFFSET")) {
      offset = Optional.of(countOperand("OFFSET"));
      expectKeyword("LIMIT");
      limit = Optional.of(countOperand("LIMIT"));
    }
    if (peekKeyword("GROUP")) {
      throw unsupported("GROUP BY");
    }
    expectEnd();
    if (!star) {
      int end = pos;
      pos = selectStart;
      projections = projections(value, selectEnd);
      pos = end;
    }
    return new SqlQuery(alias, top, value, star, projections, where, orderBy, offset, limit);
  }

  private List<SqlQuery.Projection> projections(boolean value, int end) {
    List<SqlQuery.Projection> result = new ArrayList<>();
    if (pos == end) {
      throw syntaxError();
    }
    while (true) {
      if (peek(Kind.SYMBOL, "*")) {
        throw unsupported("'*' next to other projections");
      }
      SqlExpression e = expression();
      String name;
      if (acceptKeyword("AS")) {
        name = expectIdentifier();
      } else if (peek(Kind.IDENTIFIER) && pos < end) {
        name = expectIdentifier();
      } else {
        name = impliedName(e, result.size() + 1, alias);
      }
      result.add(new SqlQuery.Projection(e, name));
      if (pos >= end) {
        break;
      }
      expect(Kind.SYMBOL, ",");
      if (value) {
        throw CosmosError.badRequest("SELECT VALUE takes exactly one expression.");
      }
    }
    if (pos != end) {
      throw syntaxError();
    }
    return result;
  }

  private static String impliedName(SqlExpression e, int ordinal, String alias) {
    if (e instanceof SqlExpression.Path path) {
      if (path.steps().isEmpty()) {
        return alias;
      }
      Object last = path.steps().get(path.steps().size() - 1);
      if (last instanceof String name) {
        return name;
      }
    }
    return "$" + ordinal;
  }

  private SqlExpression countOperand(String clause) {
    Token t = next();
    if (t.kind == Kind.PARAMETER) {
      return new SqlExpression.Parameter(t.text);
    }
    if (t.kind == Kind.NUMBER && t.value.isIntegralNumber() && t.value.longValue() >= 0) {
      return new SqlExpression.Literal(t.value);
    }
    throw CosmosError.badRequest(
        clause + " expects a non-negative integer or a parameter, near '" + t.text + "'.");
  }

  private String fromClause() {
    String first = expectIdentifier();
    String name = first;
    if (acceptKeyword("AS")) {
      name = expectIdentifier();
    } else if (peek(Kind.IDENTIFIER)) {
      name = expectIdentifier();
    }
    if (peekKeyword("JOIN") || peek(Kind.SYMBOL, ",")) {
      throw unsupported("JOIN");
    }
    if (peekKeyword("IN")) {
      throw unsupported("FROM … IN");
    }
    return name;
  }

  private SqlExpression expression() {
    SqlExpression left = conjunction();
    while (acceptKeyword("OR")) {
      left = new SqlExpression.Or(left, conjunction());
    }
    return left;
  }

  private SqlExpression conjunction() {
    SqlExpression left = negation();
    while (acceptKeyword("AND")) {
      left = new SqlExpression.And(left, negation());
    }
    return left;
  }

  private SqlExpression negation() {
    if (acceptKeyword("NOT")) {
      return new SqlExpression.Not(negation());
    }
    return comparison();
  }

  private SqlExpression comparison() {
    SqlExpression left = primary();
    Token t = peekToken();
    if (t.kind == Kind.SYMBOL) {
      SqlExpression.Comparison.Operator op =
          switch (t.text) {
            case "=" -> SqlExpression.Comparison.Operator.EQ;
            case "!=", "<>" -> SqlExpression.Comparison.Operator.NE;
            case "<" -> SqlExpression.Comparison.Operator.LT;
            case "<=" -> SqlExpression.Comparison.Operator.LE;
            case ">" -> SqlExpression.Comparison.Operator.GT;
            case ">=" -> SqlExpression.Comparison.Operator.GE;
            default -> null;
          };
      if (op != null) {
        pos++;
        return new SqlExpression.Comparison(op, left, primary());
      }
      if (Set.of("+", "-", "*", "/", "%", "||", "??", "?", "&", "|", "^").contains(t.text)) {
        throw unsupported("the operator '" + t.text + "'");
      }
    }
    if (t.kind == Kind.KEYWORD && UNSUPPORTED_KEYWORDS.contains(t.text)) {
      throw unsupported(t.text);
    }
    return left;
  }

  private SqlExpression primary() {
    Token t = next();
    switch (t.kind) {
      case NUMBER, STRING -> {
        return new SqlExpression.Literal(t.value);
      }
      case PARAMETER -> {
        return new SqlExpression.Parameter(t.text);
      }
      case KEYWORD -> {
        return switch (t.text) {
          case "TRUE" -> new SqlExpression.Literal(BooleanNode.TRUE);
          case "FALSE" -> new SqlExpression.Literal(BooleanNode.FALSE);
          case "NULL" -> new SqlExpression.Literal(NullNode.getInstance());
          case "UNDEFINED" -> new SqlExpression.Literal(SqlExpression.UNDEFINED);
          default ->
              throw UNSUPPORTED_KEYWORDS.contains(t.text) ? unsupported(t.text) : syntaxError(t);
        };
      }
      case SYMBOL -> {
        if (t.text.equals("(")) {
          if (peekKeyword("SELECT")) {
            throw unsupported("sub-queries");
          }
          SqlExpression inner = expression();
          expect(Kind.SYMBOL, ")");
          return inner;
        }
        if (t.text.equals("-") && peek(Kind.NUMBER)) {
          JsonNode n = next().value;
          return new SqlExpression.Literal(
              n.isIntegralNumber()
                  ? LongNode.valueOf(-n.longValue())
                  : DoubleNode.valueOf(-n.doubleValue()));
        }
        if (t.text.equals("[") || t.text.equals("{")) {
          throw unsupported("array and object literals");
        }
        throw syntaxError(t);
      }
      case IDENTIFIER -> {
        if (peek(Kind.SYMBOL, "(")) {
          return call(t);
        }
        if (!t.text.equals(alias)) {
          throw CosmosError.badRequest(
              "Identifier '" + t.text + "' could not be resolved: paths start at '" + alias + "'.");
        }
        return path();
      }
      default -> throw syntaxError(t);
    }
  }

  private SqlExpression path() {
    List<Object> steps = new ArrayList<>();
    while (true) {
      if (accept(Kind.SYMBOL, ".")) {
        steps.add(expectIdentifierOrKeyword());
      } else if (accept(Kind.SYMBOL, "[")) {
        Token t = next();
        if (t.kind == Kind.STRING) {
          steps.add(t.value.textValue());
        } else if (t.kind == Kind.NUMBER
            && t.value.isIntegralNumber()
            && t.value.canConvertToInt()
            && t.value.intValue() >= 0) {
          steps.add(t.value.intValue());
        } else {
          throw CosmosError.badRequest(
              "A property index must be a string or a non-negative integer, near '"
                  + t.text
                  + "'.");
        }
        expect(Kind.SYMBOL, "]");
      } else {
        return new SqlExpression.Path(steps);
      }
    }
  }

  private SqlExpression call(Token name) {
    String fn = name.text;
    if (fn.equalsIgnoreCase("udf")) {
      throw unsupported("user-defined functions");
    }
    SqlFunction function =
        SqlFunction.named(fn)
            .orElseThrow(
                () ->
                    CosmosError.badRequest(
                        "The function '"
                            + fn
                            + "' is not supported by the idemworker Cosmos DB emulator (supported: "
                            + List.of(SqlFunction.values())
                            + ")."));
    expect(Kind.SYMBOL, "(");
    List<SqlExpression> args = new ArrayList<>();
    if (!accept(Kind.SYMBOL, ")")) {
      do {
        args.add(expression());
      } while (accept(Kind.SYMBOL, ","));
      expect(Kind.SYMBOL, ")");
    }
    if (args.size() < function.minArguments || args.size() > function.maxArguments) {
      throw CosmosError.badRequest(
          "The function '"
              + function
              + "' takes "
              + arity(function)
              + " argument(s), got "
              + args.size()
              + ".");
    }
    return new SqlExpression.Call(function, args);
  }

  private static String arity(SqlFunction f) {
    return f.minArguments == f.maxArguments
        ? Integer.toString(f.minArguments)
        : f.minArguments + " to " + f.maxArguments;
  }

  private void skipToKeyword(String keyword) {
    int depth = 0;
    while (pos < tokens.size()) {
      Token t = tokens.get(pos);
      if (t.kind == Kind.SYMBOL && (t.text.equals("(") || t.text.equals("["))) {
        depth++;
      } else if (t.kind == Kind.SYMBOL && (t.text.equals(")") || t.text.equals("]"))) {
        depth--;
      } else if (depth == 0
          && t.kind == Kind.KEYWORD
          && t.text.equals(keyword)
          && !(pos > 0 && tokens.get(pos - 1).text.equals("."))) {
        return;
      }
      pos++;
    }
    throw CosmosError.badRequest("Syntax error: the query has no " + keyword + " clause.");
  }

  private Token peekToken() {
    return pos < tokens.size() ? tokens.get(pos) : Token.END;
  }

  private Token next() {
    Token t = peekToken();
    if (t.kind == Kind.END) {
      throw CosmosError.badRequest("Syntax error: '" + text + "' ends unexpectedly.");
    }
    pos++;
    return t;
  }

  private boolean peek(Kind kind) {
    return peekToken().kind == kind;
  }

  private boolean peek(Kind kind, String tokenText) {
    Token t = peekToken();
    return t.kind == kind && t.text.equals(tokenText);
  }

  private boolean peekKeyword(String keyword) {
    return peek(Kind.KEYWORD, keyword);
  }

  private boolean accept(Kind kind, String tokenText) {
    if (peek(kind, tokenText)) {
      pos++;
      return true;
    }
    return false;
  }

  private boolean acceptKeyword(String keyword) {
    return accept(Kind.KEYWORD, keyword);
  }

  private void expect(Kind kind, String tokenText) {
    if (!accept(kind, tokenText)) {
      throw CosmosError.badRequest(
          "Syntax error: expected '" + tokenText + "' " + near(peekToken()) + ".");
    }
  }

  private void expectKeyword(String keyword) {
    expect(Kind.KEYWORD, keyword);
  }

  private String expectIdentifier() {
    Token t = peekToken();
    if (t.kind != Kind.IDENTIFIER) {
      throw CosmosError.badRequest("Syntax error: expected a name " + near(t) + ".");
    }
    pos++;
    return t.text;
  }

  private String expectIdentifierOrKeyword() {
    Token t = peekToken();
    if (t.kind == Kind.IDENTIFIER) {
      pos++;
      return t.text;
    }
    if (t.kind == Kind.KEYWORD) {
      pos++;
      return t.raw;
    }
    throw CosmosError.badRequest("Syntax error: expected a property name " + near(t) + ".");
  }

  private void expectEnd() {
    Token t = peekToken();
    if (t.kind != Kind.END) {
      if (t.kind == Kind.KEYWORD && UNSUPPORTED_KEYWORDS.contains(t.text)) {
        throw unsupported(t.text);
      }
      throw syntaxError(t);
    }
  }

  private CosmosError syntaxError() {
    return syntaxError(peekToken());
  }

  private static CosmosError syntaxError(Token t) {
    return CosmosError.badRequest("Syntax error, incorrect syntax " + near(t) + ".");
  }

  private static String near(Token t) {
    return t.kind == Kind.END ? "at the end" : "near '" + t.raw + "'";
  }

  private static CosmosError unsupported(String construct) {
    return CosmosError.badRequest(
        "The query uses "
            + construct
            + ", which the idemworker Cosmos DB emulator does not support (it serves SELECT */"
            + " property lists/VALUE, one FROM alias, WHERE, ORDER BY one property, TOP and"
            + " OFFSET…LIMIT).");
  }

  private static List<Token> tokenize(String text) {
    List<Token> out = new ArrayList<>();
    int i = 0;
    int n = text.length();
    while (i < n) {
      char ch = text.charAt(i);
      if (Character.isWhitespace(ch)) {
        i++;
      } else if (ch == '-' && i + 1 < n && text.charAt(i + 1) == '-') {
        while (i < n && text.charAt(i) != '\n') {
          i++;
        }
      } else if (Character.isLetter(ch) || ch == '_') {
        int start = i;
        while (i < n && (Character.isLetterOrDigit(text.charAt(i)) || text.charAt(i) == '_')) {
          i++;
        }
        String word = text.substring(start, i);
        String upper = word.toUpperCase(Locale.ROOT);
        out.add(
            KEYWORDS.contains(upper)
                ? new Token(Kind.KEYWORD, upper, word, null)
                : new Token(Kind.IDENTIFIER, word, word, null));
      } else if (ch == '@') {
        int start = i++;
        while (i < n && (Character.isLetterOrDigit(text.charAt(i)) || text.charAt(i) == '_')) {
          i++;
        }
        if (i == start + 1) {
          throw CosmosError.badRequest("Syntax error: '@' must be followed by a parameter name.");
        }
        String name = text.substring(start, i);
        out.add(new Token(Kind.PARAMETER, name, name, null));
      } else if (Character.isDigit(ch)
          || (ch == '.' && i + 1 < n && Character.isDigit(text.charAt(i + 1)))) {
        int start = i;
        while (i < n && (Character.isDigit(text.charAt(i)) || text.charAt(i) == '.')) {
          i++;
        }
        if (i < n && (text.charAt(i) == 'e' || text.charAt(i) == 'E')) {
          i++;
          if (i < n && (text.charAt(i) == '+' || text.charAt(i) == '-')) {
            i++;
          }
          while (i < n && Character.isDigit(text.charAt(i))) {
            i++;
          }
        }
        String raw = text.substring(start, i);
        out.add(new Token(Kind.NUMBER, raw, raw, number(raw)));
      } else if (ch == '\'' || ch == '"') {
        int start = i;
        StringBuilder sb = new StringBuilder();
        i++;
        while (true) {
          if (i >= n) {
            throw CosmosError.badRequest("Syntax error: a string literal is not closed.");
          }
          char c = text.charAt(i++);
          if (c == ch) {
            break;
          }
          if (c == '\\') {
            if (i >= n) {
              throw CosmosError.badRequest("Syntax error: a string literal is not closed.");
            }
            char e = text.charAt(i++);
            switch (e) {
              case 'n' -> sb.append('\n');
              case 't' -> sb.append('\t');
              case 'r' -> sb.append('\r');
              case 'b' -> sb.append('\b');
              case 'f' -> sb.append('\f');
              case 'u' -> {
                if (i + 4 > n) {
                  throw CosmosError.badRequest("Syntax error: a \\u escape needs 4 hex digits.");
                }
                try {
                  sb.append((char) Integer.parseInt(text.substring(i, i + 4), 16));
                } catch (NumberFormatException ex) {
                  throw CosmosError.badRequest("Syntax error: a \\u escape needs 4 hex digits.");
                }
                i += 4;
              }
              default -> sb.append(e);
            }
          } else {
            sb.append(c);
          }
        }
        out.add(
            new Token(
                Kind.STRING,
                sb.toString(),
                text.substring(start, i),
                TextNode.valueOf(sb.toString())));
      } else {
        String two = i + 1 < n ? text.substring(i, i + 2) : "";
        if (Set.of("!=", "<>", "<=", ">=", "||", "??").contains(two)) {
          out.add(new Token(Kind.SYMBOL, two, two, null));
          i += 2;
        } else if ("=<>.,()[]{}*+-/%?:&|^!".indexOf(ch) >= 0) {
          out.add(new Token(Kind.SYMBOL, String.valueOf(ch), String.valueOf(ch), null));
          i++;
        } else {
          throw CosmosError.badRequest("Syntax error, unexpected character '" + ch + "'.");
        }
      }
    }
    return out;
  }

  private static JsonNode number(String raw) {
    try {
      BigDecimal d = new BigDecimal(raw);
      if (raw.indexOf('.') < 0 && raw.indexOf('e') < 0 && raw.indexOf('E') < 0) {
        return LongNode.valueOf(d.longValueExact());
      }
      return DoubleNode.valueOf(d.doubleValue());
    } catch (ArithmeticException | NumberFormatException e) {
      throw CosmosError.badRequest("Syntax error: '" + raw + "' is not a valid number.");
    }
  }

  private enum Kind {
    IDENTIFIER,
    KEYWORD,
    NUMBER,
    STRING,
    PARAMETER,
    SYMBOL,
    END
  }

  /** One token; {@code text} is upper-cased for keywords, decoded for strings. */
  private record Token(Kind kind, String text, String raw, JsonNode value) {
    static final Token END = new Token(Kind.END, "", "", null);
  }
}
