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
 * Parses the Cosmos DB SQL dialect the emulator serves: patch filter predicates ({@code FROM c
 * WHERE …}) and queries ({@code SELECT [DISTINCT] [TOP n] [VALUE] … [FROM c [JOIN x IN c.path |
 * JOIN (SELECT …) x]…] [WHERE …] [GROUP BY …] [ORDER BY …] [OFFSET m LIMIT n]}), with sub-queries
 * in FROM, in JOIN and as values ({@code (SELECT …)}, {@code EXISTS(SELECT …)}, {@code ARRAY(SELECT
 * …)}), {@code LIKE}, and queries without FROM. Anything outside is refused with a 400 whose
 * message names the construct. Paths start at their alias ({@link SqlExpression.Path}); a name no
 * FROM of this query or an enclosing one binds is refused. Stateless and thread-safe.
 */
final class SqlParser {
  private final List<Token> tokens;
  private final String text;
  private int pos;
  private int aggregateIds;
  private Level level = new Level(null);

  /** The names one query (a sub-query's level sees its enclosing levels' too) binds. */
  private static final class Level {
    final Level outer;
    final List<String> aliases = new ArrayList<>();
    final List<SqlExpression.Aggregate> aggregates = new ArrayList<>();
    boolean inSelect;

    Level(Level outer) {
      this.outer = outer;
    }

    boolean resolves(String name) {
      return aliases.contains(name) || (outer != null && outer.resolves(name));
    }

    List<String> visible() {
      List<String> all = new ArrayList<>(outer == null ? List.of() : outer.visible());
      all.addAll(aliases);
      return all;
    }
  }

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
    String alias = p.expectIdentifier();
    if (p.acceptKeyword("AS")) {
      alias = p.expectIdentifier();
    } else if (p.peek(Kind.IDENTIFIER)) {
      alias = p.expectIdentifier();
    }
    if (p.peekKeyword("JOIN") || p.peekKeyword("IN") || p.peek(Kind.SYMBOL, ",")) {
      throw unsupported("JOIN or IN in a patch condition");
    }
    p.level.aliases.add(alias);
    p.expectKeyword("WHERE");
    SqlExpression where = p.expression();
    p.expectEnd();
    return new SqlExpression.Rooted(alias, where);
  }

  /**
   * Parses a query.
   *
   * @throws CosmosError 400 naming the problem or the unsupported construct
   */
  static SqlQuery parseQuery(String query) {
    SqlParser p = new SqlParser(query);
    SqlQuery q = p.query(false, true);
    p.expectEnd();
    return q;
  }

  /**
   * One query, from SELECT to its end: the whole text, or (nested) the closing parenthesis the
   * caller then reads.
   *
   * @param containerAllowed whether its FROM may name the container (the statement, and the
   *     sub-queries in the root FROM of one that may); other sub-queries read what their enclosing
   *     query binds
   */
  private SqlQuery query(boolean nested, boolean containerAllowed) {
    Level enclosing = level;
    level = new Level(nested ? enclosing : null);
    try {
      return queryAtLevel(nested, containerAllowed);
    } finally {
      level = enclosing;
    }
  }

  private SqlQuery queryAtLevel(boolean nested, boolean containerAllowed) {
    int queryStart = peekToken().start();
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
      // The aliases are only known after FROM: skip to it, then come back for the projections.
      skipSelectList();
    }
    int selectEnd = pos;
    Optional<SqlQuery.From> from = Optional.empty();
    String fromText = "";
    if (acceptKeyword("FROM")) {
      int fromStart = peekToken().start();
      from = Optional.of(fromClause(containerAllowed));
      fromText = text.substring(fromStart, previousEnd());
    } else if (star) {
      throw CosmosError.badRequest("'SELECT *' is not valid if FROM clause is omitted.");
    }
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
    int offsetStart = -1;
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
    int queryEnd = nested ? previousEnd() : text.length();
    if (nested && !peek(Kind.SYMBOL, ")")) {
      throw syntaxError();
    }
    if (!star) {
      int end = pos;
      pos = selectStart;
      level.inSelect = true;
      projections = projections(value, selectEnd, from);
      level.inSelect = false;
      pos = end;
    }
    List<SqlExpression.Aggregate> aggregates = level.aggregates;
    if (!aggregates.isEmpty() && !orderBy.isEmpty()) {
      throw unsupported("an aggregate with ORDER BY");
    }
    if (!groupBy.isEmpty() && (star || !orderBy.isEmpty())) {
      throw unsupported(star ? "SELECT * with GROUP BY" : "GROUP BY with ORDER BY");
    }
    SqlQuery.Source source =
        new SqlQuery.Source(
            text.substring(queryStart, queryEnd),
            fromText,
            whereText,
            text.substring(queryStart, offsetStart < 0 ? queryEnd : offsetStart));
    return new SqlQuery(
        from.map(SqlParser::documentAlias).orElse(""),
        from,
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

  /** The alias of the container's documents, or the root alias when it is not the container. */
  private static String documentAlias(SqlQuery.From from) {
    return from.root().alias();
  }

  /**
   * {@code FROM} up to the next clause: a root source, then any number of {@code JOIN}s. The root
   * is the container ({@code c}, {@code root r}, {@code c IN root.children} over each document's
   * array), a sub-query ({@code (SELECT …) p}) or, in a sub-query, {@code x IN <outer path>}.
   */
  private SqlQuery.From fromClause(boolean containerAllowed) {
    SqlQuery.FromItem root;
    List<SqlQuery.FromItem> joins = new ArrayList<>();
    if (accept(Kind.SYMBOL, "(")) {
      root = subquerySource(containerAllowed);
    } else {
      String first = expectIdentifier();
      if (acceptKeyword("IN")) {
        Token head = peekToken();
        if (containerAllowed
            && head.kind() == Kind.IDENTIFIER
            && !level.resolves(head.text())
            && !peek2(Kind.SYMBOL, "(")) {
          // FROM x IN c.children: the container, named to reach into each document's array.
          root = new SqlQuery.ContainerSource(head.text(), true);
          level.aliases.add(head.text());
          joins.add(new SqlQuery.InSource(first, bind(first, operand())));
        } else {
          root = new SqlQuery.InSource(first, bind(first, operand()));
        }
      } else {
        String alias = first;
        if (acceptKeyword("AS")) {
          alias = expectIdentifier();
        } else if (peek(Kind.IDENTIFIER)) {
          alias = expectIdentifier();
        }
        if (!containerAllowed) {
          throw CosmosError.badRequest(
              "A sub-query reads what its enclosing query binds: write 'x IN "
                  + first
                  + ".path' or a sub-query in its FROM, not the container '"
                  + first
                  + "'.");
        }
        if (peek(Kind.SYMBOL, ".") || peek(Kind.SYMBOL, "[")) {
          throw unsupported("a path in FROM (FROM c.path): use JOIN x IN c.path");
        }
        root = new SqlQuery.ContainerSource(alias, false);
        level.aliases.add(alias);
      }
    }
    if (root instanceof SqlQuery.SubquerySource s) {
      level.aliases.add(s.alias());
    }
    while (true) {
      if (peek(Kind.SYMBOL, ",")) {
        throw unsupported("a list of sources in FROM (FROM a, b): use JOIN");
      }
      if (!acceptKeyword("JOIN")) {
        break;
      }
      if (accept(Kind.SYMBOL, "(")) {
        SqlQuery.SubquerySource s = subquerySource(false);
        level.aliases.add(s.alias());
        joins.add(s);
      } else {
        String alias = expectIdentifier();
        expectKeyword("IN");
        joins.add(new SqlQuery.InSource(alias, bind(alias, operand())));
      }
    }
    return new SqlQuery.From(root, joins);
  }

  /** Registers {@code alias} (bound from now on) and answers {@code source}. */
  private SqlExpression bind(String alias, SqlExpression source) {
    if (level.aliases.contains(alias)) {
      throw CosmosError.badRequest("The alias '" + alias + "' is bound twice in one FROM.");
    }
    level.aliases.add(alias);
    return source;
  }

  /** {@code (SELECT …) [AS] alias}, read after the opening parenthesis. */
  private SqlQuery.SubquerySource subquerySource(boolean containerAllowed) {
    if (!peekKeyword("SELECT")) {
      throw syntaxError();
    }
    SqlQuery sub = query(true, containerAllowed);
    expect(Kind.SYMBOL, ")");
    if (acceptKeyword("AS") || peek(Kind.IDENTIFIER)) {
      return new SqlQuery.SubquerySource(expectIdentifier(), sub);
    }
    // FROM (SELECT …) without an alias: its rows are read, but cannot be named.
    return new SqlQuery.SubquerySource("$subquery" + aggregateIds++, sub);
  }

  private boolean peek2(Kind kind, String tokenText) {
    if (pos + 1 >= tokens.size()) {
      return false;
    }
    Token t = tokens.get(pos + 1);
    return t.kind() == kind && t.text().equals(tokenText);
  }

  /**
   * Moves past the SELECT list: to the first FROM, WHERE, GROUP, ORDER or OFFSET outside brackets,
   * or to the end of the query (its closing parenthesis when nested).
   */
  private void skipSelectList() {
    Set<String> clauses = Set.of("FROM", "WHERE", "GROUP", "ORDER", "OFFSET");
    int depth = 0;
    while (pos < tokens.size()) {
      Token t = tokens.get(pos);
      if (t.kind() == Kind.SYMBOL && (t.text().equals("(") || t.text().equals("["))) {
        depth++;
      } else if (t.kind() == Kind.SYMBOL && (t.text().equals(")") || t.text().equals("]"))) {
        if (depth == 0) {
          return;
        }
        depth--;
      } else if (depth == 0
          && t.kind() == Kind.KEYWORD
          && clauses.contains(t.text())
          && !(pos > 0 && tokens.get(pos - 1).text().equals("."))) {
        return;
      }
      pos++;
    }
  }

  private int previousEnd() {
    return pos == 0 ? 0 : tokens.get(pos - 1).end();
  }

  private List<SqlQuery.Projection> projections(
      boolean value, int end, Optional<SqlQuery.From> from) {
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
        name = impliedName(e, result.size() + 1);
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

  private static String impliedName(SqlExpression e, int ordinal) {
    if (e instanceof SqlExpression.Path path) {
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
        && Set.of("IN", "BETWEEN", "LIKE").contains(tokens.get(pos + 1).text())) {
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
    if (t.kind() == Kind.KEYWORD && t.text().equals("LIKE")) {
      pos++;
      SqlExpression pattern = operand();
      Optional<SqlExpression> escape = Optional.empty();
      if (peek(Kind.IDENTIFIER) && peekToken().text().equalsIgnoreCase("ESCAPE")) {
        pos++;
        escape = Optional.of(operand());
      }
      SqlExpression like = new SqlExpression.Like(left, pattern, escape);
      return negated ? new SqlExpression.Not(like) : like;
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
          case "EXISTS" -> new SqlExpression.Exists(parenthesisedSubquery(t));
          case "ARRAY" -> new SqlExpression.ArrayQuery(parenthesisedSubquery(t));
          default -> throw syntaxError(t);
        };
      }
      case SYMBOL -> {
        if (t.text().equals("(")) {
          if (peekKeyword("SELECT")) {
            SqlQuery sub = subqueryWithAggregatesOfItsOwn();
            expect(Kind.SYMBOL, ")");
            return new SqlExpression.Scalar(sub);
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
        if (!level.resolves(t.text())) {
          throw CosmosError.badRequest(
              "Identifier '"
                  + t.text()
                  + "' could not be resolved"
                  + (level.visible().isEmpty()
                      ? ": the query binds no name (it has no FROM)."
                      : ": paths start at " + level.visible() + ".")
                  + "");
        }
        return path(t.text());
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

  /** {@code EXISTS(…)} or {@code ARRAY(…)}: the sub-query between the parentheses. */
  private SqlQuery parenthesisedSubquery(Token keyword) {
    expect(Kind.SYMBOL, "(");
    if (!peekKeyword("SELECT")) {
      throw CosmosError.badRequest(
          "Syntax error: " + keyword.text() + " takes a sub-query, " + near(peekToken()) + ".");
    }
    SqlQuery sub = subqueryWithAggregatesOfItsOwn();
    expect(Kind.SYMBOL, ")");
    return sub;
  }

  /** A sub-query in an expression, which may aggregate even outside a SELECT clause. */
  private SqlQuery subqueryWithAggregatesOfItsOwn() {
    return query(true, false);
  }

  private SqlExpression path(String alias) {
    List<Object> steps = new ArrayList<>();
    steps.add(alias);
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
    if (!level.inSelect) {
      throw CosmosError.badRequest(
          "The aggregate " + function + " is allowed in the SELECT clause only.");
    }
    expect(Kind.SYMBOL, "(");
    if (peekKeyword("DISTINCT")) {
      throw unsupported(function + "(DISTINCT …)");
    }
    level.inSelect = false; // no aggregate inside an aggregate
    SqlExpression argument = expression();
    level.inSelect = true;
    expect(Kind.SYMBOL, ")");
    // Slots are unique in the statement: a sub-query's aggregates never shadow its query's.
    SqlExpression.Aggregate a = new SqlExpression.Aggregate(function, argument, aggregateIds++);
    level.aggregates.add(a);
    return a;
  }

  private static String arity(SqlFunction f) {
    return f.minArguments == f.maxArguments
        ? Integer.toString(f.minArguments)
        : f.minArguments + " to " + f.maxArguments;
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
            + " [DISTINCT] [TOP n] */property lists/VALUE, COUNT/SUM/MIN/MAX/AVG, FROM with JOIN …"
            + " IN and sub-queries, WHERE, GROUP BY, ORDER BY property paths, OFFSET…LIMIT).");
  }
}
