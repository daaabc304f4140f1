package io.idemworker.emulator.cosmos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.NullNode;
import io.idemworker.emulator.cosmos.SqlTokens.Kind;
import io.idemworker.emulator.cosmos.SqlTokens.Token;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Parses the subset of the Cosmos DB SQL dialect the emulator serves: patch filter predicates
 * ({@code FROM c WHERE …}) and single-container queries ({@code SELECT [TOP n] [VALUE] … FROM c
 * [WHERE …] [GROUP BY …] [ORDER BY …] [OFFSET m LIMIT n]}). Anything outside the subset is refused
 * with a 400 whose message names the construct. Stateless and thread-safe.
 */
final class SqlParser {
  private static final Set<String> UNSUPPORTED_KEYWORDS =
      Set.of("JOIN", "GROUP", "DISTINCT", "LIKE", "EXISTS", "ARRAY");

  private final List<Token> tokens;
  private final String text;
  private int pos;
  private String alias = "";
  private boolean inSelect;
  private final List<SqlExpression.Aggregate> aggregates = new ArrayList<>();

  private SqlParser(String text) {
    this.text = text;
    this.tokens = SqlTokens.tokenize(text);
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
    boolean distinct = acceptKeyword("DISTINCT");
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
    int fromStart = peekToken().start();
    alias = fromClause();
    String from = text.substring(fromStart, previousEnd());
    Optional<SqlExpression> where = Optional.empty();
    Optional<String> whereText = Optional.empty();
    if (acceptKeyword("WHERE")) {
      int whereStart = peekToken().start();
      where = Optional.of(expression());
      whereText = Optional.of(text.substring(whereStart, previousEnd()));
    }
    List<SqlQuery.GroupBy> groupBy = new ArrayList<>();
    if (acceptKeyword("GROUP")) {
      expectKeyword("BY");
      do {
        int keyStart = peekToken().start();
        SqlExpression key = expression();
        groupBy.add(new SqlQuery.GroupBy(key, text.substring(keyStart, previousEnd())));
      } while (accept(Kind.SYMBOL, ","));
    }
    List<SqlQuery.OrderBy> orderBy = new ArrayList<>();
    if (acceptKeyword("ORDER")) {
      expectKeyword("BY");
      do {
        int keyStart = peekToken().start();
        SqlExpression key = primary();
        if (!(key instanceof SqlExpression.Path)) {
          throw CosmosError.badRequest(
              "ORDER BY supports property paths of the document, such as c.createdAt.");
        }
        String keyText = text.substring(keyStart, previousEnd());
        boolean descending = false;
        if (acceptKeyword("DESC")) {
          descending = true;
        } else {
          acceptKeyword("ASC");
        }
        orderBy.add(new SqlQuery.OrderBy(key, descending, keyText));
      } while (accept(Kind.SYMBOL, ","));
    }
    Optional<SqlExpression> offset = Optional.empty();
    Optional<SqlExpression> limit = Optional.empty();
    int offsetStart = text.length();
    if (peekKeyword("OFFSET")) {
      offsetStart = peekToken().start();
      pos++;
      offset = Optional.of(countOperand("OFFSET"));
      expectKeyword("LIMIT");
      limit = Optional.of(countOperand("LIMIT"));
    }
    if (peekKeyword("GROUP")) {
      throw CosmosError.badRequest("Syntax error: GROUP BY goes before ORDER BY and OFFSET.");
    }
    expectEnd();
    if (!star) {
      int end = pos;
      pos = selectStart;
      inSelect = true;
      projections = projections(value, selectEnd);
      inSelect = false;
      pos = end;
    }
    if (!aggregates.isEmpty() && !orderBy.isEmpty()) {
      throw unsupported("an aggregate with ORDER BY");
    }
    if (!groupBy.isEmpty() && (star || !orderBy.isEmpty())) {
      throw unsupported(star ? "SELECT * with GROUP BY" : "GROUP BY with ORDER BY");
    }
    SqlQuery.Source source =
        new SqlQuery.Source(text, from, whereText, text.substring(0, offsetStart));
    return new SqlQuery(
        alias,
        top,
        distinct,
        value,
        star,
        projections,
        where,
        groupBy,
        orderBy,
        offset,
        limit,
        aggregates,
        source);
  }

  private int previousEnd() {
    return pos == 0 ? 0 : tokens.get(pos - 1).end();
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
      int start = peekToken().start();
      SqlExpression e = expression();
      String exprText = text.substring(start, previousEnd());
      String name;
      if (acceptKeyword("AS")) {
        name = expectIdentifier();
      } else if (peek(Kind.IDENTIFIER) && pos < end) {
        name = expectIdentifier();
      } else {
        name = impliedName(e, result.size() + 1, alias);
      }
      result.add(new SqlQuery.Projection(e, name, exprText));
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
    if (t.kind() == Kind.PARAMETER) {
      return new SqlExpression.Parameter(t.text());
    }
    if (t.kind() == Kind.NUMBER && t.value().isIntegralNumber() && t.value().longValue() >= 0) {
      return new SqlExpression.Literal(t.value());
    }
    throw CosmosError.badRequest(
        clause + " expects a non-negative integer or a parameter, near '" + t.text() + "'.");
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
    SqlExpression left = operand();
    Token t = peekToken();
    if (t.kind() == Kind.SYMBOL) {
      SqlExpression.Comparison.Operator op =
          switch (t.text()) {
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
        return new SqlExpression.Comparison(op, left, operand());
      }
      if (Set.of("?", "&", "|", "^").contains(t.text())) {
        throw unsupported("the operator '" + t.text() + "'");
      }
    }
    boolean negated = false;
    if (t.kind() == Kind.KEYWORD
        && t.text().equals("NOT")
        && pos + 1 < tokens.size()
        && tokens.get(pos + 1).kind() == Kind.KEYWORD
        && Set.of("IN", "BETWEEN").contains(tokens.get(pos + 1).text())) {
      pos++;
      negated = true;
      t = peekToken();
    }
    if (t.kind() == Kind.KEYWORD && t.text().equals("IN")) {
      pos++;
      SqlExpression in = inList(left);
      return negated ? new SqlExpression.Not(in) : in;
    }
    if (t.kind() == Kind.KEYWORD && t.text().equals("BETWEEN")) {
      pos++;
      SqlExpression low = operand();
      if (!acceptKeyword("AND")) {
        throw syntaxError(peekToken());
      }
      SqlExpression between =
          new SqlExpression.And(
              new SqlExpression.Comparison(SqlExpression.Comparison.Operator.GE, left, low),
              new SqlExpression.Comparison(SqlExpression.Comparison.Operator.LE, left, operand()));
      return negated ? new SqlExpression.Not(between) : between;
    }
    if (t.kind() == Kind.KEYWORD
        && UNSUPPORTED_KEYWORDS.contains(t.text())
        && !t.text().equals("GROUP")) {
      throw unsupported(t.text());
    }
    return left;
  }

  /**
   * An operand of a comparison: {@code ??} binds loosest, then {@code ||}, {@code + -}, {@code * /
   * %}.
   */
  private SqlExpression operand() {
    return binary(0);
  }

  private static final List<Set<String>> BINARY_LEVELS =
      List.of(Set.of("??"), Set.of("||"), Set.of("+", "-"), Set.of("*", "/", "%"));

  private SqlExpression binary(int level) {
    if (level == BINARY_LEVELS.size()) {
      return primary();
    }
    SqlExpression left = binary(level + 1);
    while (peek(Kind.SYMBOL) && BINARY_LEVELS.get(level).contains(peekToken().text())) {
      SqlOperators op = SqlOperators.of(next().text());
      left = new SqlExpression.Binary(op, left, binary(level + 1));
    }
    return left;
  }

  /**
   * {@code value IN (a, b, …)}, read after the keyword: true when {@code value} equals one of the
   * candidates, as a chain of {@code =} joined by {@code OR}, so a candidate of another type counts
   * as undefined, as it does for {@code =}.
   */
  private SqlExpression inList(SqlExpression value) {
    expect(Kind.SYMBOL, "(");
    SqlExpression result =
        new SqlExpression.Comparison(SqlExpression.Comparison.Operator.EQ, value, primary());
    while (accept(Kind.SYMBOL, ",")) {
      result =
          new SqlExpression.Or(
              result,
              new SqlExpression.Comparison(SqlExpression.Comparison.Operator.EQ, value, primary()));
    }
    expect(Kind.SYMBOL, ")");
    return result;
  }

  private SqlExpression primary() {
    Token t = next();
    switch (t.kind()) {
      case NUMBER, STRING -> {
        return new SqlExpression.Literal(t.value());
      }
      case PARAMETER -> {
        return new SqlExpression.Parameter(t.text());
      }
      case KEYWORD -> {
        return switch (t.text()) {
          case "TRUE" -> new SqlExpression.Literal(BooleanNode.TRUE);
          case "FALSE" -> new SqlExpression.Literal(BooleanNode.FALSE);
          case "NULL" -> new SqlExpression.Literal(NullNode.getInstance());
          case "UNDEFINED" -> new SqlExpression.Literal(SqlExpression.UNDEFINED);
          default ->
              throw UNSUPPORTED_KEYWORDS.contains(t.text())
                  ? unsupported(t.text())
                  : syntaxError(t);
        };
      }
      case SYMBOL -> {
        if (t.text().equals("(")) {
          if (peekKeyword("SELECT")) {
            throw unsupported("sub-queries");
          }
          SqlExpression inner = expression();
          expect(Kind.SYMBOL, ")");
          return inner;
        }
        if (t.text().equals("-") && peek(Kind.NUMBER)) {
          JsonNode n = next().value();
          return new SqlExpression.Literal(
              n.isIntegralNumber()
                  ? LongNode.valueOf(-n.longValue())
                  : DoubleNode.valueOf(-n.doubleValue()));
        }
        if (t.text().equals("[")) {
          List<SqlExpression> elements = new ArrayList<>();
          if (!accept(Kind.SYMBOL, "]")) {
            do {
              elements.add(expression());
            } while (accept(Kind.SYMBOL, ","));
            expect(Kind.SYMBOL, "]");
          }
          return new SqlExpression.ArrayLiteral(elements);
        }
        if (t.text().equals("{")) {
          return objectLiteral();
        }
        throw syntaxError(t);
      }
      case IDENTIFIER -> {
        if (peek(Kind.SYMBOL, "(")) {
          return call(t);
        }
        if (!t.text().equals(alias)) {
          throw CosmosError.badRequest(
              "Identifier '"
                  + t.text()
                  + "' could not be resolved: paths start at '"
                  + alias
                  + "'.");
        }
        return path();
      }
      default -> throw syntaxError(t);
    }
  }

  private SqlExpression objectLiteral() {
    List<Map.Entry<String, SqlExpression>> properties = new ArrayList<>();
    if (!accept(Kind.SYMBOL, "}")) {
      do {
        Token key = next();
        if (key.kind() != Kind.STRING && key.kind() != Kind.IDENTIFIER) {
          throw CosmosError.badRequest(
              "Syntax error: an object literal's property name must be a string or a name, near '"
                  + key.raw()
                  + "'.");
        }
        expect(Kind.SYMBOL, ":");
        properties.add(Map.entry(key.text(), expression()));
      } while (accept(Kind.SYMBOL, ","));
      expect(Kind.SYMBOL, "}");
    }
    return new SqlExpression.ObjectLiteral(properties);
  }

  private SqlExpression path() {
    List<Object> steps = new ArrayList<>();
    while (true) {
      if (accept(Kind.SYMBOL, ".")) {
        steps.add(expectIdentifierOrKeyword());
      } else if (accept(Kind.SYMBOL, "[")) {
        Token t = next();
        if (t.kind() == Kind.STRING) {
          steps.add(t.value().textValue());
        } else if (t.kind() == Kind.NUMBER
            && t.value().isIntegralNumber()
            && t.value().canConvertToInt()
            && t.value().intValue() >= 0) {
          steps.add(t.value().intValue());
        } else {
          throw CosmosError.badRequest(
              "A property index must be a string or a non-negative integer, near '"
                  + t.text()
                  + "'.");
        }
        expect(Kind.SYMBOL, "]");
      } else {
        return new SqlExpression.Path(steps);
      }
    }
  }

  private SqlExpression call(Token name) {
    String fn = name.text();
    Optional<SqlExpression.Aggregate.Function> aggregate =
        Arrays.stream(SqlExpression.Aggregate.Function.values())
            .filter(f -> f.name().equalsIgnoreCase(fn))
            .findFirst();
    if (aggregate.isPresent()) {
      return aggregate(aggregate.get());
    }
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

  private SqlExpression aggregate(SqlExpression.Aggregate.Function function) {
    if (!inSelect) {
      throw CosmosError.badRequest(
          "The aggregate " + function + " is allowed in the SELECT clause only.");
    }
    expect(Kind.SYMBOL, "(");
    if (peekKeyword("DISTINCT")) {
      throw unsupported(function + "(DISTINCT …)");
    }
    inSelect = false; // no aggregate inside an aggregate
    SqlExpression argument = expression();
    inSelect = true;
    expect(Kind.SYMBOL, ")");
    SqlExpression.Aggregate a = new SqlExpression.Aggregate(function, argument, aggregates.size());
    aggregates.add(a);
    return a;
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
      if (t.kind() == Kind.SYMBOL && (t.text().equals("(") || t.text().equals("["))) {
        depth++;
      } else if (t.kind() == Kind.SYMBOL && (t.text().equals(")") || t.text().equals("]"))) {
        depth--;
      } else if (depth == 0
          && t.kind() == Kind.KEYWORD
          && t.text().equals(keyword)
          && !(pos > 0 && tokens.get(pos - 1).text().equals("."))) {
        return;
      }
      pos++;
    }
    throw CosmosError.badRequest("Syntax error: the query has no " + keyword + " clause.");
  }

  private Token end() {
    return new Token(Kind.END, "", "", null, text.length(), text.length());
  }

  private Token peekToken() {
    return pos < tokens.size() ? tokens.get(pos) : end();
  }

  private Token next() {
    Token t = peekToken();
    if (t.kind() == Kind.END) {
      throw CosmosError.badRequest("Syntax error: '" + text + "' ends unexpectedly.");
    }
    pos++;
    return t;
  }

  private boolean peek(Kind kind) {
    return peekToken().kind() == kind;
  }

  private boolean peek(Kind kind, String tokenText) {
    Token t = peekToken();
    return t.kind() == kind && t.text().equals(tokenText);
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
    if (t.kind() != Kind.IDENTIFIER) {
      throw CosmosError.badRequest("Syntax error: expected a name " + near(t) + ".");
    }
    pos++;
    return t.text();
  }

  private String expectIdentifierOrKeyword() {
    Token t = peekToken();
    if (t.kind() == Kind.IDENTIFIER) {
      pos++;
      return t.text();
    }
    if (t.kind() == Kind.KEYWORD) {
      pos++;
      return t.raw();
    }
    throw CosmosError.badRequest("Syntax error: expected a property name " + near(t) + ".");
  }

  private void expectEnd() {
    Token t = peekToken();
    if (t.kind() != Kind.END) {
      if (t.kind() == Kind.KEYWORD && UNSUPPORTED_KEYWORDS.contains(t.text())) {
        throw unsupported(t.text());
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
    return t.kind() == Kind.END ? "at the end" : "near '" + t.raw() + "'";
  }

  private static CosmosError unsupported(String construct) {
    return CosmosError.badRequest(
        "The query uses "
            + construct
            + ", which the idemworker Cosmos DB emulator does not support (it serves SELECT"
            + " [DISTINCT] [TOP n] */property lists/VALUE, COUNT/SUM/MIN/MAX/AVG, one FROM alias,"
            + " WHERE, ORDER BY property paths, OFFSET…LIMIT).");
  }
}
