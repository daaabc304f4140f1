package io.idemworker.emulator.cosmos;

/**
 * One stored document version: its system properties and its full JSON as served.
 *
 * @param ttl the item's own {@code ttl} in seconds ({@code -1} = never), or null when absent
 * @param lsn the container's logical sequence number of the write that stored this version; 0 until
 *     the write commits
 * @param previousLsn the LSN of the version this one replaced, 0 when it was created (or until it
 *     commits)
 */
record StoredItem(
    String id,
    String rid,
    String etag,
    long ts,
    Integer ttl,
    byte[] json,
    long lsn,
    long previousLsn) {
  StoredItem(String id, String rid, String etag, long ts, Integer ttl, byte[] json) {
    this(id, rid, etag, ts, ttl, json, 0, 0);
  }

  /** This version as committed at {@code committedLsn}, replacing {@code previous} (or null). */
  StoredItem committedAt(long committedLsn, StoredItem previous) {
    return new StoredItem(
        id, rid, etag, ts, ttl, json, committedLsn, previous == null ? 0 : previous.lsn());
  }
}
