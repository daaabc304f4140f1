package io.idemworker.emulator.cosmos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * Serves the metadata resources: the database account ({@code GET /}), databases and containers
 * (create, read, list, delete; container replace), and a container's one partition key range
 * ({@code pkranges}, 304 on a matching {@code If-None-Match}). Every answer is charged as metadata
 * and carries the resource's etag where the service sends one.
 *
 * <p>Thread-safe: it keeps no state of its own; creating and deleting are as atomic as {@link
 * Store} makes them. Failures are {@link CosmosError}s (400 for a bad body, 404 for an unknown
 * resource, 409 for an existing one).
 */
final class MetadataHandler {
  private final Store store;
  private final JsonBodies json;
  private final Supplier<String> endpoint;

  MetadataHandler(Store store, JsonBodies json, Supplier<String> endpoint) {
    this.store = store;
    this.json = json;
    this.endpoint = endpoint;
  }

  HttpReply account() {
    return json.reply(200, accountJson());
  }

  HttpReply createDatabase(HttpRequest h, byte[] body) {
    Database db = store.createDatabase(json.parseObject(body));
    store.offers.createFor(h, db.rid, "dbs/" + db.rid + "/");
    return json.reply(201, store.databaseJson(db)).header("etag", db.etag);
  }

  HttpReply databases() {
    ObjectNode n = json.mapper().createObjectNode();
    n.put("_rid", "");
    ArrayNode arr = n.putArray("Databases");
    store.databases().forEach(db -> arr.add(store.databaseJson(db)));
    n.put("_count", arr.size());
    return json.reply(200, n);
  }

  HttpReply database(Database db) {
    return json.reply(200, store.databaseJson(db)).header("etag", db.etag);
  }

  HttpReply deleteDatabase(Database db) {
    store.deleteDatabase(db);
    return new HttpReply(204, null, RequestCharges.METADATA);
  }

  HttpReply createContainer(Database db, HttpRequest h, byte[] body) {
    Container c = store.createContainer(db, json.parseObject(body), store.rangesFor(h));
    store.offers.createFor(h, c.rid, "dbs/" + db.rid + "/colls/" + c.rid + "/");
    return containerReply(201, c);
  }

  /** {@code POST /dbs} as a query: the databases the query selects. */
  HttpReply queryDatabases(byte[] body) {
    List<JsonNode> all = new ArrayList<>();
    store.databases().forEach(db -> all.add(store.databaseJson(db)));
    return feed("", "Databases", query(all, body));
  }

  /** {@code POST /dbs/{db}/colls} as a query: the containers the query selects. */
  HttpReply queryContainers(Database db, byte[] body) {
    List<JsonNode> all = new ArrayList<>();
    db.containersByName.values().forEach(c -> all.add(c.properties()));
    return feed(db.rid, "DocumentCollections", query(all, body));
  }

  /** A feed of no resources, named {@code name} as the service names that resource type's feed. */
  HttpReply emptyFeed(String rid, String name) {
    return feed(rid, name, List.of());
  }

  /** {@code GET /offers}: every offer. */
  HttpReply offers() {
    return feed("", "Offers", store.offers.all());
  }

  /** {@code POST /offers} as a query. */
  HttpReply queryOffers(byte[] body) {
    return feed("", "Offers", query(store.offers.all(), body));
  }

  HttpReply offer(String rid) {
    return offerReply(store.offers.read(rid));
  }

  HttpReply replaceOffer(String rid, byte[] body) {
    return offerReply(store.offers.replace(rid, json.parseObject(body)));
  }

  private HttpReply offerReply(ObjectNode offer) {
    return json.reply(200, offer)
        .header("etag", offer.path("_etag").asText())
        .header("x-ms-cosmos-min-throughput", Integer.toString(Offers.MIN_THROUGHPUT))
        .header("x-ms-offer-replace-pending", "false");
  }

  private List<JsonNode> query(List<JsonNode> resources, byte[] body) {
    QueryEngine.QuerySpec spec = QueryEngine.QuerySpec.from(json.parse(body));
    SqlQuery query = SqlParser.parseQuery(spec.text());
    return QueryEngine.evaluateResources(query, resources, spec.parameters(), json.mapper());
  }

  private HttpReply feed(String rid, String name, List<JsonNode> resources) {
    ObjectNode n = json.mapper().createObjectNode();
    n.put("_rid", rid);
    ArrayNode arr = n.putArray(name);
    resources.forEach(arr::add);
    n.put("_count", arr.size());
    return json.reply(200, n).header("x-ms-item-count", Integer.toString(arr.size()));
  }

  HttpReply containers(Database db) {
    ObjectNode n = json.mapper().createObjectNode();
    n.put("_rid", db.rid);
    ArrayNode arr = n.putArray("DocumentCollections");
    db.containersByName.values().forEach(c -> arr.add(c.properties()));
    n.put("_count", arr.size());
    return json.reply(200, n);
  }

  HttpReply container(Container c) {
    return containerReply(200, c);
  }

  HttpReply replaceContainer(Container c, byte[] body) {
    return containerReply(200, store.replaceContainer(c, json.parseObject(body)));
  }

  HttpReply deleteContainer(Container c) {
    store.deleteContainer(c);
    return new HttpReply(204, null, RequestCharges.METADATA);
  }

  private HttpReply containerReply(int status, Container c) {
    ObjectNode props = c.properties();
    return json.reply(status, props)
        .header("etag", props.path("_etag").asText())
        .header("x-ms-alt-content-path", "dbs/" + c.database.id)
        .header("x-ms-content-path", c.database.rid);
  }

  /** The container's partition key ranges, together covering {@code ""} to {@code FF}. */
  HttpReply partitionKeyRanges(Container c, HttpRequest h) {
    String etag = "\"" + c.rid + "-" + c.ranges.count() + "\"";
    if (etag.equals(h.getFirst("If-None-Match"))) {
      return new HttpReply(304, null, RequestCharges.METADATA).header("etag", etag);
    }
    ObjectNode n = json.mapper().createObjectNode();
    n.put("_rid", c.rid);
    c.ranges.writeTo(n.putArray("PartitionKeyRanges"), c);
    n.put("_count", c.ranges.count());
    return json.reply(200, n).header("etag", etag);
  }

  private ObjectNode accountJson() {
    String ep = endpoint.get();
    ObjectNode n = json.mapper().createObjectNode();
    n.put("_self", "");
    n.put("id", "localhost");
    n.put("_rid", "localhost");
    n.put("media", "//media/");
    n.put("addresses", "//addresses/");
    n.put("_dbs", "//dbs/");
    for (String field : List.of("writableLocations", "readableLocations")) {
      ObjectNode loc = n.putArray(field).addObject();
      loc.put("name", "South Central US");
      loc.put("databaseAccountEndpoint", ep);
    }
    n.put("enableMultipleWriteLocations", false);
    ObjectNode urp = n.putObject("userReplicationPolicy");
    urp.put("asyncReplication", false);
    urp.put("minReplicaSetSize", 1);
    urp.put("maxReplicasetSize", 4);
    n.putObject("userConsistencyPolicy").put("defaultConsistencyLevel", "Session");
    ObjectNode srp = n.putObject("systemReplicationPolicy");
    srp.put("minReplicaSetSize", 1);
    srp.put("maxReplicasetSize", 4);
    ObjectNode rp = n.putObject("readPolicy");
    rp.put("primaryReadCoefficient", 1);
    rp.put("secondaryReadCoefficient", 1);
    n.put(
        "queryEngineConfiguration",
        "{\"maxSqlQueryInputLength\":262144,\"maxJoinsPerSqlQuery\":5,"
            + "\"maxLogicalAndPerSqlQuery\":500,\"maxLogicalOrPerSqlQuery\":500,"
            + "\"maxUdfRefPerSqlQuery\":10,\"maxInExpressionItemsCount\":16000,"
            + "\"queryMaxInMemorySortDocumentCount\":500,\"maxQueryRequestTimeoutFraction\":0.9,"
            + "\"sqlAllowNonFiniteNumbers\":false,\"sqlAllowAggregateFunctions\":true,"
            + "\"sqlAllowSubQuery\":true,\"sqlAllowScalarSubQuery\":true,\"allowNewKeywords\":true,"
            + "\"sqlAllowLike\":true,\"sqlAllowGroupByClause\":true,"
            + "\"maxSpatialQueryCells\":12,\"spatialMaxGeometryPointCount\":256,"
            + "\"sqlDisableOptimizationFlags\":0,\"sqlAllowTop\":true,"
            + "\"enableSpatialIndexing\":true}");
    return n;
  }
}
