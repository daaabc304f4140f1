package io.idemworker.emulator.cosmos;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Serves single-partition SQL queries in the subset {@link SqlParser} accepts, and the query-plan
 * handshake the Java SDK makes before every query. The plan always declares a query without
 * client-side work (no ORDER BY, TOP, OFFSET, aggregates or DISTINCT for the SDK to merge): with
 * one logical partition the emulator does all of it itself, so the SDK passes pages through. Paging
 * is by position in the result list ({@code x-ms-continuation: emu:<n>}); the query is evaluated
 * again for each page, so writes between pages can shift items across a page boundary. Stateless
 * and thread-safe.
 */
final class QueryEngine {
  static final int DEFAULT_PAGE_SIZE = 100;
  private static final String CONTINUATION_PREFIX = "emu:";

  private QueryEngine() {}

  /**
   * Answers a query-plan request ({@code x-ms-cosmos-is-query-plan-request: true}) or a query
   * ({@code x-ms-documentdb-isquery: true}) on {@code c}.
   *
   * @throws CosmosError 400 for a query outside the subset (naming what), a malformed body or
   *     continuation, or a query without a partition key (cross-partition)
   */
  static HttpReply serve(Container c, HttpRequest h, JsonNode body, ObjectMapper mapper) {
    QuerySpec spec = QuerySpec.from(body);
    SqlQuery query = SqlParser.parseQuery(spec.text());
    String pkHeader = h.getFirst("x-ms-documentdb-partitionkey");
    if (pkHeader == null || pkHeader.isBlank()) {
      throw CosmosError.badRequest(
          "Cross-partition queries are not supported by the idemworker Cosmos DB emulator: set a"
              + " partition key on the query (CosmosQueryRequestOptions.setPartitionKey).");
    }
    String pk = PartitionKeys.fromHeader(mapper, pkHeader, 1);
    if ("true".equalsIgnoreCase(h.getFirst("x-ms-cosmos-is-query-plan-request"))) {
      return plan(query, mapper);
    }
    return execute(c, h, query, spec.parameters(), pk, mapper);
  }

  private static HttpReply plan(SqlQuery query, ObjectMapper mapper) {
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
    return new HttpReply(200, bytes(mapper, n), RequestCharges.METADATA);
  }

  private static HttpReply execute(
      Container c,
      HttpRequest h,
      SqlQuery query,
      Map<String, JsonNode> parameters,
      String pk,
      ObjectMapper mapper) {
    List<JsonNode> results = evaluate(query, c.partitionItems(pk), parameters, mapper);
    int start = continuation(h.getFirst("x-ms-continuation"));
    int pageSize = pageSize(h.getFirst("x-ms-max-item-count"));
    int end = (int) Math.min(results.size(), (long) start + pageSize);
    ObjectNode out = mapper.createObjectNode();
    out.put("_rid", c.rid);
    ArrayNode docs = out.putArray("Documents");
    for (int i = Math.min(start, results.size()); i < end; i++) {
      docs.add(results.get(i));
    }
    out.put("_count", docs.size());
    byte[] json = bytes(mapper, out);
    HttpReply reply = new HttpReply(200, json, RequestCharges.query(json.length));
    reply.header("x-ms-item-count", Integer.toString(docs.size()));
    if (end < results.size()) {
      reply.header("x-ms-continuation", CONTINUATION_PREFIX + end);
    }
    return reply.withSession(c, c.lsn());
  }

  /** Runs {@code query} over {@code documents}: filter, sort, skip/take, then project. */
  static List<JsonNode> evaluate(
      SqlQuery query,
      List<StoredItem> documents,
      Map<String, JsonNode> parameters,
      ObjectMapper mapper) {
    List<JsonNode> matched = new ArrayList<>();
    for (StoredItem item : documents) {
      JsonNode doc;
      try {
        doc = mapper.readTree(item.json());
      } catch (IOException e) {
        throw new IllegalStateException("stored item is not JSON", e);
      }
      if (query.where().map(w -> w.matches(doc, parameters)).orElse(true)) {
        matched.add(doc);
      }
    }
    if (query.orderBy().isPresent()) {
      SqlQuery.OrderBy orderBy = query.orderBy().get();
      Comparator<JsonNode> byKey =
          Comparator.comparing(d -> orderBy.key().evaluate(d, parameters), SqlValues.ORDER_BY);
      matched.sort(orderBy.descending() ? byKey.reversed() : byKey);
    }
    long skip = query.offset().map(e -> count(e, parameters, "OFFSET")).orElse(0L);
    long take = query.limit().map(e -> count(e, parameters, "LIMIT")).orElse(Long.MAX_VALUE);
    take = Math.min(take, query.top().map(e -> count(e, parameters, "TOP")).orElse(Long.MAX_VALUE));
    List<JsonNode> out = new ArrayList<>();
    for (int i = (int) Math.min(skip, matched.size());
        i < matched.size() && out.size() < take;
        i++) {
      project(query, matched.get(i), parameters, mapper).ifPresent(out::add);
    }
    return out;
  }

  private static Optional<JsonNode> project(
      SqlQuery query, JsonNode doc, Map<String, JsonNode> parameters, ObjectMapper mapper) {
    if (query.selectAll()) {
      return Optional.of(doc);
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

  private static long count(SqlExpression e, Map<String, JsonNode> parameters, String clause) {
    // TOP/OFFSET/LIMIT are a literal or a parameter: they never read the document.
    JsonNode v = e.evaluate(SqlExpression.UNDEFINED, parameters);
    if (!v.isIntegralNumber() || v.longValue() < 0) {
      throw CosmosError.badRequest(
          clause + " needs a non-negative integer, got " + (v.isMissingNode() ? "undefined" : v));
    }
    return v.longValue();
  }

  private static int continuation(String header) {
    if (header == null || header.isBlank()) {
      return 0;
    }
    String text = header.trim();
    if (text.startsWith(CONTINUATION_PREFIX)) {
      try {
        int n = Integer.parseInt(text.substring(CONTINUATION_PREFIX.length()));
        if (n >= 0) {
          return n;
        }
      } catch (NumberFormatException e) {
        // fall through to the error below
      }
    }
    throw CosmosError.badRequest(
        "The continuation token '" + header + "' was not issued by this emulator for a query.");
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
