package io.idemworker.emulator.cosmos;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.emulator.Latencies;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves the Cosmos DB gateway REST API over the {@link Store}. Every request is counted, then
 * authorised, then meets the injected faults, then is served, and its answer is held until the
 * injected latency has passed since it arrived; any failure becomes an error answer in the
 * service's shape, and no input can stop the server.
 */
final class CosmosHandler implements Function<HttpRequest, HttpReply> {
  private static final Logger LOG = LoggerFactory.getLogger(CosmosHandler.class);
  static final int MAX_DOCUMENT_BYTES = 2 * 1024 * 1024;
  static final int MAX_BATCH_OPERATIONS = 100;
  static final int MAX_BODY_BYTES = 4 * 1024 * 1024;
  private static final Set<String> UNIMPLEMENTED_CHILDREN =
      Set.of(
          "sprocs",
          "udfs",
          "triggers",
          "conflicts",
          "users",
          "permissions",
          "udts",
          "offers",
          "clientencryptionkeys",
          "attachments",
          "schemas",
          "partitionedsystemdocuments");

  private final Store store;
  private final MasterKeyAuth auth;
  private final Faults faults;
  private final RequestStats stats;
  private final ObjectMapper mapper;
  private final Supplier<String> endpoint;

  CosmosHandler(
      Store store,
      MasterKeyAuth auth,
      Faults faults,
      RequestStats stats,
      ObjectMapper mapper,
      Supplier<String> endpoint) {
    this.store = store;
    this.auth = auth;
    this.faults = faults;
    this.stats = stats;
    this.mapper = mapper;
    this.endpoint = endpoint;
  }

  @Override
  public HttpReply apply(HttpRequest request) {
    Duration latency = Duration.ZERO;
    HttpReply reply;
    try {
      List<String> segs = segments(request.rawPath());
      Operation op = admit(request, segs);
      Faults.Outcome outcome = faults.onRequest(op);
      latency = outcome.latency();
      reply =
          outcome.failure().isPresent()
              ? faultReply(outcome.failure().get(), op)
              : route(request.method(), segs, request, request.body());
    } catch (CosmosError e) {
      reply = error(e);
    } catch (RuntimeException e) {
      LOG.warn("emulator failed on {} {}", request.method(), request.rawPath(), e);
      // The exception goes to the log only: its text is no business of the client's.
      reply = error(new CosmosError(500, "The emulator failed on this request; see its log."));
    }
    holdUntil(request.arrivedNanos(), latency);
    return finish(request, reply);
  }

  /** Counts and authorises the request; what it is, for the faults to match. */
  private Operation admit(HttpRequest request, List<String> segs) {
    String method = request.method();
    Operation op = classify(method, segs, request);
    stats.record(op);
    authorize(method, segs, request);
    return op;
  }

  static Operation classify(String method, List<String> segs, HttpRequest h) {
    int n = segs.size();
    boolean dbsColls =
        n >= 1 && segs.get(0).equals("dbs") && (n < 3 || segs.get(2).equals("colls"));
    if (n == 0 || (dbsColls && n <= 4)) {
      return isQuery(h) ? Operation.UNSUPPORTED : Operation.METADATA;
    }
    if (!dbsColls) {
      return Operation.UNSUPPORTED;
    }
    String child = segs.get(4);
    if (n == 5 && child.equals("pkranges")) {
      return Operation.METADATA;
    }
    if (!child.equals("docs")) {
      return Operation.UNSUPPORTED;
    }
    if (n == 5 && method.equals("GET") && h.getFirst("A-IM") != null) {
      return Operation.CHANGE_FEED;
    }
    if (n == 5 && method.equals("POST")) {
      if (isTrue(h, "x-ms-cosmos-is-batch-request")) {
        return Operation.BATCH;
      }
      if (isQuery(h)) {
        return Operation.QUERY;
      }
      return isTrue(h, "x-ms-documentdb-is-upsert") ? Operation.UPSERT : Operation.CREATE;
    }
    if (n == 6) {
      return switch (method) {
        case "GET" -> Operation.READ;
        case "PUT" -> Operation.REPLACE;
        case "DELETE" -> Operation.DELETE;
        case "PATCH" -> Operation.PATCH;
        default -> Operation.UNSUPPORTED;
      };
    }
    return Operation.UNSUPPORTED;
  }

  private HttpReply route(String method, List<String> segs, HttpRequest h, byte[] body) {
    int n = segs.size();
    if (n == 0) {
      requireMethod(method, "GET");
      return json(200, account());
    }
    if (!segs.get(0).equals("dbs")) {
      throw unknownPath(segs);
    }
    if (isQuery(h) && !(n == 5 && segs.get(4).equals("docs") && method.equals("POST"))) {
      throw CosmosError.notImplemented("Querying");
    }
    if (n == 1) {
      return switch (method) {
        case "POST" -> {
          Database db = store.createDatabase(parseObject(body));
          yield json(201, store.databaseJson(db)).header("etag", db.etag);
        }
        case "GET" -> json(200, databaseFeed());
        default -> throw methodNotAllowed(method);
      };
    }
    Database db = store.database(segs.get(1));
    if (n == 2) {
      return switch (method) {
        case "GET" -> json(200, store.databaseJson(db)).header("etag", db.etag);
        case "DELETE" -> {
          store.deleteDatabase(db);
          yield new HttpReply(204, null, RequestCharges.METADATA);
        }
        default -> throw methodNotAllowed(method);
      };
    }
    if (!segs.get(2).equals("colls")) {
      throw UNIMPLEMENTED_CHILDREN.contains(segs.get(2))
          ? CosmosError.notImplemented("The resource type '" + segs.get(2) + "'")
          : unknownPath(segs);
    }
    if (n == 3) {
      return switch (method) {
        case "POST" -> containerReply(201, store.createContainer(db, parseObject(body)));
        case "GET" -> json(200, containerFeed(db));
        default -> throw methodNotAllowed(method);
      };
    }
    Container c = store.container(db, segs.get(3));
    boolean byRid = !c.id.equals(segs.get(3));
    if (n == 4) {
      return switch (method) {
        case "GET" -> containerReply(200, c);
        case "PUT" -> containerReply(200, store.replaceContainer(c, parseObject(body)));
        case "DELETE" -> {
          store.deleteContainer(c);
          yield new HttpReply(204, null, RequestCharges.METADATA);
        }
        default -> throw methodNotAllowed(method);
      };
    }
    String child = segs.get(4);
    if (child.equals("pkranges") && n == 5) {
      requireMethod(method, "GET");
      return partitionKeyRanges(c, h);
    }
    if (!child.equals("docs")) {
      throw UNIMPLEMENTED_CHILDREN.contains(child)
          ? CosmosError.notImplemented("The resource type '" + child + "'")
          : unknownPath(segs);
    }
    if (n == 5) {
      return switch (method) {
        case "POST" -> {
          if (isQuery(h)) {
            yield QueryEngine.serve(c, h, parse(body), mapper);
          }
          if (isTrue(h, "x-ms-cosmos-is-batch-request")) {
            yield batch(c, h, body);
          }
          boolean upsert = isTrue(h, "x-ms-documentdb-is-upsert");
          yield writeItem(c, h, body, upsert ? Container.Kind.UPSERT : Container.Kind.CREATE, null);
        }
        case "GET" -> {
          if (h.getFirst("A-IM") != null) {
            yield ChangeFeed.read(c, h, mapper);
          }
          throw CosmosError.notImplemented("Reading the feed of items");
        }
        default -> throw methodNotAllowed(method);
      };
    }
    if (n == 6) {
      String itemId = segs.get(5);
      return switch (method) {
        case "GET" -> readItem(c, h, itemId, byRid);
        case "PUT" -> writeItem(c, h, body, Container.Kind.REPLACE, resolveId(c, itemId, byRid));
        case "DELETE" -> deleteItem(c, h, itemId, byRid);
        case "PATCH" ->
            single(
                c,
                PartitionKeys.fromHeader(mapper, h.getFirst("x-ms-documentdb-partitionkey"), 1),
                Container.ItemOp.patch(
                    resolveId(c, itemId, byRid),
                    ItemPatch.parse(parse(body)),
                    h.getFirst("If-Match")),
                minimal(h));
        default -> throw methodNotAllowed(method);
      };
    }
    throw n == 8 && UNIMPLEMENTED_CHILDREN.contains(segs.get(6))
        ? CosmosError.notImplemented("The resource type '" + segs.get(6) + "'")
        : unknownPath(segs);
  }

  private HttpReply readItem(Container c, HttpRequest h, String itemId, boolean byRid) {
    String pk;
    String id = itemId;
    if (byRid) {
      Container.ItemKey key = c.byRid(itemId);
      pk = key.partitionKey();
      id = key.id();
    } else {
      pk = PartitionKeys.fromHeader(mapper, h.getFirst("x-ms-documentdb-partitionkey"), 1);
    }
    StoredItem item;
    try {
      item = c.read(pk, id);
    } catch (CosmosError e) {
      throw itemError(c, e);
    }
    String ifNoneMatch = h.getFirst("If-None-Match");
    if (ifNoneMatch != null && ifNoneMatch.equals(item.etag())) {
      return itemReply(c, 304, null, RequestCharges.MISS, c.lsn(), false);
    }
    return itemReply(c, 200, item, RequestCharges.read(item.json().length), c.lsn(), false);
  }

  private String resolveId(Container c, String itemId, boolean byRid) {
    return byRid ? c.byRid(itemId).id() : itemId;
  }

  private HttpReply deleteItem(Container c, HttpRequest h, String itemId, boolean byRid) {
    String pk;
    String id = itemId;
    if (byRid) {
      Container.ItemKey key = c.byRid(itemId);
      pk = key.partitionKey();
      id = key.id();
    } else {
      pk = PartitionKeys.fromHeader(mapper, h.getFirst("x-ms-documentdb-partitionkey"), 1);
    }
    Container.ItemOp op =
        new Container.ItemOp(Container.Kind.DELETE, id, null, h.getFirst("If-Match"));
    return single(c, pk, op, false);
  }

  private HttpReply writeItem(
      Container c, HttpRequest h, byte[] body, Container.Kind kind, String urlId) {
    if (body.length > MAX_DOCUMENT_BYTES) {
      throw new CosmosError(413, "Request size is too large");
    }
    ObjectNode doc = parseObject(body);
    String id = Validation.resourceName(doc.get("id"), "item");
    if (urlId != null && !urlId.equals(id)) {
      throw CosmosError.badRequest(
          "The id '" + id + "' in the body does not match the id '" + urlId + "' in the request.");
    }
    c.validateTtl(doc);
    String pk = PartitionKeys.fromHeader(mapper, h.getFirst("x-ms-documentdb-partitionkey"), 1);
    checkPartitionKey(c, doc, pk);
    Container.ItemOp op = new Container.ItemOp(kind, id, doc, h.getFirst("If-Match"));
    return single(c, pk, op, minimal(h));
  }

  private static void checkPartitionKey(Container c, ObjectNode doc, String pk) {
    if (!pk.equals(c.partitionKeyOf(doc))) {
      throw new CosmosError(
          400,
          1001,
          "PartitionKey extracted from the document doesn't match the one specified in the header.");
    }
  }

  private HttpReply single(Container c, String pk, Container.ItemOp op, boolean minimal) {
    Container.Results r;
    try {
      r = c.execute(pk, List.of(op), false);
    } catch (CosmosError e) {
      throw itemError(c, e);
    }
    Container.OpResult result = r.results().get(0);
    return itemReply(c, result.status(), result.item(), result.charge(), r.lsn(), minimal);
  }

  private ItemFailure itemError(Container c, CosmosError e) {
    double charge = e.status == 409 ? RequestCharges.CONFLICT : RequestCharges.MISS;
    return new ItemFailure(e, c, charge);
  }

  private HttpReply itemReply(
      Container c, int status, StoredItem item, double charge, long lsn, boolean minimal) {
    byte[] body = item == null || minimal ? null : item.json();
    HttpReply reply = new HttpReply(status, body, charge);
    if (item != null) {
      reply.header("etag", item.etag());
    }
    return withSession(reply, c, lsn);
  }

  static HttpReply withSession(HttpReply reply, Container c, long lsn) {
    return reply
        .header("x-ms-session-token", "0:-1#" + lsn)
        .header("lsn", Long.toString(lsn))
        .header("x-ms-documentdb-partitionkeyrangeid", "0")
        .header("x-ms-content-path", c.rid)
        .header("x-ms-alt-content-path", c.altContentPath);
  }

  private HttpReply batch(Container c, HttpRequest h, byte[] body) {
    if (body.length > MAX_DOCUMENT_BYTES) {
      throw new CosmosError(413, "Request size is too large: a batch may carry at most 2 MB.");
    }
    if (!isTrue(h, "x-ms-cosmos-batch-atomic")) {
      throw CosmosError.notImplemented("Bulk execution (non-atomic batch)");
    }
    JsonNode array = parse(body);
    if (!array.isArray()) {
      throw CosmosError.badRequest("The batch request body must be a JSON array of operations.");
    }
    if (array.isEmpty()) {
      throw CosmosError.badRequest("Batch request has no operations.");
    }
    if (array.size() > MAX_BATCH_OPERATIONS) {
      throw CosmosError.badRequest(
          "Batch request has more operations than what is supported: at most "
              + MAX_BATCH_OPERATIONS
              + ", got "
              + array.size()
              + ".");
    }
    String pk = PartitionKeys.fromHeader(mapper, h.getFirst("x-ms-documentdb-partitionkey"), 1);
    List<Container.ItemOp> ops = new ArrayList<>(array.size());
    boolean minimal = minimal(h);
    for (int i = 0; i < array.size(); i++) {
      try {
        ops.add(batchOp(c, array.get(i), pk));
      } catch (CosmosError e) {
        List<Container.OpResult> results = new ArrayList<>();
        for (int j = 0; j < array.size(); j++) {
          results.add(
              j == i ? Container.OpResult.failure(e) : Container.OpResult.failedDependency());
        }
        return batchReply(c, new Container.Results(false, results, c.lsn()), minimal);
      }
    }
    return batchReply(c, c.execute(pk, ops, true), minimal);
  }

  private Container.ItemOp batchOp(Container c, JsonNode node, String pk) {
    if (!node.isObject()) {
      throw CosmosError.badRequest("A batch operation must be a JSON object.");
    }
    String type = node.path("operationType").asText("");
    Container.Kind kind =
        switch (type) {
          case "Create" -> Container.Kind.CREATE;
          case "Upsert" -> Container.Kind.UPSERT;
          case "Replace" -> Container.Kind.REPLACE;
          case "Read" -> Container.Kind.READ;
          case "Delete" -> Container.Kind.DELETE;
          case "Patch" -> Container.Kind.PATCH;
          default -> throw CosmosError.badRequest("Unknown batch operationType '" + type + "'.");
        };
    String ifMatch = node.hasNonNull("ifMatch") ? node.get("ifMatch").asText() : null;
    if (kind == Container.Kind.PATCH) {
      return ItemPatch.batchOperation(node, ifMatch);
    }
    JsonNode resource = node.get("resourceBody");
    if (kind == Container.Kind.READ || kind == Container.Kind.DELETE) {
      JsonNode id = node.get("id");
      if (id == null || !id.isTextual()) {
        throw CosmosError.badRequest("A " + type + " operation needs an id.");
      }
      return new Container.ItemOp(kind, id.textValue(), null, ifMatch);
    }
    if (!(resource instanceof ObjectNode doc)) {
      throw CosmosError.badRequest("A " + type + " operation needs a resourceBody object.");
    }
    String id = Validation.resourceName(doc.get("id"), "item");
    if (node.hasNonNull("id") && !node.get("id").asText().equals(id)) {
      throw CosmosError.badRequest("The id in the resourceBody does not match the operation's id.");
    }
    c.validateTtl(doc);
    checkPartitionKey(c, doc, pk);
    return new Container.ItemOp(kind, id, doc, ifMatch);
  }

  private HttpReply batchReply(Container c, Container.Results r, boolean minimal) {
    ArrayNode out = mapper.createArrayNode();
    double total = 0;
    for (Container.OpResult result : r.results()) {
      ObjectNode o = out.addObject();
      o.put("statusCode", result.status());
      if (result.subStatus() != 0) {
        o.put("subStatusCode", result.subStatus());
      }
      o.put("requestCharge", result.charge());
      total += result.charge();
      StoredItem item = result.item();
      if (item != null) {
        o.put("eTag", item.etag());
        if (!minimal) {
          o.set("resourceBody", parse(item.json()));
        }
      }
    }
    HttpReply reply =
        new HttpReply(r.committed() ? 200 : 207, bytes(out), RequestCharges.round(total));
    reply.header("Content-Type", "application/json");
    return withSession(reply, c, r.lsn());
  }

  private ObjectNode account() {
    String ep = endpoint.get();
    ObjectNode n = mapper.createObjectNode();
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

  private ObjectNode databaseFeed() {
    ObjectNode n = mapper.createObjectNode();
    n.put("_rid", "");
    ArrayNode arr = n.putArray("Databases");
    store.databases().forEach(db -> arr.add(store.databaseJson(db)));
    n.put("_count", arr.size());
    return n;
  }

  private ObjectNode containerFeed(Database db) {
    ObjectNode n = mapper.createObjectNode();
    n.put("_rid", db.rid);
    ArrayNode arr = n.putArray("DocumentCollections");
    db.containersByName.values().forEach(c -> arr.add(c.properties()));
    n.put("_count", arr.size());
    return n;
  }

  private HttpReply containerReply(int status, Container c) {
    ObjectNode props = c.properties();
    return json(status, props)
        .header("etag", props.path("_etag").asText())
        .header("x-ms-alt-content-path", "dbs/" + c.database.id)
        .header("x-ms-content-path", c.database.rid);
  }

  private HttpReply partitionKeyRanges(Container c, HttpRequest h) {
    String etag = "\"" + c.rid + "-1\"";
    if (etag.equals(h.getFirst("If-None-Match"))) {
      return new HttpReply(304, null, RequestCharges.METADATA).header("etag", etag);
    }
    ObjectNode n = mapper.createObjectNode();
    n.put("_rid", c.rid);
    ObjectNode range = n.putArray("PartitionKeyRanges").addObject();
    String rangeRid = Rids.text(Rids.partitionKeyRange(c.ridBytes, 1));
    range.put("_rid", rangeRid);
    range.put("id", "0");
    range.put("_etag", "\"00000000-0000-0000-0000-000000000001\"");
    range.put("minInclusive", "");
    range.put("maxExclusive", "FF");
    range.put("ridPrefix", 0);
    range.put("_self", "dbs/" + c.database.rid + "/colls/" + c.rid + "/pkranges/" + rangeRid + "/");
    range.put("throughputFraction", 1);
    range.put("status", "online");
    range.putArray("parents");
    range.put("_ts", c.properties().path("_ts").asLong());
    range.put("_lsn", 1);
    n.put("_count", 1);
    return json(200, n).header("etag", etag);
  }

  private void authorize(String method, List<String> segs, HttpRequest h) {
    int n = segs.size();
    String resourceType;
    String nameLink;
    String idSegment;
    if (n == 0) {
      resourceType = "";
      nameLink = "";
      idSegment = "";
    } else if (n % 2 == 1) {
      resourceType = segs.get(n - 1);
      nameLink = String.join("/", segs.subList(0, n - 1));
      idSegment = n >= 3 ? segs.get(n - 2) : "";
    } else {
      resourceType = segs.get(n - 2);
      nameLink = String.join("/", segs);
      idSegment = segs.get(n - 1);
    }
    String date = h.getFirst("x-ms-date");
    if (date == null) {
      date = h.getFirst("Date");
    }
    auth.verify(
        h.getFirst("Authorization"),
        method,
        date,
        resourceType,
        nameLink,
        idSegment.toLowerCase(Locale.ROOT),
        idSegment);
  }

  /**
   * Holds the answer until {@code latency} has passed since the request's first line arrived, so
   * that reading, parsing and serving it are inside the latency too. The request is served first,
   * so the emulator's own work is inside the latency, as a service's is inside the response time a
   * client measures: a client sees the injected figure, not that figure plus this process's CPU.
   * The wait runs on the request's own connection thread with no lock held.
   */
  private static void holdUntil(long arrivedNanos, Duration latency) {
    if (latency.isZero()) {
      return;
    }
    try {
      Latencies.awaitNanoTime(arrivedNanos + latency.toNanos());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private HttpReply faultReply(Fault fault, Operation op) {
    int status = fault.statusCode();
    String message =
        status == 429
            ? "Request rate is large. More Request Units may be needed, so no changes were made."
                + " Please retry this request later. (fault injected by the emulator for "
                + op
                + ")"
            : "Fault injected by the emulator for " + op + ": " + status;
    HttpReply reply = error(new CosmosError(status, fault.subStatusCode(), message));
    if (fault.retryAfterDelay() != null) {
      reply.header("x-ms-retry-after-ms", Long.toString(fault.retryAfterDelay().toMillis()));
    }
    return reply;
  }

  private HttpReply error(CosmosError e) {
    ObjectNode body = mapper.createObjectNode();
    body.put("code", e.code);
    body.put("message", e.getMessage());
    double charge = 0;
    HttpReply reply;
    if (e instanceof ItemFailure f) {
      charge = f.charge;
      reply =
          withSession(new HttpReply(e.status, bytes(body), charge), f.container, f.container.lsn());
    } else {
      reply = new HttpReply(e.status, bytes(body), charge);
    }
    reply.header("Content-Type", "application/json");
    if (e.subStatus != 0) {
      reply.header("x-ms-substatus", Integer.toString(e.subStatus));
    }
    return reply;
  }

  private HttpReply finish(HttpRequest request, HttpReply reply) {
    String activity = request.getFirst("x-ms-activity-id");
    reply.headers.putIfAbsent("x-ms-activity-id", activity != null ? activity : randomUuid());
    reply.headers.put("x-ms-request-charge", Double.toString(reply.charge));
    reply.headers.putIfAbsent("x-ms-serviceversion", "version=2.14.0.0");
    reply.headers.putIfAbsent("x-ms-gatewayversion", "version=2.14.0");
    if (reply.body != null) {
      reply.headers.putIfAbsent("Content-Type", "application/json");
    }
    stats.charge(reply.charge);
    return reply;
  }

  private JsonNode parse(byte[] body) {
    try {
      JsonNode node = mapper.readTree(body);
      if (node == null || node.isMissingNode()) {
        throw CosmosError.badRequest("The request payload is invalid: it is empty.");
      }
      JsonChecks.rejectNonFiniteNumbers(node);
      return node;
    } catch (StreamConstraintsException e) {
      throw CosmosError.badRequest(JsonChecks.beyondLimits(e));
    } catch (IOException e) {
      throw CosmosError.badRequest(
          "The request payload is invalid. Ensure to provide a valid request payload.");
    }
  }

  private ObjectNode parseObject(byte[] body) {
    JsonNode node = parse(body);
    if (!(node instanceof ObjectNode o)) {
      throw CosmosError.badRequest("The request payload is invalid: a JSON object is expected.");
    }
    return o;
  }

  private byte[] bytes(JsonNode node) {
    try {
      return mapper.writeValueAsBytes(node);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  private HttpReply json(int status, JsonNode node) {
    return new HttpReply(status, bytes(node), RequestCharges.METADATA);
  }

  static List<String> segments(String rawPath) {
    List<String> segs = new ArrayList<>();
    if (rawPath == null) {
      return segs;
    }
    for (String s : rawPath.split("/")) {
      if (!s.isEmpty()) {
        segs.add(percentDecode(s));
      }
    }
    return segs;
  }

  private static String percentDecode(String s) {
    if (s.indexOf('%') < 0) {
      return s;
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int i = 0; i < s.length(); i++) {
      char ch = s.charAt(i);
      if (ch == '%' && i + 2 < s.length()) {
        int hi = Character.digit(s.charAt(i + 1), 16);
        int lo = Character.digit(s.charAt(i + 2), 16);
        if (hi >= 0 && lo >= 0) {
          out.write(hi * 16 + lo);
          i += 2;
          continue;
        }
      }
      byte[] b = String.valueOf(ch).getBytes(StandardCharsets.UTF_8);
      out.write(b, 0, b.length);
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  private static boolean isTrue(HttpRequest h, String name) {
    return "true".equalsIgnoreCase(h.getFirst(name));
  }

  private static boolean isQuery(HttpRequest h) {
    String contentType = Optional.ofNullable(h.getFirst("Content-Type")).orElse("");
    return isTrue(h, "x-ms-documentdb-isquery")
        || isTrue(h, "x-ms-cosmos-is-query-plan-request")
        || contentType.startsWith("application/query+json");
  }

  private static boolean minimal(HttpRequest h) {
    String prefer = h.getFirst("Prefer");
    return prefer != null && prefer.toLowerCase(Locale.ROOT).contains("return=minimal");
  }

  private static void requireMethod(String method, String expected) {
    if (!method.equals(expected)) {
      throw methodNotAllowed(method);
    }
  }

  private static CosmosError methodNotAllowed(String method) {
    return new CosmosError(405, "The requested verb " + method + " is not supported here.");
  }

  private static CosmosError unknownPath(List<String> segs) {
    return CosmosError.notFound(
        "Unknown resource path '/"
            + String.join("/", segs)
            + "': the emulator serves dbs, colls,"
            + " docs and pkranges only.");
  }

  private static String randomUuid() {
    ThreadLocalRandom r = ThreadLocalRandom.current();
    return new UUID(r.nextLong(), r.nextLong()).toString();
  }

  /** An item-level error that still carries session headers and a charge. */
  private static final class ItemFailure extends CosmosError {
    final Container container;
    final double charge;

    ItemFailure(CosmosError cause, Container container, double charge) {
      super(cause.status, cause.subStatus, cause.getMessage());
      this.container = container;
      this.charge = charge;
    }
  }
}
