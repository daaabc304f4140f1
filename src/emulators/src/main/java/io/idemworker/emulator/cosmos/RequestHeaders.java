package io.idemworker.emulator.cosmos;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Locale;
import java.util.Optional;

/** What the Cosmos DB headers of a request ask for. Stateless. */
final class RequestHeaders {
  private RequestHeaders() {}

  /** Whether header {@code name} is {@code true} (any case). */
  static boolean isTrue(HttpRequest h, String name) {
    return "true".equalsIgnoreCase(h.getFirst(name));
  }

  /** Whether the request is a query or a query-plan request. */
  static boolean isQuery(HttpRequest h) {
    String contentType = Optional.ofNullable(h.getFirst("Content-Type")).orElse("");
    return isTrue(h, "x-ms-documentdb-isquery")
        || isTrue(h, "x-ms-cosmos-is-query-plan-request")
        || contentType.startsWith("application/query+json");
  }

  /** Whether the client asked for an answer without the item ({@code Prefer: return=minimal}). */
  static boolean minimal(HttpRequest h) {
    String prefer = h.getFirst("Prefer");
    return prefer != null && prefer.toLowerCase(Locale.ROOT).contains("return=minimal");
  }

  /**
   * The canonical partition key of a single-component {@code x-ms-documentdb-partitionkey}.
   *
   * @throws CosmosError 400 when it is absent or malformed
   */
  static String partitionKey(ObjectMapper mapper, HttpRequest h) {
    return PartitionKeys.fromHeader(mapper, h.getFirst("x-ms-documentdb-partitionkey"), 1);
  }
}
