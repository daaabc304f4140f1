package io.idemworker.emulator.cosmos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Databases and containers of one emulator, addressable by name and by RID. Creating and deleting
 * them is serialised; look-ups are lock-free.
 */
final class Store {
  private final ObjectMapper mapper;
  private final Clock clock;
  private final ConcurrentHashMap<String, Database> byName = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, Database> byRid = new ConcurrentHashMap<>();
  private final AtomicInteger databaseNumbers =
      new AtomicInteger(ThreadLocalRandom.current().nextInt(1, 1 << 20));
  private final AtomicLong etags = new AtomicLong();
  private final PartitionKeyRanges ranges;
  private final boolean rangesFromThroughput;
  final Offers offers;

  Store(ObjectMapper mapper, Clock clock) {
    this(mapper, clock, new PartitionKeyRanges(1), false);
  }

  Store(ObjectMapper mapper, Clock clock, PartitionKeyRanges ranges, boolean rangesFromThroughput) {
    this.mapper = mapper;
    this.clock = clock;
    this.ranges = ranges;
    this.rangesFromThroughput = rangesFromThroughput;
    this.offers = new Offers(mapper, clock);
  }

  /** RU/s one physical partition of the service serves at most. */
  static final int THROUGHPUT_PER_RANGE = 10_000;

  /**
   * The ranges a container created by {@code h} gets: with ranges from throughput, {@code ceil(T /
   * 10,000)} (1 to {@value PartitionKeyRanges#MAX}) for dedicated throughput T ({@code
   * x-ms-offer-throughput}, or an autoscale {@code maxThroughput}); otherwise, or without dedicated
   * throughput, or with a malformed header (which the offer then refuses), the configured count.
   */
  PartitionKeyRanges rangesFor(HttpRequest h) {
    if (!rangesFromThroughput) {
      return ranges;
    }
    long throughput = -1;
    String fixed = h.getFirst("x-ms-offer-throughput");
    String autoscale = h.getFirst("x-ms-cosmos-offer-autopilot-settings");
    try {
      if (fixed != null) {
        throughput = Long.parseLong(fixed.trim());
      } else if (autoscale != null) {
        JsonNode max = mapper.readTree(autoscale).path("maxThroughput");
        throughput = max.canConvertToLong() ? max.longValue() : -1;
      }
    } catch (NumberFormatException | java.io.IOException e) {
      throughput = -1;
    }
    if (throughput < 1) {
      return ranges;
    }
    long count = (throughput + THROUGHPUT_PER_RANGE - 1) / THROUGHPUT_PER_RANGE;
    return new PartitionKeyRanges((int) Math.min(PartitionKeyRanges.MAX, count));
  }

  Collection<Database> databases() {
    return List.copyOf(byName.values());
  }

  synchronized Database createDatabase(ObjectNode body) {
    String id = Validation.resourceName(body.get("id"), "database");
    if (byName.containsKey(id)) {
      throw new CosmosError(409, "Resource with specified id or name already exists.");
    }
    Database db =
        new Database(id, Rids.database(databaseNumbers.incrementAndGet()), now(), nextEtag());
    byName.put(id, db);
    byRid.put(db.rid, db);
    return db;
  }

  Database database(String nameOrRid) {
    Database db = byName.get(nameOrRid);
    if (db == null) {
      db = byRid.get(nameOrRid);
    }
    if (db == null) {
      throw CosmosError.notFound("Resource Not Found. Learn more: database " + nameOrRid);
    }
    return db;
  }

  synchronized void deleteDatabase(Database db) {
    if (byName.remove(db.id, db)) {
      byRid.remove(db.rid);
      offers.removeFor(db.rid);
      db.containersByName.values().forEach(c -> offers.removeFor(c.rid));
    } else {
      throw CosmosError.notFound("Resource Not Found: database " + db.id);
    }
  }

  synchronized Container createContainer(Database db, ObjectNode body) {
    return createContainer(db, body, ranges);
  }

  synchronized Container createContainer(
      Database db, ObjectNode body, PartitionKeyRanges containerRanges) {
    String id = Validation.resourceName(body.get("id"), "container");
    if (byName.get(db.id) != db) {
      throw new CosmosError(404, 1003, "Owner resource does not exist: database " + db.id);
    }
    if (db.containersByName.containsKey(id)) {
      throw new CosmosError(409, "Resource with specified id or name already exists.");
    }
    List<String[]> paths = partitionKeyPaths(body);
    Integer defaultTtl = defaultTtl(body);
    byte[] rid = Rids.container(db.ridBytes, db.containerNumbers.incrementAndGet());
    ObjectNode props = containerProperties(body, rid, db, nextEtag());
    Container c =
        new Container(mapper, clock, db, id, rid, paths, props, defaultTtl, containerRanges);
    db.containersByName.put(id, c);
    db.containersByRid.put(c.rid, c);
    return c;
  }

  synchronized Container replaceContainer(Container c, ObjectNode body) {
    String id = Validation.resourceName(body.get("id"), "container");
    if (!id.equals(c.id)) {
      throw CosmosError.badRequest("The container id in the body does not match the request.");
    }
    Integer defaultTtl = defaultTtl(body);
    ObjectNode props = containerProperties(body, c.ridBytes, c.database, nextEtag());
    props.set("partitionKey", c.properties().get("partitionKey"));
    c.replaceProperties(props, defaultTtl);
    return c;
  }

  Container container(Database db, String nameOrRid) {
    Container c = db.containersByName.get(nameOrRid);
    if (c == null) {
      c = db.containersByRid.get(nameOrRid);
    }
    if (c == null) {
      throw CosmosError.notFound("Resource Not Found: container " + nameOrRid);
    }
    return c;
  }

  synchronized void deleteContainer(Container c) {
    if (c.database.containersByName.remove(c.id, c)) {
      c.database.containersByRid.remove(c.rid);
      offers.removeFor(c.rid);
    } else {
      throw CosmosError.notFound("Resource Not Found: container " + c.id);
    }
  }

  int purgeExpired() {
    int purged = 0;
    for (Database db : byName.values()) {
      for (Container c : db.containersByName.values()) {
        purged += c.purgeExpired();
      }
    }
    return purged;
  }

  ObjectNode databaseJson(Database db) {
    ObjectNode n = mapper.createObjectNode();
    n.put("id", db.id);
    n.put("_rid", db.rid);
    n.put("_self", "dbs/" + db.rid + "/");
    n.put("_etag", db.etag);
    n.put("_colls", "colls/");
    n.put("_users", "users/");
    n.put("_ts", db.ts);
    return n;
  }

  private ObjectNode containerProperties(
      ObjectNode body, byte[] ridBytes, Database db, String etag) {
    ObjectNode props = body.deepCopy();
    String rid = Rids.text(ridBytes);
    ObjectNode pk = (ObjectNode) props.get("partitionKey");
    if (pk != null) {
      if (!pk.has("kind")) {
        pk.put("kind", "Hash");
      }
      if (!pk.has("version")) {
        pk.put("version", 2);
      }
    }
    if (!props.has("indexingPolicy") || props.get("indexingPolicy").isNull()) {
      ObjectNode ip = props.putObject("indexingPolicy");
      ip.put("indexingMode", "consistent");
      ip.put("automatic", true);
      ip.putArray("includedPaths").addObject().put("path", "/*");
      ip.putArray("excludedPaths").addObject().put("path", "/\"_etag\"/?");
    }
    if (!props.has("conflictResolutionPolicy")) {
      ObjectNode crp = props.putObject("conflictResolutionPolicy");
      crp.put("mode", "LastWriterWins");
      crp.put("conflictResolutionPath", "/_ts");
      crp.put("conflictResolutionProcedure", "");
    }
    props.put("_rid", rid);
    props.put("_ts", now());
    props.put("_self", "dbs/" + db.rid + "/colls/" + rid + "/");
    props.put("_etag", etag);
    props.put("_docs", "docs/");
    props.put("_sprocs", "sprocs/");
    props.put("_triggers", "triggers/");
    props.put("_udfs", "udfs/");
    props.put("_conflicts", "conflicts/");
    return props;
  }

  private static List<String[]> partitionKeyPaths(ObjectNode body) {
    JsonNode pk = body.get("partitionKey");
    JsonNode paths = pk == null ? null : pk.get("paths");
    if (!(pk instanceof ObjectNode) || paths == null || !paths.isArray() || paths.isEmpty()) {
      throw CosmosError.badRequest(
          "The partition key definition is missing: a container needs partitionKey.paths.");
    }
    if (paths.size() > 1) {
      throw CosmosError.notImplemented(
          "hierarchical partition keys (more than one partition key path)");
    }
    List<String[]> result = new ArrayList<>();
    for (JsonNode p : (ArrayNode) paths) {
      String path = p.isTextual() ? p.textValue() : "";
      if (!path.startsWith("/") || path.length() < 2) {
        throw CosmosError.badRequest("The partition key path " + p + " is invalid.");
      }
      result.add(path.substring(1).split("/"));
    }
    return result;
  }

  private static Integer defaultTtl(ObjectNode body) {
    JsonNode ttl = body.get("defaultTtl");
    if (ttl == null || ttl.isNull()) {
      return null;
    }
    if (!ttl.isIntegralNumber()
        || !ttl.canConvertToInt()
        || ttl.intValue() == 0
        || ttl.intValue() < -1) {
      throw CosmosError.badRequest(
          "The value of defaultTtl must be -1 (no default expiry) or a positive number of seconds, got "
              + ttl);
    }
    return ttl.intValue();
  }

  private String nextEtag() {
    return "\"00000000-0000-0000-0000-" + String.format("%012x", etags.incrementAndGet()) + "\"";
  }

  private long now() {
    return clock.instant().getEpochSecond();
  }
}
