package io.idemworker.emulator.cosmos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Clock;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The throughput offers of databases and containers created with provisioned throughput ({@code
 * x-ms-offer-throughput}) or autoscale ({@code x-ms-cosmos-offer-autopilot-settings}). They are
 * stored, listed, queried, read and replaced as the service does, and never enforced: no request is
 * throttled by them. Thread-safe.
 */
final class Offers {
  /** The minimum throughput reported for every offer ({@code x-ms-cosmos-min-throughput}). */
  static final int MIN_THROUGHPUT = 400;

  private final ObjectMapper mapper;
  private final Clock clock;
  private final ConcurrentHashMap<String, ObjectNode> byRid = new ConcurrentHashMap<>();
  private final AtomicInteger numbers = new AtomicInteger();

  Offers(ObjectMapper mapper, Clock clock) {
    this.mapper = mapper;
    this.clock = clock;
  }

  /**
   * Records the offer a create request asks for, if any.
   *
   * @throws CosmosError 400 naming the header when its value is malformed or below the minimum
   */
  void createFor(HttpRequest h, String resourceRid, String resourceLink) {
    String fixed = h.getFirst("x-ms-offer-throughput");
    String autoscale = h.getFirst("x-ms-cosmos-offer-autopilot-settings");
    if (fixed == null && autoscale == null) {
      return;
    }
    ObjectNode content = mapper.createObjectNode();
    if (fixed != null) {
      content.put("offerThroughput", throughput(fixed, "x-ms-offer-throughput"));
    } else {
      JsonNode settings;
      try {
        settings = mapper.readTree(autoscale);
      } catch (java.io.IOException e) {
        settings = null;
      }
      if (settings == null || !settings.path("maxThroughput").canConvertToInt()) {
        throw CosmosError.badRequest(
            "x-ms-cosmos-offer-autopilot-settings must be {\"maxThroughput\": n}, got "
                + autoscale);
      }
      int max = settings.path("maxThroughput").intValue();
      content.put("offerThroughput", Math.max(MIN_THROUGHPUT, max / 10));
      content.set("offerAutopilotSettings", settings);
    }
    byte[] ridBytes = {0, 0, (byte) numbers.incrementAndGet()};
    ridBytes[1] = (byte) (numbers.get() >> 8);
    String rid = Base64.getEncoder().encodeToString(ridBytes).replace('/', '-');
    ObjectNode offer = mapper.createObjectNode();
    offer.put("resource", resourceLink);
    offer.put("offerType", "Invalid");
    offer.put("offerResourceId", resourceRid);
    offer.put("offerVersion", "V2");
    offer.set("content", content);
    offer.put("id", rid);
    offer.put("_rid", rid);
    offer.put("_self", "offers/" + rid + "/");
    stamp(offer);
    byRid.put(rid, offer);
  }

  /** Drops the offer of a deleted database or container. */
  void removeFor(String resourceRid) {
    byRid.values().removeIf(o -> o.path("offerResourceId").asText().equals(resourceRid));
  }

  List<JsonNode> all() {
    return List.copyOf(byRid.values());
  }

  ObjectNode read(String rid) {
    return Optional.ofNullable(byRid.get(rid))
        .orElseThrow(() -> CosmosError.notFound("Resource Not Found: offer " + rid));
  }

  /**
   * Replaces an offer's content (its throughput); the rest is kept.
   *
   * @throws CosmosError 404 for an unknown offer, 400 for a body without a valid content
   */
  ObjectNode replace(String rid, ObjectNode body) {
    ObjectNode offer = read(rid);
    JsonNode content = body.get("content");
    if (content == null || !content.isObject()) {
      throw CosmosError.badRequest("An offer replace needs a 'content' object.");
    }
    JsonNode throughput = content.get("offerThroughput");
    if (throughput != null && (!throughput.canConvertToInt() || throughput.intValue() < 0)) {
      throw CosmosError.badRequest(
          "content.offerThroughput must be a non-negative integer, got " + throughput);
    }
    ObjectNode updated = offer.deepCopy();
    updated.set("content", content);
    stamp(updated);
    byRid.put(rid, updated);
    return updated;
  }

  private void stamp(ObjectNode offer) {
    offer.put("_etag", "\"" + java.util.UUID.randomUUID() + "\"");
    offer.put("_ts", clock.instant().getEpochSecond());
  }

  private static int throughput(String value, String header) {
    try {
      int n = Integer.parseInt(value.trim());
      if (n >= MIN_THROUGHPUT) {
        return n;
      }
    } catch (NumberFormatException e) {
      // fall through to the error below
    }
    throw CosmosError.badRequest(
        header + " must be an integer of at least " + MIN_THROUGHPUT + ", got '" + value + "'.");
  }
}
