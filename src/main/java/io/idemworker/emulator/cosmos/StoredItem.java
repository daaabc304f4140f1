package io.idemworker.emulator.cosmos;

/**
 * One stored document version: its system properties and its full JSON as served.
 *
 * @param ttl the item's own {@code ttl} in seconds ({@code -1} = never), or null when absent
 */
record StoredItem(String id, String rid, String etag, long ts, Integer ttl, byte[] json) {}
