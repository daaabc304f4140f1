package io.idemworker.relay;

/**
 * Why a relay cycle stopped: Cosmos DB or the topic failed. Transient failures are retried on the
 * next cycle; a misconfiguration (no permission, missing topic or container) also is, but makes the
 * relay report not ready until a cycle succeeds.
 */
final class RelayFailure extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** What kind of failure. */
  enum Kind {
    TRANSIENT,
    MISCONFIGURATION
  }

  private final Kind kind;

  RelayFailure(Kind kind, String message, Throwable cause) {
    super(message, cause);
    this.kind = kind;
  }

  Kind kind() {
    return kind;
  }
}
