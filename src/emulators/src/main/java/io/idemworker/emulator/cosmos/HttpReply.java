package io.idemworker.emulator.cosmos;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A response under construction: status, headers in order, optional body, request charge. Not
 * thread-safe: built and sent by the thread serving its request.
 */
final class HttpReply {
  final int status;
  final byte[] body;
  final double charge;
  final Map<String, String> headers = new LinkedHashMap<>();

  HttpReply(int status, byte[] body, double charge) {
    this.status = status;
    this.body = body;
    this.charge = charge;
  }

  HttpReply header(String name, String value) {
    headers.put(name, value);
    return this;
  }

  /** Adds the session headers of container {@code c} at {@code lsn}: token, LSN, content paths. */
  HttpReply withSession(Container c, long lsn) {
    return withSessionToken(c, lsn)
        .header("x-ms-content-path", c.rid)
        .header("x-ms-alt-content-path", c.altContentPath);
  }

  /**
   * Adds the session token and LSN of container {@code c} at {@code lsn} but no content paths, as
   * the service answers a failed item operation or a failed transactional batch: the SDK reads
   * {@code x-ms-content-path} as the resource's owner id, which a failure has none of.
   */
  HttpReply withSessionToken(Container c, long lsn) {
    if (c.ranges.count() == 1) {
      // With several ranges the answer names one only when the request did (queries, change
      // feed): the SDK refreshes its range cache when the range it resolved is not the one named.
      header("x-ms-documentdb-partitionkeyrangeid", "0");
    }
    return header("x-ms-session-token", "0:-1#" + lsn).header("lsn", Long.toString(lsn));
  }
}
