package io.idemworker.emulator.cosmos;

import com.fasterxml.jackson.databind.node.ArrayNode;
import java.util.Locale;

/**
 * The partition key ranges of a container: {@code count} ranges with ids {@code "0"} to {@code
 * count-1} that together cover the effective-partition-key space {@code ""} to {@code "FF"}, so
 * that an SDK fans a cross-partition query out to each of them and merges the answers, as it does
 * against a container the service has split. Each logical partition lives in exactly one range: the
 * one holding its effective partition key (hash version 2), the same the SDK computes, so a request
 * the SDK scopes to a range by its own hashing (read-many, feed-range queries) finds the partitions
 * there. Requests that name a partition key are served by the key; requests that name only a range
 * see the logical partitions in it; the union over all ranges is every item, once. Immutable and
 * thread-safe.
 */
final class PartitionKeyRanges {
  /** The most ranges a container may have (boundaries are one hex byte apart at the finest). */
  static final int MAX = 64;

  private final int count;

  PartitionKeyRanges(int count) {
    if (count < 1 || count > MAX) {
      throw new IllegalArgumentException(
          "partitionKeyRanges must be between 1 and " + MAX + ", got " + count);
    }
    this.count = count;
  }

  int count() {
    return count;
  }

  /**
   * The range holding the logical partition whose canonical key is {@code partitionKey}: the one
   * whose bounds contain its {@link EffectivePartitionKey effective partition key}, as the SDK
   * computes it.
   */
  int rangeOf(String partitionKey) {
    if (count == 1) {
      return 0;
    }
    String epk = EffectivePartitionKey.of(partitionKey);
    for (int i = count - 1; i > 0; i--) {
      if (epk.compareTo(minInclusive(i)) >= 0) {
        return i;
      }
    }
    return 0;
  }

  /** The inclusive lower bound of range {@code i}: {@code ""} for the first. */
  String minInclusive(int i) {
    return i == 0 ? "" : boundary(i);
  }

  /** The exclusive upper bound of range {@code i}: {@code "FF"} for the last. */
  String maxExclusive(int i) {
    return i == count - 1 ? "FF" : boundary(i + 1);
  }

  private String boundary(int i) {
    // Effective partition keys (hash v2) have their top two bits clear: they lie below "40".
    return String.format(Locale.ROOT, "%02X", i * 0x40 / count) + "0".repeat(30);
  }

  /**
   * The range an {@code x-ms-documentdb-partitionkeyrangeid} header names ({@code "1"} or {@code
   * "collRid,1"}).
   *
   * @throws CosmosError 400 naming the header when it names no range of this container
   */
  int parse(String header) {
    String id = header.substring(header.lastIndexOf(',') + 1).trim();
    try {
      int i = Integer.parseInt(id);
      if (i >= 0 && i < count) {
        return i;
      }
    } catch (NumberFormatException e) {
      // fall through to the error below
    }
    throw CosmosError.badRequest(
        "Partition key range '"
            + header
            + "' does not exist: this container has "
            + (count == 1 ? "one range, '0'" : count + " ranges, '0' to '" + (count - 1) + "'")
            + ".");
  }

  /** Adds one {@code PartitionKeyRange} resource per range to {@code out}. */
  void writeTo(ArrayNode out, Container c) {
    long ts = c.properties().path("_ts").asLong();
    for (int i = 0; i < count; i++) {
      var range = out.addObject();
      String rangeRid = Rids.text(Rids.partitionKeyRange(c.ridBytes, i + 1));
      range.put("_rid", rangeRid);
      range.put("id", Integer.toString(i));
      range.put(
          "_etag", "\"00000000-0000-0000-0000-00000000000" + Integer.toHexString(i % 16) + "\"");
      range.put("minInclusive", minInclusive(i));
      range.put("maxExclusive", maxExclusive(i));
      range.put("ridPrefix", i);
      range.put(
          "_self", "dbs/" + c.database.rid + "/colls/" + c.rid + "/pkranges/" + rangeRid + "/");
      range.put("throughputFraction", 1.0 / count);
      range.put("status", "online");
      range.putArray("parents");
      range.put("_ts", ts);
      range.put("_lsn", 1);
    }
  }
}
