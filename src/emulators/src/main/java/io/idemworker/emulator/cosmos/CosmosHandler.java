package io.idemworker.emulator.cosmos;

import static io.idemworker.emulator.cosmos.RequestHeaders.isQuery;
import static io.idemworker.emulator.cosmos.RequestHeaders.isTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.emulator.Latencies;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves the Cosmos DB gateway REST API over the {@link Store}: the router. Every request is
 * counted, then authorised, then meets the injected faults, then is dispatched by path and verb to
 * the handler of its resource ({@link MetadataHandler}, {@link ItemHandler}, {@link BatchHandler},
 * {@link QueryEngine}, {@link ChangeFeed}), and its answer is held until the injected latency has
 * passed since it arrived; any failure becomes an error answer in the service's shape, and no input
 * can stop the server.
 *
 * <p>Thread-safe: it keeps no state of its own beyond the counters of {@link RequestStats}; the
 * listener serves requests concurrently, one per connection thread.
 */
final class CosmosHandler implements Function<HttpRequest, HttpReply> {
  private static final Logger LOG = LoggerFactory.getLogger(CosmosHandler.class);
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
          "clientencryptionkeys",
          "attachments",
          "schemas",
          "partitionedsystemdocuments");

  private static final Map<String, String> SCRIPT_FEEDS =
      Map.of("sprocs", "StoredProcedures", "triggers", "Triggers", "udfs", "UserDefinedFunctions");

  private final Store store;
  private final MasterKeyAuth auth;
  private final Faults faults;
  private final RequestStats stats;
  private final ObjectMapper mapper;
  private final JsonBodies json;
  private final MetadataHandler metadata;
  private final ItemHandler items;
  private final BatchHandler batches;

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
    this.json = new JsonBodies(mapper);
    this.metadata = new MetadataHandler(store, json, endpoint);
    this.items = new ItemHandler(json);
    this.batches = new BatchHandler(json);
  }

  @Override
  public HttpReply apply(HttpRequest request) {
    Duration latency = Duration.ZERO;
    HttpReply reply;
    String container = null;
    try {
      List<String> segs = segments(request.rawPath());
      container = containerScope(segs);
      Operation op = admit(request, segs, container);
      Faults.Outcome outcome = faults.onRequest(op, container, request.getFirst("User-Agent"));
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
    HttpReply finished = finish(request, reply, container);
    if (LOG.isDebugEnabled()) {
      LOG.debug(
          "{} {} {} -> {} {}",
          request.method(),
          request.rawPath(),
          request.headers(),
          finished.status,
          finished.body == null ? "" : new String(finished.body, StandardCharsets.UTF_8));
    }
    return finished;
  }

  /**
   * The {@link Faults#scopeKey scope key} of the container a request is on ({@code
   * dbs/{db}/colls/{container}/…}, by name or RID), for container-scoped faults and counters; null
   * for a request on no container. A container that does not exist is keyed by the names as given.
   */
  private String containerScope(List<String> segs) {
    if (segs.size() < 4 || !segs.get(0).equals("dbs") || !segs.get(2).equals("colls")) {
      return null;
    }
    try {
      Database db = store.database(segs.get(1));
      return Faults.scopeKey(db.id, store.container(db, segs.get(3)).id);
    } catch (CosmosError | IllegalArgumentException e) {
      return segs.get(1).isBlank() || segs.get(3).isBlank()
          ? null
          : Faults.scopeKey(segs.get(1), segs.get(3));
    }
  }

  /** Counts and authorises the request; what it is, for the faults to match. */
  private Operation admit(HttpRequest request, List<String> segs, String container) {
    String method = request.method();
    Operation op = classify(method, segs, request);
    stats.record(op, container);
    refuseUnserved(segs);
    authorize(method, segs, request);
    return op;
  }

  /**
   * Answers a path outside the served resources before checking its signature, so that a client
   * asking for what is not served learns that, rather than a wrong-key 401 (the SDK signs such
   * paths differently).
   */
  private static void refuseUnserved(List<String> segs) {
    if (segs.isEmpty() || segs.get(0).equals("dbs") || segs.get(0).equals("offers")) {
      return;
    }
    if (segs.get(0).equalsIgnoreCase("addresses")) {
      throw new CosmosError(
          501,
          "Direct (TCP) connection mode is not served by the idemworker Cosmos DB emulator: the"
              + " client asked for replica addresses (GET /addresses). Build the client with"
              + " .gatewayMode().");
    }
    throw unknownPath(segs);
  }

  static Operation classify(String method, List<String> segs, HttpRequest h) {
    int n = segs.size();
    boolean dbsColls =
        n >= 1 && segs.get(0).equals("dbs") && (n < 3 || segs.get(2).equals("colls"));
    if (n == 0 || (dbsColls && n <= 4) || (segs.get(0).equals("offers") && n <= 2)) {
      return Operation.METADATA;
    }
    if (!dbsColls) {
      return Operation.UNSUPPORTED;
    }
    String child = segs.get(4);
    if (n == 5 && child.equals("pkranges")) {
      return Operation.METADATA;
    }
    if (n == 5 && SCRIPT_FEEDS.containsKey(child) && (method.equals("GET") || isQuery(h))) {
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
      return metadata.account();
    }
    if (segs.get(0).equals("offers")) {
      return offers(method, segs, h, body);
    }
    if (!segs.get(0).equals("dbs")) {
      throw unknownPath(segs);
    }
    boolean query = isQuery(h) && method.equals("POST");
    if (query && n == 1) {
      return metadata.queryDatabases(body);
    }
    if (query && n == 3 && segs.get(2).equals("colls")) {
      return metadata.queryContainers(store.database(segs.get(1)), body);
    }
    if (isQuery(h)
        && !(n == 5
            && method.equals("POST")
            && (segs.get(4).equals("docs") || SCRIPT_FEEDS.containsKey(segs.get(4))))) {
      throw CosmosError.notImplemented("Querying '/" + String.join("/", segs) + "'");
    }
    if (n == 1) {
      return switch (method) {
        case "POST" -> metadata.createDatabase(h, body);
        case "GET" -> metadata.databases();
        default -> throw methodNotAllowed(method);
      };
    }
    Database db = store.database(segs.get(1));
    if (n == 2) {
      return switch (method) {
        case "GET" -> metadata.database(db);
        case "DELETE" -> metadata.deleteDatabase(db);
        default -> throw methodNotAllowed(method);
      };
    }
    if (!segs.get(2).equals("colls")) {
      throw unimplementedOrUnknown(segs.get(2), segs);
    }
    if (n == 3) {
      return switch (method) {
        case "POST" -> metadata.createContainer(db, h, body);
        case "GET" -> metadata.containers(db);
        default -> throw methodNotAllowed(method);
      };
    }
    Container c = store.container(db, segs.get(3));
    boolean byRid = !c.id.equals(segs.get(3));
    if (n == 4) {
      return switch (method) {
        case "GET" -> metadata.container(c);
        case "PUT" -> metadata.replaceContainer(c, body);
        case "DELETE" -> metadata.deleteContainer(c);
        default -> throw methodNotAllowed(method);
      };
    }
    String child = segs.get(4);
    if (child.equals("pkranges") && n == 5) {
      requireMethod(method, "GET");
      return metadata.partitionKeyRanges(c, h);
    }
    if (n == 5 && SCRIPT_FEEDS.containsKey(child) && (method.equals("GET") || query)) {
      // No scripts can be created here, so every read feed or query of them is empty.
      return metadata.emptyFeed(c.rid, SCRIPT_FEEDS.get(child));
    }
    if (!child.equals("docs")) {
      throw unimplementedOrUnknown(child, segs);
    }
    if (n == 5) {
      return switch (method) {
        case "POST" -> {
          if (isQuery(h)) {
            yield QueryEngine.serve(c, h, json.parse(body), mapper);
          }
          if (isTrue(h, "x-ms-cosmos-is-batch-request")) {
            yield batches.execute(c, h, body);
          }
          yield items.create(c, h, body, isTrue(h, "x-ms-documentdb-is-upsert"));
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
        case "GET" -> items.read(c, h, itemId, byRid);
        case "PUT" -> items.replace(c, h, itemId, byRid, body);
        case "DELETE" -> items.delete(c, h, itemId, byRid);
        case "PATCH" -> items.patch(c, h, itemId, byRid, body);
        default -> throw methodNotAllowed(method);
      };
    }
    throw n == 8 && UNIMPLEMENTED_CHILDREN.contains(segs.get(6))
        ? CosmosError.notImplemented("The resource type '" + segs.get(6) + "'")
        : unknownPath(segs);
  }

  private HttpReply offers(String method, List<String> segs, HttpRequest h, byte[] body) {
    int n = segs.size();
    if (n == 1) {
      return switch (method) {
        case "GET" -> metadata.offers();
        case "POST" -> {
          if (!isQuery(h)) {
            throw CosmosError.badRequest("Offers are created with their database or container.");
          }
          yield metadata.queryOffers(body);
        }
        default -> throw methodNotAllowed(method);
      };
    }
    if (n == 2) {
      return switch (method) {
        case "GET" -> metadata.offer(segs.get(1));
        case "PUT" -> metadata.replaceOffer(segs.get(1), body);
        default -> throw methodNotAllowed(method);
      };
    }
    throw unknownPath(segs);
  }

  private static CosmosError unimplementedOrUnknown(String child, List<String> segs) {
    return UNIMPLEMENTED_CHILDREN.contains(child)
        ? CosmosError.notImplemented("The resource type '" + child + "'")
        : unknownPath(segs);
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
    if (e instanceof ItemHandler.ItemFailure f) {
      charge = f.charge;
      reply =
          new HttpReply(e.status, json.bytes(body), charge)
              .withSessionToken(f.container, f.container.lsn());
    } else {
      reply = new HttpReply(e.status, json.bytes(body), charge);
    }
    reply.header("Content-Type", "application/json");
    if (e.subStatus != 0) {
      reply.header("x-ms-substatus", Integer.toString(e.subStatus));
    }
    return reply;
  }

  private HttpReply finish(HttpRequest request, HttpReply reply, String container) {
    String activity = request.getFirst("x-ms-activity-id");
    reply.headers.putIfAbsent("x-ms-activity-id", activity != null ? activity : randomUuid());
    reply.headers.put("x-ms-request-charge", Double.toString(reply.charge));
    reply.headers.putIfAbsent("x-ms-serviceversion", "version=2.14.0.0");
    reply.headers.putIfAbsent("x-ms-gatewayversion", "version=2.14.0");
    if (reply.body != null) {
      reply.headers.putIfAbsent("Content-Type", "application/json");
    }
    stats.charge(reply.charge, container);
    return reply;
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
            + "': the emulator serves dbs, colls, docs, pkranges and offers only (gateway"
            + " mode).");
  }

  private static String randomUuid() {
    ThreadLocalRandom r = ThreadLocalRandom.current();
    return new UUID(r.nextLong(), r.nextLong()).toString();
  }
}
