package io.idemworker.core;

import java.util.Objects;

/**
 * A store call that failed, classified by the adapter at the edge so that the flow can decide
 * between retrying, pausing and dead-lettering without knowing the store's exception types.
 *
 * @param kind the class of failure
 * @param statusCode the store's status code (0 when there was no response, e.g. a timeout)
 * @param description what failed, for logs and the dead-letter description; no payloads
 */
public record StoreFailure(Kind kind, int statusCode, String description) {

  /** Requires a kind and a description. */
  public StoreFailure {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(description, "description");
  }

  /** Classes of store failure. */
  public enum Kind {
    /** Throttling, unavailability, timeouts, lost connections: retry later. */
    TRANSIENT,
    /** Our own configuration is wrong (credentials, permissions, missing container): pause. */
    MISCONFIGURATION,
    /** The store refuses this write for good (bad request, too large): dead-letter. */
    PERMANENT
  }
}
