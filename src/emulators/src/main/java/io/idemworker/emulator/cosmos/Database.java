package io.idemworker.emulator.cosmos;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** A database: its system properties and its containers by name and by RID. */
final class Database {
  final String id;
  final byte[] ridBytes;
  final String rid;
  final long ts;
  final String etag;
  final ConcurrentHashMap<String, Container> containersByName = new ConcurrentHashMap<>();
  final ConcurrentHashMap<String, Container> containersByRid = new ConcurrentHashMap<>();
  final AtomicInteger containerNumbers = new AtomicInteger();

  Database(String id, byte[] ridBytes, long ts, String etag) {
    this.id = id;
    this.ridBytes = ridBytes;
    this.rid = Rids.text(ridBytes);
    this.ts = ts;
    this.etag = etag;
  }
}
