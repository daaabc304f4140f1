package io.idemworker.emulator.cosmos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Answers the query-plan handshake ({@code x-ms-cosmos-is-query-plan-request: True}): the {@code
 * partitionedQueryExecutionInfo} that tells an SDK what to send to each partition key range and
 * what to merge itself.
 *
 * <p>A query scoped to one logical partition gets a plan without client-side work: the emulator
 * sorts, limits, de-duplicates and aggregates that partition itself, and the SDK passes pages
 * through. A cross-partition query gets the plan the service's contract describes, so the SDK fans
 * out and merges:
 *
 * <ul>
 *   <li>{@code ORDER BY}: {@code orderBy}/{@code orderByExpressions} and the rewrite {@code SELECT
 *       c._rid, [{"item": key}, …] AS orderByItems, <payload> AS payload FROM … WHERE
 *       ({documentdb-formattableorderbyquery-filter}) AND (<where>) ORDER BY …}, whose placeholder
 *       the SDK replaces with {@code true} or with its resume filter;
 *   <li>{@code SELECT VALUE} of one aggregate: {@code aggregates} and a rewrite returning one
 *       partial result per range, {@code {"item": …}} ({@code {"min"|"max": v, "count": n}} for
 *       MIN/MAX, {@code {"sum": s, "count": n}} for AVG), which the SDK combines and then applies
 *       TOP or OFFSET/LIMIT to;
 *   <li>{@code TOP}, {@code OFFSET/LIMIT} (each range is asked for {@code OFFSET 0 LIMIT
 *       offset+limit}) and {@code DISTINCT} ({@code Ordered} with ORDER BY, else {@code
 *       Unordered}): declared for the SDK to apply over the merged stream.
 * </ul>
 *
 * A list of lone aggregates ({@code SELECT MIN(c.a), MAX(c.a) AS m FROM c}) is planned as the
 * service does, with {@code groupByAliases}, {@code groupByAliasToAggregateType} and a rewrite
 * returning {@code {"<alias>": {"item": <partial>}}} as {@code payload} per range. Other aggregates
 * in a property list, or next to TOP, DISTINCT or OFFSET, and DISTINCT on a VALUE aggregate, are
 * refused across partitions with a 400 naming the form that is served. Stateless.
 */
final class QueryPlanner {
  static final String ORDER_BY_FILTER = "{documentdb-formattableorderbyquery-filter}";
  private static final Pattern AGGREGATE_CALL =
      Pattern.compile("\\b(COUNT|SUM|MIN|MAX|AVG)\\s*\\(", Pattern.CASE_INSENSITIVE);

  private QueryPlanner() {}

  /** The plan of a query the request scopes to one logical partition: no client-side work. */
  static ObjectNode singlePartition(SqlQuery query, ObjectMapper mapper) {
    return skeleton(query, mapper);
  }

  /** The plan of a cross-partition query, with the rewrites described above. */
  static ObjectNode crossPartition(
      SqlQuery query,
      Map<String, JsonNode> parameters,
      String supportedFeatures,
      ObjectMapper mapper) {
    ObjectNode n = skeleton(query, mapper);
    ObjectNode info = (ObjectNode) n.get("queryInfo");
    SqlQuery.Source src = query.source();
    Optional<SqlQuery> distinctCount = distinctCount(query);
    if (distinctCount.isPresent()) {
      // SELECT VALUE COUNT(1) FROM (SELECT DISTINCT …): each range returns the sub-query's rows;
      // the SDK de-duplicates them over every range and counts (dCountInfo).
      SqlQuery sub = distinctCount.get();
      ObjectNode plan = crossPartition(sub, parameters, supportedFeatures, mapper);
      ObjectNode subInfo = (ObjectNode) plan.get("queryInfo");
      if (subInfo.path("rewrittenQuery").asText().isEmpty()) {
        subInfo.put("rewrittenQuery", sub.source().text());
      }
      subInfo
          .putObject("dCountInfo")
          .put("dCountAlias", query.value() ? "" : query.projections().get(0).name());
      subInfo.put("hasSelectValue", query.value());
      return plan;
    }
    if (!query.groupBy().isEmpty()) {
      groupBy(query, parameters, info);
      return n;
    }
    if (!query.aggregates().isEmpty() && isAggregateList(query)) {
      // SELECT MIN(c.a), MAX(c.a) AS top FROM c: the SDK combines, per alias, one partial per range
      // read from {"payload": {"<alias>": {"item": <partial>}, …}}.
      ObjectNode types = info.putObject("groupByAliasToAggregateType");
      var aliases = info.putArray("groupByAliases");
      StringBuilder payload = new StringBuilder("{");
      for (SqlQuery.Projection p : query.projections()) {
        SqlExpression.Aggregate a = (SqlExpression.Aggregate) p.expression();
        types.put(p.name(), operator(a.function()));
        aliases.add(p.name());
        payload.append(payload.length() > 1 ? ", " : "").append(quote(p.name()));
        payload.append(": {\"item\": ").append(partial(a, argumentText(p.text()))).append('}');
      }
      info.put(
          "rewrittenQuery",
          "SELECT "
              + payload
              + "} AS payload"
              + fromPart(src)
              + src.where().map(w -> " WHERE " + w).orElse(""));
      return n;
    }
    if (!query.aggregates().isEmpty()) {
      info.put("rewrittenQuery", aggregateRewrite(query, arrayPartials(supportedFeatures)));
      info.putArray("aggregates").add(operator(query.aggregates().get(0).function()));
      if (query.distinct()) {
        info.put("distinctType", "Unordered");
      }
      // TOP and OFFSET/LIMIT apply to the one combined row, so the SDK takes them after
      // combining the partials; the ranges' queries carry neither.
      query.top().ifPresent(t -> info.put("top", QueryEngine.count(t, parameters, "TOP")));
      if (query.limit().isPresent()) {
        info.put(
            "offset",
            query.offset().map(e -> QueryEngine.count(e, parameters, "OFFSET")).orElse(0L));
        info.put("limit", QueryEngine.count(query.limit().get(), parameters, "LIMIT"));
      }
      return n;
    }
    query.top().ifPresent(t -> info.put("top", QueryEngine.count(t, parameters, "TOP")));
    long offset = query.offset().map(e -> QueryEngine.count(e, parameters, "OFFSET")).orElse(0L);
    if (query.limit().isPresent()) {
      long limit = QueryEngine.count(query.limit().get(), parameters, "LIMIT");
      info.put("offset", offset);
      info.put("limit", limit);
    }
    if (query.distinct()) {
      info.put("distinctType", orderedDistinct(query) ? "Ordered" : "Unordered");
    }
    String rewritten = "";
    if (!query.orderBy().isEmpty()) {
      var orderBy = info.putArray("orderBy");
      var expressions = info.putArray("orderByExpressions");
      for (SqlQuery.OrderBy o : query.orderBy()) {
        orderBy.add(o.descending() ? "Descending" : "Ascending");
        expressions.add(o.text());
      }
      rewritten = orderByRewrite(query);
    }
    if (query.limit().isPresent()) {
      long limit = info.get("limit").asLong();
      String base = rewritten.isEmpty() ? src.beforeOffset() : rewritten;
      rewritten = base.stripTrailing() + " OFFSET 0 LIMIT " + (offset + limit);
    }
    info.put("rewrittenQuery", rewritten);
    return n;
  }

  /**
   * GROUP BY across partitions, as the Java SDK merges it: {@code groupByExpressions}, the aliases
   * in SELECT order with their aggregate type ({@code null} for a grouped expression), and a
   * rewrite returning per range one row per group, {@code [{"item": <group key>}, …] AS
   * groupByItems, <payload> AS payload}, where the payload holds each aggregate's partial as {@code
   * {"item": …}} (for {@code SELECT VALUE} the payload is that value). The SDK groups the rows of
   * all ranges by their items and combines the partials. TOP and OFFSET/LIMIT apply to the merged
   * groups, so the ranges' queries carry neither.
   */
  private static void groupBy(SqlQuery query, Map<String, JsonNode> parameters, ObjectNode info) {
    if (query.distinct()) {
      throw CosmosError.badRequest(
          "Across partitions the idemworker Cosmos DB emulator serves GROUP BY without DISTINCT;"
              + " set a partition key on the query for DISTINCT with GROUP BY.");
    }
    SqlQuery.Source src = query.source();
    var expressions = info.putArray("groupByExpressions");
    StringBuilder items = new StringBuilder("[");
    StringBuilder groupBy = new StringBuilder();
    for (SqlQuery.GroupBy g : query.groupBy()) {
      expressions.add(g.text());
      items
          .append(items.length() > 1 ? ", " : "")
          .append("{\"item\": ")
          .append(g.text())
          .append('}');
      groupBy.append(groupBy.length() > 0 ? ", " : "").append(g.text());
    }
    items.append(']');
    var aggregates = info.putArray("aggregates");
    String payload;
    if (query.value()) {
      SqlQuery.Projection p = query.projections().get(0);
      if (p.expression() instanceof SqlExpression.Aggregate a) {
        aggregates.add(operator(a.function()));
        payload = "{\"item\": " + partial(a, argumentText(p.text())) + "}";
      } else {
        payload = groupedExpression(p);
      }
    } else {
      ObjectNode types = info.putObject("groupByAliasToAggregateType");
      var aliases = info.putArray("groupByAliases");
      StringBuilder list = new StringBuilder("{");
      for (SqlQuery.Projection p : query.projections()) {
        aliases.add(p.name());
        list.append(list.length() > 1 ? ", " : "").append(quote(p.name())).append(": ");
        if (p.expression() instanceof SqlExpression.Aggregate a) {
          types.put(p.name(), operator(a.function()));
          aggregates.add(operator(a.function()));
          list.append("{\"item\": ").append(partial(a, argumentText(p.text()))).append('}');
        } else {
          types.putNull(p.name());
          list.append(groupedExpression(p));
        }
      }
      payload = list.append('}').toString();
    }
    query.top().ifPresent(t -> info.put("top", QueryEngine.count(t, parameters, "TOP")));
    if (query.limit().isPresent()) {
      info.put(
          "offset", query.offset().map(e -> QueryEngine.count(e, parameters, "OFFSET")).orElse(0L));
      info.put("limit", QueryEngine.count(query.limit().get(), parameters, "LIMIT"));
    }
    info.put(
        "rewrittenQuery",
        "SELECT "
            + items
            + " AS groupByItems, "
            + payload
            + " AS payload"
            + fromPart(src)
            + src.where().map(w -> " WHERE " + w).orElse("")
            + " GROUP BY "
            + groupBy);
  }

  /**
   * The text of a projection next to GROUP BY that is not itself an aggregate: it may hold none.
   */
  private static String groupedExpression(SqlQuery.Projection p) {
    if (AGGREGATE_CALL.matcher(p.text()).find()) {
      throw CosmosError.badRequest(
          "Across partitions the idemworker Cosmos DB emulator serves GROUP BY with projections"
              + " that are each an aggregate or free of aggregates, not '"
              + p.text()
              + "'; set a partition key on the query for other forms.");
    }
    return p.text();
  }

  /**
   * Whether equal DISTINCT rows arrive next to each other, so the SDK may de-duplicate them by
   * comparing each row with the one before ({@code Ordered}, which also lets it resume from a
   * continuation): the ORDER BY keys are exactly what is selected ({@code SELECT DISTINCT VALUE c.a
   * … ORDER BY c.a}, or a property list whose expressions are the sort keys). Otherwise {@code
   * Unordered}: the SDK keeps every row's hash, and refuses to resume such a query.
   */
  private static boolean orderedDistinct(SqlQuery query) {
    if (query.orderBy().isEmpty() || query.selectAll()) {
      return false;
    }
    java.util.Set<String> keys =
        query.orderBy().stream().map(o -> normalized(o.text())).collect(Collectors.toSet());
    java.util.Set<String> selected =
        query.projections().stream().map(p -> normalized(p.text())).collect(Collectors.toSet());
    return keys.equals(selected);
  }

  private static String normalized(String text) {
    return text.replaceAll("\\s+", "");
  }

  private static String orderByRewrite(SqlQuery query) {
    SqlQuery.Source src = query.source();
    String alias = query.alias();
    String items =
        query.orderBy().stream()
            .map(o -> "{\"item\": " + o.text() + "}")
            .collect(Collectors.joining(", ", "[", "]"));
    String payload;
    if (query.selectAll() && query.visibleAliases().size() == 1) {
      payload = query.visibleAliases().get(0);
    } else if (query.selectAll()) {
      payload =
          query.visibleAliases().stream()
              .map(a -> quote(a) + ": " + a)
              .collect(Collectors.joining(", ", "{", "}"));
    } else if (query.value()) {
      payload = query.projections().get(0).text();
    } else {
      payload =
          query.projections().stream()
              .map(p -> quote(p.name()) + ": " + p.text())
              .collect(Collectors.joining(", ", "{", "}"));
    }
    String top = query.top().isPresent() ? "TOP " + topText(query) + " " : "";
    String where =
        "(" + ORDER_BY_FILTER + ")" + src.where().map(w -> " AND (" + w + ")").orElse("");
    String keys =
        query.orderBy().stream()
            .map(o -> o.text() + (o.descending() ? " DESC" : " ASC"))
            .collect(Collectors.joining(", "));
    return "SELECT "
        + top
        + alias
        + "._rid, "
        + items
        + " AS orderByItems, "
        + payload
        + " AS payload"
        + fromPart(src)
        + " WHERE "
        + where
        + " ORDER BY "
        + keys;
  }

  private static String topText(SqlQuery query) {
    SqlExpression t = query.top().orElseThrow();
    return t instanceof SqlExpression.Parameter p
        ? p.name()
        : ((SqlExpression.Literal) t).value().asText();
  }

  /**
   * Whether the client reads a VALUE aggregate's partial result as a one-element array {@code
   * [{"item": …}]} rather than as the object {@code {"item": …}}. The JavaScript SDK (4.9.3) reads
   * {@code payload[0]}; the Java SDK (4.81.0) reads the object's {@code item}. They are told apart
   * by the query features they declare: only the JavaScript SDK declares {@code
   * ListAndSetAggregate}. The service's own rule is not known here.
   */
  private static boolean arrayPartials(String supportedFeatures) {
    return supportedFeatures != null && supportedFeatures.contains("ListAndSetAggregate");
  }

  private static String aggregateRewrite(SqlQuery query, boolean arrayPartials) {
    SqlExpression.Aggregate a = query.aggregates().get(0);
    boolean extreme =
        a.function() == SqlExpression.Aggregate.Function.MIN
            || a.function() == SqlExpression.Aggregate.Function.MAX;
    if (!query.value()
        || query.aggregates().size() != 1
        || query.projections().get(0).expression() != a
        || (query.distinct() && !extreme)) {
      throw CosmosError.badRequest(
          "Across partitions the idemworker Cosmos DB emulator serves aggregates as SELECT [TOP n]"
              + " VALUE COUNT|SUM|MIN|MAX|AVG(<expression>) FROM … [WHERE …] [OFFSET m LIMIT n]"
              + " (DISTINCT with MIN and MAX only); set a partition key on the query for other"
              + " forms.");
    }
    String partial = partial(a, argumentText(query.projections().get(0).text()));
    SqlQuery.Source src = query.source();
    String row = "{\"item\": " + partial + "}";
    return "SELECT VALUE "
        + (arrayPartials ? "[" + row + "]" : row)
        + fromPart(src)
        + src.where().map(w -> " WHERE " + w).orElse("");
  }

  /** {@code " FROM <clause>"}, or nothing for a query without FROM. */
  private static String fromPart(SqlQuery.Source src) {
    return src.from().isEmpty() ? "" : " FROM " + src.from();
  }

  /**
   * The sub-query of a distinct count, {@code SELECT VALUE COUNT(1) FROM (SELECT DISTINCT …) x} (or
   * {@code SELECT COUNT(1) AS n …}), with nothing else in the outer query.
   */
  private static Optional<SqlQuery> distinctCount(SqlQuery query) {
    if (query.aggregates().size() != 1
        || query.projections().size() != 1
        || query.projections().get(0).expression() != query.aggregates().get(0)
        || query.aggregates().get(0).function() != SqlExpression.Aggregate.Function.COUNT
        || !(query.aggregates().get(0).argument() instanceof SqlExpression.Literal)
        || query.where().isPresent()
        || query.top().isPresent()
        || query.limit().isPresent()
        || query.distinct()
        || query.from().isEmpty()
        || !query.from().get().joins().isEmpty()
        || !(query.from().get().root() instanceof SqlQuery.SubquerySource sub)
        || !sub.query().distinct()) {
      return Optional.empty();
    }
    return Optional.of(sub.query());
  }

  /** The partial result one range returns for aggregate {@code a} of {@code arg}. */
  private static String partial(SqlExpression.Aggregate a, String arg) {
    return switch (a.function()) {
      case COUNT -> "COUNT(" + arg + ")";
      case SUM -> "SUM(" + arg + ")";
      case MIN -> "{\"min\": MIN(" + arg + "), \"count\": COUNT(" + arg + ")}";
      case MAX -> "{\"max\": MAX(" + arg + "), \"count\": COUNT(" + arg + ")}";
      case AVG -> "{\"sum\": SUM(" + arg + "), \"count\": COUNT(" + arg + ")}";
    };
  }

  /**
   * Whether the query selects a list of lone aggregates ({@code SELECT MIN(c.a), COUNT(1) AS n FROM
   * c …}), without VALUE, DISTINCT, TOP or OFFSET.
   */
  private static boolean isAggregateList(SqlQuery query) {
    if (query.value()
        || query.selectAll()
        || query.distinct()
        || query.top().isPresent()
        || query.limit().isPresent()
        || query.aggregates().size() != query.projections().size()) {
      return false;
    }
    for (SqlQuery.Projection p : query.projections()) {
      if (!(p.expression() instanceof SqlExpression.Aggregate)) {
        return false;
      }
    }
    return true;
  }

  /** The text between the parentheses of {@code FN(arg)}. */
  private static String argumentText(String call) {
    return call.substring(call.indexOf('(') + 1, call.lastIndexOf(')')).trim();
  }

  private static String operator(SqlExpression.Aggregate.Function f) {
    return switch (f) {
      case COUNT -> "Count";
      case SUM -> "Sum";
      case MIN -> "Min";
      case MAX -> "Max";
      case AVG -> "Average";
    };
  }

  private static String quote(String name) {
    return "\"" + name.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  private static ObjectNode skeleton(SqlQuery query, ObjectMapper mapper) {
    ObjectNode n = mapper.createObjectNode();
    n.put("partitionedQueryExecutionInfoVersion", 2);
    ObjectNode info = n.putObject("queryInfo");
    info.put("distinctType", "None");
    info.putArray("orderBy");
    info.putArray("orderByExpressions");
    info.putArray("groupByExpressions");
    info.putArray("groupByAliases");
    info.putArray("aggregates");
    info.putObject("groupByAliasToAggregateType");
    info.put("rewrittenQuery", "");
    info.put("hasSelectValue", query.value());
    info.put("hasNonStreamingOrderBy", false);
    ObjectNode range = n.putArray("queryRanges").addObject();
    range.put("min", "");
    range.put("max", "FF");
    range.put("isMinInclusive", true);
    range.put("isMaxInclusive", false);
    return n;
  }
}
