package io.idemworker.emulator.cosmos;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Serves SQL queries of items in the subset {@link SqlParser} accepts, and the query-plan handshake
 * the SDKs make first ({@link QueryPlanner}). A query runs over what its request scopes: one
 * logical partition (the partition key header), one partition key range (the range id header, as an
 * SDK sends each part of a cross-partition query) or, with neither, every item. Within that scope
 * the emulator filters, sorts (ties in the SDK's _rid order, see {@link #compare}), projects,
 * de-duplicates, skips and takes, or aggregates to one row, as the service does within one range.
 *
 * <p>Paging follows {@code x-ms-max-item-count} (default 100). The continuation ({@code
 * x-ms-continuation}, which the SDKs wrap in their own tokens) is a resume key for an ORDER BY
 * query ({@code emu:k:<sort keys and creation number of the last row>}), so that a resume filter
 * the SDK adds does not shift it, and a position ({@code emu:<n>}) otherwise. The query is
 * evaluated again for each page, so writes between pages can shift unsorted results across a page
 * boundary. Stateless and thread-safe.
 */
final class QueryEngine {
  static final int DEFAULT_PAGE_SIZE = 100;
  private static final String CONTINUATION_PREFIX = "emu:";
  private static final String KEY_PREFIX = "emu:k:";

  private QueryEngine() {}

  /**
   * Answers a query-plan request ({@code x-ms-cosmos-is-query-plan-request: true}) or a query
   * ({@code x-ms-documentdb-isquery: true}) on {@code c}.
   *
   * @throws CosmosError 400 for a query outside the subset (naming what), a malformed body, range
   *     or continuation
   */
  static HttpReply serve(Container c, HttpRequest h, JsonNode body, ObjectMapper mapper) {
    long started = System.nanoTime();
    QuerySpec spec = QuerySpec.from(body);
    SqlQuery query = SqlParser.parseQuery(spec.text());
    long parsed = System.nanoTime();
    String pkHeader = h.getFirst("x-ms-documentdb-partitionkey");
    Optional<String> pk =
        pkHeader == null || pkHeader.isBlank()
            ? Optional.empty()
            : Optional.of(PartitionKeys.fromHeader(mapper, pkHeader, 1));
    if ("true".equalsIgnoreCase(h.getFirst("x-ms-cosmos-is-query-plan-request"))) {
      ObjectNode plan =
          pk.isPresent()
              ? QueryPlanner.singlePartition(query, mapper)
              : QueryPlanner.crossPartition(
                  query,
                  spec.parameters(),
                  h.getFirst("x-ms-cosmos-supported-query-features"),
                  mapper);
      return new HttpReply(200, bytes(mapper, plan), RequestCharges.METADATA);
    }
    String rangeHeader = h.getFirst("x-ms-documentdb-partitionkeyrangeid");
    Optional<Integer> range =
        rangeHeader == null || rangeHeader.isBlank()
            ? Optional.empty()
            : Optional.of(c.ranges.parse(rangeHeader));
    long planned = System.nanoTime();
    List<StoredItem> items;
    if (!query.scansContainer()) {
      // It reads no document, so it yields the same rows on every range: the first range answers
      // for the container, the others yield nothing, and the SDK's merge has each row once.
      boolean first = range.map(r -> c.ranges.minInclusive(r).isEmpty()).orElse(true);
      items = List.of();
      if (!first) {
        query = emptyQuery(query);
      }
    } else if (pk.isPresent()) {
      items = c.partitionItems(pk.get());
    } else if (range.isPresent()) {
      int r = range.get();
      items = c.items(key -> c.ranges.rangeOf(key) == r);
    } else {
      if (needsMerging(query)) {
        // What the service's gateway answers: the client must fetch the plan and fan out. The
        // JavaScript SDK tries without a plan first and switches on this answer.
        throw CosmosError.badRequest(
            "Cross partition query only supports queries that need no merging by the client"
                + " without a partition key range: this one uses ORDER BY, GROUP BY, TOP,"
                + " OFFSET/LIMIT, DISTINCT or an aggregate; fetch its query plan and query each range.");
      }
      items = c.items(key -> true);
    }
    long loaded = System.nanoTime();
    List<Row> rows = evaluateRows(query, items, spec.parameters(), mapper);
    long evaluated = System.nanoTime();
    HttpReply reply = page(c, h, query, rows, mapper);
    if (QueryMetricsHeader.requested(h)) {
      QueryMetricsHeader metrics =
          new QueryMetricsHeader(
              parsed - started,
              planned - parsed,
              loaded - planned,
              evaluated - loaded,
              System.nanoTime() - evaluated,
              items.size(),
              QueryMetricsHeader.bytes(items),
              Integer.parseInt(reply.headers.get("x-ms-item-count")),
              reply.body.length);
      reply.header(QueryMetricsHeader.RESPONSE, metrics.value());
    }
    range.ifPresent(r -> reply.header("x-ms-documentdb-partitionkeyrangeid", Integer.toString(r)));
    return reply.withSession(c, c.lsn());
  }

  /** A query that yields no row: {@code query} with {@code TOP 0}. */
  private static SqlQuery emptyQuery(SqlQuery q) {
    return new SqlQuery(
        q.alias(),
        q.from(),
        Optional.of(
            new SqlExpression.Literal(com.fasterxml.jackson.databind.node.IntNode.valueOf(0))),
        q.distinct(),
        q.value(),
        q.selectAll(),
        q.projections(),
        q.where(),
        q.groupBy(),
        q.orderBy(),
        q.offset(),
        q.limit(),
        q.aggregates(),
        q.source());
  }

  private static boolean needsMerging(SqlQuery query) {
    return !query.orderBy().isEmpty()
        || !query.groupBy().isEmpty()
        || !query.aggregates().isEmpty()
        || query.distinct()
        || query.top().isPresent()
        || query.limit().isPresent();
  }

  private static HttpReply page(
      Container c, HttpRequest h, SqlQuery query, List<Row> rows, ObjectMapper mapper) {
    String continuation = h.getFirst("x-ms-continuation");
    int start = start(query, rows, continuation, mapper);
    int pageSize = pageSize(h.getFirst("x-ms-max-item-count"));
    int end = (int) Math.min(rows.size(), (long) start + pageSize);
    ObjectNode out = mapper.createObjectNode();
    out.put("_rid", c.rid);
    ArrayNode docs = out.putArray("Documents");
    for (int i = Math.min(start, rows.size()); i < end; i++) {
      docs.add(rows.get(i).value());
    }
    out.put("_count", docs.size());
    byte[] json = bytes(mapper, out);
    HttpReply reply = new HttpReply(200, json, RequestCharges.query(json.length));
    reply.header("x-ms-item-count", Integer.toString(docs.size()));
    if (end < rows.size()) {
      Row last = rows.get(end - 1);
      reply.header(
          "x-ms-continuation",
          last.keys().isEmpty() ? CONTINUATION_PREFIX + end : KEY_PREFIX + resumeKey(last, mapper));
    }
    return reply;
  }

  /** Runs {@code query} over {@code documents}; the values of its result rows. */
  static List<JsonNode> evaluate(
      SqlQuery query,
      List<StoredItem> documents,
      Map<String, JsonNode> parameters,
      ObjectMapper mapper) {
    return evaluateRows(query, documents, parameters, mapper).stream().map(Row::value).toList();
  }

  /**
   * One result row: its value, its ORDER BY keys (empty without ORDER BY) and the creation number
   * of its document, which breaks ties.
   */
  private record Row(JsonNode value, List<JsonNode> keys, long number) {}

  /**
   * A row before projection: its bindings (an object from alias to value; for the container's
   * documents before binding, the document itself), its ORDER BY keys and the creation number of
   * its document.
   */
  private record Matched(JsonNode doc, List<JsonNode> keys, long number) {}

  private static final ObjectMapper PLAIN = new ObjectMapper();

  /**
   * The rows of a sub-query in an expression ({@code EXISTS}, {@code ARRAY}, a scalar sub-query),
   * run with the bindings of the row it is evaluated for; it reads no container.
   */
  static List<JsonNode> subquery(SqlQuery query, JsonNode bindings, Map<String, JsonNode> params) {
    ObjectNode outer = bindings instanceof ObjectNode o ? o : PLAIN.createObjectNode();
    return run(query, outer, List.of(), params, PLAIN).stream().map(Row::value).toList();
  }

  /**
   * Runs {@code query} over resources that are not items (databases, containers, offers), in the
   * order given; the values of its result rows.
   */
  static List<JsonNode> evaluateResources(
      SqlQuery query,
      List<JsonNode> resources,
      Map<String, JsonNode> parameters,
      ObjectMapper mapper) {
    List<Matched> docs = new ArrayList<>();
    for (int i = 0; i < resources.size(); i++) {
      docs.add(new Matched(resources.get(i), List.of(), i));
    }
    return run(query, mapper.createObjectNode(), docs, parameters, mapper).stream()
        .map(Row::value)
        .toList();
  }

  private static List<Row> evaluateRows(
      SqlQuery query,
      List<StoredItem> documents,
      Map<String, JsonNode> parameters,
      ObjectMapper mapper) {
    List<Matched> docs = new ArrayList<>();
    for (StoredItem item : documents) {
      try {
        docs.add(
            new Matched(mapper.readTree(item.json()), List.of(), Rids.documentNumber(item.rid())));
      } catch (IOException e) {
        throw new IllegalStateException("stored item is not JSON", e);
      }
    }
    return run(query, mapper.createObjectNode(), docs, parameters, mapper);
  }

  /**
   * Each row of the query's FROM: the outer bindings plus, for the root source and then each join,
   * one value per alias (a join repeats the row for each of its values); a query without FROM has
   * one row, the outer bindings.
   */
  private static List<Matched> bindings(
      SqlQuery query,
      ObjectNode outer,
      List<Matched> container,
      Map<String, JsonNode> parameters,
      ObjectMapper mapper) {
    if (query.from().isEmpty()) {
      return List.of(new Matched(outer, List.of(), 0));
    }
    SqlQuery.From from = query.from().get();
    List<Matched> rows = new ArrayList<>();
    SqlQuery.FromItem root = from.root();
    if (root instanceof SqlQuery.ContainerSource) {
      for (Matched d : container) {
        rows.add(new Matched(bind(outer, root.alias(), d.doc()), List.of(), d.number()));
      }
    } else {
      Matched only = new Matched(outer, List.of(), 0);
      for (JsonNode v : values(root, outer, container, parameters, mapper)) {
        rows.add(new Matched(bind(outer, root.alias(), v), List.of(), only.number()));
      }
    }
    for (SqlQuery.FromItem join : from.joins()) {
      List<Matched> joined = new ArrayList<>();
      for (Matched m : rows) {
        ObjectNode env = (ObjectNode) m.doc();
        for (JsonNode v : values(join, env, List.of(), parameters, mapper)) {
          joined.add(new Matched(bind(env, join.alias(), v), List.of(), m.number()));
        }
      }
      rows = joined;
    }
    return rows;
  }

  /** The values a non-container source gives its alias under {@code env}. */
  private static List<JsonNode> values(
      SqlQuery.FromItem source,
      ObjectNode env,
      List<Matched> container,
      Map<String, JsonNode> parameters,
      ObjectMapper mapper) {
    if (source instanceof SqlQuery.InSource in) {
      JsonNode collection = in.collection().evaluate(env, parameters);
      List<JsonNode> out = new ArrayList<>();
      if (collection.isArray()) {
        collection.forEach(out::add);
      }
      return out;
    }
    SqlQuery sub = ((SqlQuery.SubquerySource) source).query();
    return run(sub, env, container, parameters, mapper).stream().map(Row::value).toList();
  }

  private static ObjectNode bind(ObjectNode outer, String alias, JsonNode value) {
    ObjectNode env = outer.objectNode();
    env.setAll(outer);
    env.set(alias, value);
    return env;
  }

  /**
   * Runs {@code query} with the outer bindings {@code outer} over {@code container}, the documents
   * its container source reads (each as {@link Matched} with the bare document).
   */
  private static List<Row> run(
      SqlQuery query,
      ObjectNode outer,
      List<Matched> container,
      Map<String, JsonNode> parameters,
      ObjectMapper mapper) {
    List<Matched> matched = new ArrayList<>();
    for (Matched d : bindings(query, outer, container, parameters, mapper)) {
      JsonNode doc = d.doc();
      if (query.where().map(w -> w.matches(doc, parameters)).orElse(true)) {
        List<JsonNode> keys = new ArrayList<>();
        for (SqlQuery.OrderBy o : query.orderBy()) {
          keys.add(o.key().evaluate(doc, parameters));
        }
        matched.add(new Matched(doc, keys, d.number()));
      }
    }
    if (!query.groupBy().isEmpty()) {
      return window(query, parameters, groups(query, matched, parameters, mapper));
    }
    if (!query.aggregates().isEmpty()) {
      // The aggregate row is the result set that TOP / OFFSET … LIMIT then apply to (TOP 0 → none).
      return window(query, parameters, aggregate(query, outer, matched, parameters, mapper));
    }
    matched.sort((a, b) -> compare(query, a.keys(), a.number(), b.keys(), b.number()));
    List<Row> rows = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (Matched m : matched) {
      Optional<JsonNode> v = project(query, m.doc(), parameters, mapper);
      if (v.isPresent() && (!query.distinct() || seen.add(SqlValues.distinctKey(v.get())))) {
        // A DISTINCT row stands for all its equal values, so it is written in the one number form
        // the service writes (5.0 as 5), whichever of them came first.
        JsonNode value = query.distinct() ? SqlValues.wholeNumbersAsIntegers(v.get()) : v.get();
        rows.add(new Row(value, m.keys(), m.number()));
      }
    }
    return window(query, parameters, rows);
  }

  /** The rows {@code OFFSET}, {@code LIMIT} and {@code TOP} keep. */
  private static List<Row> window(
      SqlQuery query, Map<String, JsonNode> parameters, List<Row> rows) {
    long skip = query.offset().map(e -> count(e, parameters, "OFFSET")).orElse(0L);
    long take = query.limit().map(e -> count(e, parameters, "LIMIT")).orElse(Long.MAX_VALUE);
    take = Math.min(take, query.top().map(e -> count(e, parameters, "TOP")).orElse(Long.MAX_VALUE));
    int from = (int) Math.min(skip, rows.size());
    int to = (int) Math.min(rows.size(), from + Math.min(take, rows.size()));
    return rows.subList(from, to);
  }

  private static int compare(
      SqlQuery query, List<JsonNode> aKeys, long aNumber, List<JsonNode> bKeys, long bNumber) {
    for (int i = 0; i < query.orderBy().size(); i++) {
      int c = SqlValues.ORDER_BY.compare(aKeys.get(i), bKeys.get(i));
      if (c != 0) {
        return query.orderBy().get(i).descending() ? -c : c;
      }
    }
    if (query.orderBy().isEmpty()) {
      return Long.compare(aNumber, bNumber);
    }
    // Ties go in the order of the document part of the _rid as the SDK reads it (the bytes taken
    // little-endian), in the direction of the first ORDER BY item: when it resumes an ORDER BY
    // query across ranges, the SDK drops the rows of the resumed range that come before its token
    // in that order, so any other tie order would lose or repeat rows.
    int t = Long.compare(Rids.sdkDocumentOrder(aNumber), Rids.sdkDocumentOrder(bNumber));
    return query.orderBy().get(0).descending() ? -t : t;
  }

  /**
   * One row per group of {@code matched} with equal GROUP BY values (undefined is a value of its
   * own), in the order of each group's first document; aggregates are taken over the group, other
   * expressions on its first document. DISTINCT then drops equal rows.
   */
  private static List<Row> groups(
      SqlQuery query,
      List<Matched> matched,
      Map<String, JsonNode> parameters,
      ObjectMapper mapper) {
    matched.sort((a, b) -> Long.compare(a.number(), b.number()));
    Map<String, List<Matched>> groups = new LinkedHashMap<>();
    for (Matched m : matched) {
      ArrayNode key = mapper.createArrayNode();
      for (SqlQuery.GroupBy g : query.groupBy()) {
        JsonNode v = g.key().evaluate(m.doc(), parameters);
        // Undefined has no JSON form: an empty array stands for it (a value is wrapped in one).
        key.add(v.isMissingNode() ? mapper.createArrayNode() : mapper.createArrayNode().add(v));
      }
      groups.computeIfAbsent(SqlValues.distinctKey(key), k -> new ArrayList<>()).add(m);
    }
    List<Row> rows = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (List<Matched> group : groups.values()) {
      Map<String, JsonNode> bound = bind(query, group, parameters);
      Matched first = group.get(0);
      Optional<JsonNode> v = project(query, first.doc(), bound, mapper);
      if (v.isPresent() && (!query.distinct() || seen.add(SqlValues.distinctKey(v.get())))) {
        rows.add(new Row(v.get(), List.of(), first.number()));
      }
    }
    return rows;
  }

  /** {@code parameters} plus the value of each aggregate of {@code query} over {@code matched}. */
  private static Map<String, JsonNode> bind(
      SqlQuery query, List<Matched> matched, Map<String, JsonNode> parameters) {
    Map<String, JsonNode> bound = new HashMap<>(parameters);
    for (SqlExpression.Aggregate a : query.aggregates()) {
      List<JsonNode> values = new ArrayList<>();
      for (Matched m : matched) {
        JsonNode v = a.argument().evaluate(m.doc(), parameters);
        if (!v.isMissingNode()) {
          values.add(v);
        }
      }
      bound.put(a.slot(), Aggregates.apply(a.function(), values));
    }
    return bound;
  }

  private static List<Row> aggregate(
      SqlQuery query,
      ObjectNode outer,
      List<Matched> matched,
      Map<String, JsonNode> parameters,
      ObjectMapper mapper) {
    return project(query, outer, bind(query, matched, parameters), mapper)
        .map(v -> List.of(new Row(v, List.of(), 0)))
        .orElse(List.of());
  }

  private static Optional<JsonNode> project(
      SqlQuery query, JsonNode doc, Map<String, JsonNode> parameters, ObjectMapper mapper) {
    if (query.selectAll()) {
      List<String> aliases = query.visibleAliases();
      if (aliases.size() == 1) {
        JsonNode v = doc.path(aliases.get(0));
        return v.isMissingNode() ? Optional.empty() : Optional.of(v);
      }
      // With JOINs, SELECT * is an object of every alias of the FROM clause.
      ObjectNode row = mapper.createObjectNode();
      for (String alias : aliases) {
        JsonNode v = doc.path(alias);
        if (!v.isMissingNode()) {
          row.set(alias, v);
        }
      }
      return Optional.of(row);
    }
    if (query.value()) {
      JsonNode v = query.projections().get(0).expression().evaluate(doc, parameters);
      return v.isMissingNode() ? Optional.empty() : Optional.of(v);
    }
    ObjectNode row = mapper.createObjectNode();
    for (SqlQuery.Projection p : query.projections()) {
      JsonNode v = p.expression().evaluate(doc, parameters);
      if (!v.isMissingNode()) {
        row.set(p.name(), v);
      }
    }
    return Optional.of(row);
  }

  static long count(SqlExpression e, Map<String, JsonNode> parameters, String clause) {
    // TOP/OFFSET/LIMIT are a literal or a parameter: they never read the document.
    JsonNode v = e.evaluate(SqlExpression.UNDEFINED, parameters);
    if (!v.isIntegralNumber() || v.longValue() < 0) {
      throw CosmosError.badRequest(
          clause + " needs a non-negative integer, got " + (v.isMissingNode() ? "undefined" : v));
    }
    return v.longValue();
  }

  private static String resumeKey(Row last, ObjectMapper mapper) {
    ArrayNode key = mapper.createArrayNode();
    for (JsonNode k : last.keys()) {
      // Undefined has no JSON form: it is written as an empty object marker.
      key.add(k.isMissingNode() ? mapper.createObjectNode().put("undefined", true) : k);
    }
    key.add(last.number());
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes(mapper, key));
  }

  private static int start(SqlQuery query, List<Row> rows, String header, ObjectMapper mapper) {
    if (header == null || header.isBlank()) {
      return 0;
    }
    String text = header.trim();
    try {
      if (text.startsWith(KEY_PREFIX)) {
        JsonNode key =
            mapper.readTree(Base64.getUrlDecoder().decode(text.substring(KEY_PREFIX.length())));
        if (key.isArray() && key.size() >= 1 && key.get(key.size() - 1).canConvertToLong()) {
          List<JsonNode> keys = new ArrayList<>();
          for (int i = 0; i < key.size() - 1; i++) {
            JsonNode k = key.get(i);
            keys.add(k.path("undefined").asBoolean(false) ? SqlExpression.UNDEFINED : k);
          }
          long number = key.get(key.size() - 1).longValue();
          return firstAfter(query, rows, keys, number);
        }
      } else if (text.startsWith(CONTINUATION_PREFIX)) {
        int n = Integer.parseInt(text.substring(CONTINUATION_PREFIX.length()));
        if (n >= 0) {
          return n;
        }
      }
    } catch (IOException | IllegalArgumentException e) {
      // fall through to the error below
    }
    throw CosmosError.badRequest(
        "The continuation token '" + header + "' was not issued by this emulator for a query.");
  }

  private static int firstAfter(SqlQuery query, List<Row> rows, List<JsonNode> keys, long number) {
    for (int i = 0; i < rows.size(); i++) {
      Row r = rows.get(i);
      if (r.keys().size() != keys.size()) {
        throw CosmosError.badRequest("The continuation token does not belong to this query.");
      }
      if (compare(query, r.keys(), r.number(), keys, number) > 0) {
        return i;
      }
    }
    return rows.size();
  }

  private static int pageSize(String header) {
    if (header == null || header.isBlank()) {
      return DEFAULT_PAGE_SIZE;
    }
    try {
      int size = Integer.parseInt(header.trim());
      return size <= 0 ? DEFAULT_PAGE_SIZE : size;
    } catch (NumberFormatException e) {
      throw CosmosError.badRequest("x-ms-max-item-count '" + header + "' is not a number.");
    }
  }

  private static byte[] bytes(ObjectMapper mapper, JsonNode node) {
    try {
      return mapper.writeValueAsBytes(node);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The request body {@code {"query":"…","parameters":[{"name":"@x","value":…}]}}. */
  record QuerySpec(String text, Map<String, JsonNode> parameters) {
    QuerySpec {
      parameters = Map.copyOf(parameters);
    }

    static QuerySpec from(JsonNode body) {
      JsonNode text = body.get("query");
      if (text == null || !text.isTextual() || text.textValue().isBlank()) {
        throw CosmosError.badRequest("A query body needs a 'query' string.");
      }
      Map<String, JsonNode> parameters = new HashMap<>();
      JsonNode params = body.get("parameters");
      if (params != null && !params.isNull()) {
        if (!params.isArray()) {
          throw CosmosError.badRequest("Query 'parameters' must be an array of {name, value}.");
        }
        for (JsonNode p : params) {
          JsonNode name = p.get("name");
          if (name == null || !name.isTextual() || !name.textValue().startsWith("@")) {
            throw CosmosError.badRequest(
                "Each query parameter needs a 'name' starting with '@', got " + p + ".");
          }
          JsonNode value = p.get("value");
          parameters.put(name.textValue(), value == null ? SqlExpression.UNDEFINED : value);
        }
      }
      return new QuerySpec(text.textValue(), parameters);
    }
  }
}
