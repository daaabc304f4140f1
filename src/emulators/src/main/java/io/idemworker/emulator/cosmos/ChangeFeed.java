package io.idemworker.emulator.cosmos;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Serves the change feed in latest-version ("incremental") mode: {@code GET …/docs} with {@code
 * A-IM: Incremental feed}. The position travels in {@code If-None-Match}: absent = from the
 * beginning (or from {@code If-Modified-Since}), {@code *} = from now, {@code "<lsn>"} = after that
 * LSN. The answer is 200 with {@code {"_rid","Documents":[…],"_count"}} and {@code etag: "<lsn>"},
 * or 304 with the etag when nothing is new. Stateless; thread safety comes from {@link Container}.
 */
final class ChangeFeed {
  static final int DEFAULT_PAGE_SIZE = 100;

  /** The header that asks for entries with {@code current} and {@code metadata}. */
  static final String WIRE_FORMAT = "x-ms-cosmos-changefeed-wire-format-version";

  private ChangeFeed() {}

  /**
   * Answers one change-feed request on {@code c}.
   *
   * @throws CosmosError 400 for a malformed position or page size, or an empty effective partition
   *     key range; 501 for the all-versions-and-deletes mode
   */
  static HttpReply read(Container c, HttpRequest h, ObjectMapper mapper) {
    String aim = h.getFirst("A-IM");
    if (!"incremental feed".equalsIgnoreCase(aim.trim())) {
      throw CosmosError.notImplemented("The change feed mode '" + aim + "'");
    }
    Optional<Integer> range = checkRange(c, h);
    Optional<String> partitionKey =
        Optional.ofNullable(h.getFirst("x-ms-documentdb-partitionkey"))
            .map(header -> PartitionKeys.fromHeader(mapper, header, 1));
    Predicate<String> partitions =
        partitionKey.isPresent()
            ? partitionKey.get()::equals
            : range.<Predicate<String>>map(r -> pk -> c.ranges.rangeOf(pk) == r).orElse(pk -> true);
    partitions = partitions.and(subRange(c, h, range));
    int pageSize = pageSize(h.getFirst("x-ms-max-item-count"));
    String ifNoneMatch = h.getFirst("If-None-Match");
    if (ifNoneMatch != null && ifNoneMatch.trim().equals("*")) {
      return inRange(notModified(c, c.lsn()), range);
    }
    long after = ifNoneMatch == null ? 0 : lsnOf(ifNoneMatch);
    long minTs = ifNoneMatch == null ? since(h.getFirst("If-Modified-Since")) : Long.MIN_VALUE;
    ChangeFeedIndex.Page page = c.changesAfter(after, pageSize, partitions, minTs);
    if (page.items().isEmpty()) {
      return inRange(notModified(c, page.continuationLsn()), range);
    }
    ObjectNode body = mapper.createObjectNode();
    body.put("_rid", c.rid);
    ArrayNode docs = body.putArray("Documents");
    double charge = 0;
    boolean withMetadata = h.getFirst(WIRE_FORMAT) != null;
    for (StoredItem item : page.items()) {
      try {
        ObjectNode doc = (ObjectNode) mapper.readTree(item.json());
        doc.put("_lsn", item.lsn());
        docs.add(withMetadata ? withMetadata(doc, item, mapper) : doc);
      } catch (IOException e) {
        throw new IllegalStateException("stored item is not JSON", e);
      }
      charge += RequestCharges.read(item.json().length);
    }
    body.put("_count", docs.size());
    HttpReply reply;
    try {
      reply = new HttpReply(200, mapper.writeValueAsBytes(body), RequestCharges.round(charge));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
    reply.header("etag", etag(page.continuationLsn()));
    reply.header("x-ms-item-count", Integer.toString(docs.size()));
    return inRange(reply.withSession(c, c.lsn()), range);
  }

  /**
   * An entry of the wire format the SDK asks for with {@value #WIRE_FORMAT} (its epk-based change
   * feed processor does, in latest-version mode too): the item under {@code current}, and under
   * {@code metadata} its LSN, its {@code _ts} as {@code crts}, whether it was created or replaced,
   * and for a replace the LSN of the version before.
   */
  private static ObjectNode withMetadata(ObjectNode doc, StoredItem item, ObjectMapper mapper) {
    ObjectNode entry = mapper.createObjectNode();
    entry.set("current", doc);
    ObjectNode metadata = entry.putObject("metadata");
    metadata.put("lsn", item.lsn());
    metadata.put("crts", item.ts());
    metadata.put("operationType", item.previousLsn() == 0 ? "create" : "replace");
    if (item.previousLsn() != 0) {
      metadata.put("previousImageLSN", item.previousLsn());
    }
    return entry;
  }

  private static HttpReply inRange(HttpReply reply, Optional<Integer> range) {
    range.ifPresent(r -> reply.header("x-ms-documentdb-partitionkeyrangeid", Integer.toString(r)));
    return reply;
  }

  private static HttpReply notModified(Container c, long lsn) {
    HttpReply reply = new HttpReply(304, null, RequestCharges.MISS).header("etag", etag(lsn));
    reply.header("x-ms-item-count", "0");
    return reply.withSession(c, c.lsn());
  }

  private static String etag(long lsn) {
    return "\"" + lsn + "\"";
  }

  private static long lsnOf(String ifNoneMatch) {
    String text = ifNoneMatch.trim();
    if (text.length() >= 2 && text.startsWith("\"") && text.endsWith("\"")) {
      text = text.substring(1, text.length() - 1);
    }
    try {
      long lsn = Long.parseLong(text);
      if (lsn < 0) {
        throw new NumberFormatException("negative");
      }
      return lsn;
    } catch (NumberFormatException e) {
      throw CosmosError.badRequest(
          "The change feed position (If-None-Match) '"
              + ifNoneMatch
              + "' is not '*' or an etag this emulator issued.");
    }
  }

  private static long since(String ifModifiedSince) {
    if (ifModifiedSince == null) {
      return Long.MIN_VALUE;
    }
    try {
      return ZonedDateTime.parse(ifModifiedSince.trim(), DateTimeFormatter.RFC_1123_DATE_TIME)
          .toEpochSecond();
    } catch (DateTimeParseException e) {
      throw CosmosError.badRequest(
          "If-Modified-Since '" + ifModifiedSince + "' is not an RFC 1123 date.");
    }
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

  private static Optional<Integer> checkRange(Container c, HttpRequest h) {
    return Optional.ofNullable(h.getFirst("x-ms-documentdb-partitionkeyrangeid"))
        .map(c.ranges::parse);
  }

  /**
   * The partitions a feed range narrower than a partition key range keeps ({@code x-ms-start-epk}
   * inclusive to {@code x-ms-end-epk} exclusive, as the SDK sends for {@code FeedRange}s made from
   * effective partition keys): those whose {@link EffectivePartitionKey effective partition key}
   * lies in it. Without those headers, or when they span the whole range, every partition.
   */
  private static Predicate<String> subRange(Container c, HttpRequest h, Optional<Integer> range) {
    String start =
        Optional.ofNullable(h.getFirst("x-ms-start-epk")).orElse("").toUpperCase(Locale.ROOT);
    String end =
        Optional.ofNullable(h.getFirst("x-ms-end-epk")).orElse("FF").toUpperCase(Locale.ROOT);
    boolean whole =
        range
            .map(
                r ->
                    start.equalsIgnoreCase(c.ranges.minInclusive(r))
                        && end.equalsIgnoreCase(c.ranges.maxExclusive(r)))
            .orElse(start.isEmpty() && end.equals("FF"));
    if (whole) {
      return pk -> true;
    }
    if (!end.isEmpty() && start.compareTo(end) >= 0) {
      throw CosmosError.badRequest(
          "x-ms-start-epk '" + start + "' must be below x-ms-end-epk '" + end + "'.");
    }
    return pk -> {
      String epk = EffectivePartitionKey.of(pk);
      return epk.compareTo(start) >= 0 && epk.compareTo(end) < 0;
    };
  }
}
