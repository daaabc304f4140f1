package io.idemworker.emulator.cosmos;

/**
 * One stored document version: its system properties and its full JSON as served.
 *
 * @param ttl the item's own {@code ttl} in seconds ({@code -1} = never), or null when absent
 * @param lsn the container's logical sequence number of the write that stored this version; 0 until
 *     the write commits
 */
record StoredItem(String id, String rid, String etag, long ts, Integer ttl, byte[] json, long lsn) {
  StoredItem(String id, String rid, String etag, long ts, Integer ttl, byte[] json) {
    this(id, rid, etag, ts, ttl, json, 0);
  }

  StoredItem committedAt(long committedLsn) {
    return new StoredItem(id, rid, etag, ts, ttl, json, committedLsn);
  }
}
