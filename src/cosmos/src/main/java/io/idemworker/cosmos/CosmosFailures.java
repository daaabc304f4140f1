package io.idemworker.cosmos;

import com.azure.cosmos.CosmosException;
import io.idemworker.core.StoreFailure;
import io.idemworker.core.StoreFailure.Kind;

/**
 * Classifies Cosmos DB status codes. What is transient and what is our own misconfiguration is
 * listed explicitly; any other 5xx is transient too, and any other status is a permanent refusal of
 * this write.
 */
final class CosmosFailures {
  /** Substatus of a 404 that means the container or database itself is missing. */
  static final int OWNER_RESOURCE_NOT_FOUND = 1003;

  /** Substatus of a 403 that a region answers while writes move to another region (failover). */
  static final int WRITE_FORBIDDEN = 3;

  private CosmosFailures() {}

  static Kind classify(int statusCode, int subStatusCode) {
    if (statusCode == 403 && subStatusCode == WRITE_FORBIDDEN) {
      return Kind.TRANSIENT;
    }
    return switch (statusCode) {
      case 0, 408, 410, 429, 449, 500, 502, 503, 504 -> Kind.TRANSIENT;
      case 401, 403 -> Kind.MISCONFIGURATION;
      // A batch or point read addresses an existing container: 404 there means the container or
      // database is missing, which is deployment, not the message.
      case 404 -> Kind.MISCONFIGURATION;
      default -> statusCode >= 500 ? Kind.TRANSIENT : Kind.PERMANENT;
    };
  }

  static StoreFailure of(CosmosException e) {
    return new StoreFailure(
        classify(e.getStatusCode(), e.getSubStatusCode()),
        e.getStatusCode(),
        describe(e.getStatusCode(), e.getSubStatusCode()));
  }

  static StoreFailure of(int statusCode, int subStatusCode, String what) {
    return new StoreFailure(
        classify(statusCode, subStatusCode),
        statusCode,
        what + ": " + describe(statusCode, subStatusCode));
  }

  static StoreFailure noResponse(RuntimeException e) {
    return new StoreFailure(
        Kind.TRANSIENT, 0, "no response from Cosmos DB (" + e.getClass().getSimpleName() + ")");
  }

  private static String describe(int statusCode, int subStatusCode) {
    String name =
        switch (statusCode) {
          case 400 -> "bad request";
          case 401 -> "unauthorized: check the account key or the identity's data-plane role";
          case 403 -> "forbidden: the identity lacks a Cosmos DB data-plane role assignment";
          case 404 -> "not found: check that the database and the container exist";
          case 408 -> "request timeout";
          case 409 -> "conflict";
          case 410 -> "gone";
          case 412 -> "precondition failed";
          case 413 -> "entity too large";
          case 429 -> "throttled after the SDK's retries";
          case 449 -> "retry with";
          case 503 -> "service unavailable";
          default -> "status " + statusCode;
        };
    return subStatusCode == 0 ? name : name + " (substatus " + subStatusCode + ")";
  }
}
