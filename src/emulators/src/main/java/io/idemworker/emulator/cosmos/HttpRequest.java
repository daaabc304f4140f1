package io.idemworker.emulator.cosmos;

import java.util.Locale;
import java.util.Map;

/**
 * One parsed HTTP/1.1 request: method, raw path (query removed), headers by lower-cased name (first
 * value wins), the whole body, and when its first line arrived ({@link System#nanoTime()}: the
 * start of its response time).
 */
record HttpRequest(
    String method, String rawPath, Map<String, String> headers, byte[] body, long arrivedNanos) {
  /** The first value of header {@code name} (any case), or null. */
  String getFirst(String name) {
    return headers.get(name.toLowerCase(Locale.ROOT));
  }
}
