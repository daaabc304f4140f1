package io.idemworker.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.core.DeadLetterReason;
import io.idemworker.core.Outcome;
import io.idemworker.core.RequestRecords;
import io.idemworker.core.StoreFailure;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The one place where the sealed results of {@code core} ({@link Outcome}, {@link
 * RequestRecords.Claim}) become HTTP statuses:
 *
 * <table>
 *   <caption>status mapping</caption>
 *   <tr><th>result</th><th>answer</th><th>stored for replay</th></tr>
 *   <tr><td>Processed</td><td>201 + {@code Location} + the order</td><td>yes</td></tr>
 *   <tr><td>Duplicate (the order existed: an earlier attempt, or the queue)</td>
 *       <td>201 + {@code Location} + the order + {@code Idempotent-Replayed: true}</td><td>yes</td></tr>
 *   <tr><td>Replay of a stored answer</td><td>that answer + {@code Idempotent-Replayed: true}</td>
 *       <td>-</td></tr>
 *   <tr><td>DeadLettered IdempotencyConflict (the orderId holds another order)</td>
 *       <td>422 {@code OrderConflict}</td><td>yes</td></tr>
 *   <tr><td>DeadLettered, other reasons (validation)</td>
 *       <td>400 problem with the dead-letter reason code and description</td><td>no</td></tr>
 *   <tr><td>key reused for another body (Reused)</td><td>422 {@code IdempotencyKeyReused}</td>
 *       <td>-</td></tr>
 *   <tr><td>a request with the key in flight (InFlight)</td><td>409 + {@code Retry-After}</td>
 *       <td>-</td></tr>
 *   <tr><td>Retry, or a transient store failure</td><td>503 + {@code Retry-After}</td><td>no</td></tr>
 *   <tr><td>permanent store failure, Stale (cannot happen for an order)</td><td>500</td>
 *       <td>no</td></tr>
 * </table>
 *
 * <p>Problem bodies are RFC 9457 ({@code application/problem+json}) with the reason code as an
 * extension member; details name fields and rules, never values or exception text.
 */
final class IntakeAnswers {
  /** The header that marks an answer this request did not produce afresh. */
  static final String REPLAYED_HEADER = "Idempotent-Replayed";

  /** How long a client should wait after a transient failure. */
  static final Duration TRANSIENT_WAIT = Duration.ofSeconds(1);

  /** How long a client should wait while the service's own configuration is broken. */
  static final Duration MISCONFIGURED_WAIT = Duration.ofSeconds(30);

  private IntakeAnswers() {}

  /**
   * What a handled request ends as.
   *
   * @param answer the answer
   * @param keep whether it is stored with the key for replay
   * @param replayed whether the order existed before this request
   */
  record Decided(HttpAnswer answer, boolean keep, boolean replayed) {
    /** Requires the answer. */
    Decided {
      Objects.requireNonNull(answer, "answer");
    }
  }

  /** The store could not be read; the caller answers 503. */
  static final class StoreUnavailable extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final transient StoreFailure failure;

    StoreUnavailable(StoreFailure failure) {
      super(failure.description(), null, false, false);
      this.failure = failure;
    }

    StoreFailure failure() {
      return failure;
    }
  }

  static HttpAnswer badKey(String reason, String description) {
    return HttpAnswer.problem(400, reason, "Bad Idempotency-Key", description);
  }

  static HttpAnswer invalid(DeadLetterReason reason, String description) {
    if (reason.equals(DeadLetterReason.BODY_TOO_LARGE)) {
      return HttpAnswer.problem(413, reason.code(), "Content too large", description);
    }
    return HttpAnswer.problem(400, reason.code(), "Invalid order", description);
  }

  /**
   * A claim that did not give this request the key.
   *
   * @param claim anything but {@link RequestRecords.Claimed}
   * @return the answer
   */
  static HttpAnswer unclaimed(RequestRecords.Claim claim) {
    if (claim instanceof RequestRecords.Replay replay) {
      try {
        return HttpAnswer.fromJson(replay.response()).with(REPLAYED_HEADER, "true");
      } catch (IllegalArgumentException e) {
        return failure(
            new StoreFailure(StoreFailure.Kind.PERMANENT, 200, "stored answer unreadable"));
      }
    }
    if (claim instanceof RequestRecords.InFlight inFlight) {
      return HttpAnswer.problem(
              409,
              "RequestInFlight",
              "Request in progress",
              "a request with this Idempotency-Key is still being processed; retry after it")
          .with("Retry-After", seconds(inFlight.retryAfter()));
    }
    if (claim instanceof RequestRecords.Reused reused) {
      return HttpAnswer.problem(
          422,
          "IdempotencyKeyReused",
          "Idempotency-Key reused",
          "this Idempotency-Key was used for a different request within the replay window;"
              + " differing fields: "
              + String.join(", ", reused.differingFields()));
    }
    if (claim instanceof RequestRecords.Failed failed) {
      return failure(failed.failure());
    }
    throw new IllegalArgumentException("a claimed request is answered by its outcome");
  }

  /**
   * The orderId belongs to another caller's order: 422 {@code OrderConflict} naming no field and no
   * value of that order; stored with the key like any conflict.
   *
   * @return the decision
   */
  static Decided takenByAnother() {
    return new Decided(
        HttpAnswer.problem(
            422,
            "OrderConflict",
            "Order conflict",
            "an order with this orderId already exists and is not yours; use another orderId"),
        true,
        false);
  }

  /**
   * What the worker's flow's outcome becomes.
   *
   * @param outcome the outcome of the order's write
   * @param order reads the order as the api shows it; may throw {@link StoreUnavailable}
   * @return the answer, and whether it is kept
   */
  static Decided of(Outcome outcome, Supplier<Optional<ObjectNode>> order) {
    return outcome.fold(
        processed -> created(processed.entityId(), order, false),
        duplicate -> created(duplicate.entityId(), order, true),
        stale ->
            new Decided(
                HttpAnswer.problem(
                    500, "InternalError", "Internal error", "an order has no versions"),
                false,
                false),
        dead -> deadLettered(dead),
        retry ->
            new Decided(
                HttpAnswer.problem(
                        503,
                        "ServiceUnavailable",
                        "Service unavailable",
                        "the order could not be stored now; retry with the same Idempotency-Key")
                    .with(
                        "Retry-After",
                        seconds(
                            retry
                                .retryAfter()
                                .orElse(
                                    retry.cause() == Outcome.RetryCause.MISCONFIGURATION
                                        ? MISCONFIGURED_WAIT
                                        : TRANSIENT_WAIT))),
                false,
                false));
  }

  private static Decided created(
      String orderId, Supplier<Optional<ObjectNode>> order, boolean replayed) {
    Optional<ObjectNode> shown;
    try {
      shown = order.get();
    } catch (StoreUnavailable e) {
      return new Decided(failure(e.failure()), false, false);
    }
    if (shown.isEmpty()) {
      // Written a moment ago and not readable: a store hiccup, not a client error.
      return new Decided(
          failure(new StoreFailure(StoreFailure.Kind.TRANSIENT, 404, "order not readable yet")),
          false,
          false);
    }
    HttpAnswer answer =
        new HttpAnswer(
            201,
            HttpAnswer.JSON_TYPE,
            java.util.Map.of("Location", "/orders/" + orderId),
            shown.get());
    return new Decided(answer, true, replayed);
  }

  private static Decided deadLettered(Outcome.DeadLettered dead) {
    if (dead.reason().equals(DeadLetterReason.IDEMPOTENCY_CONFLICT)) {
      return new Decided(
          HttpAnswer.problem(
              422,
              "OrderConflict",
              "Order conflict",
              "an order with this orderId already exists with other content; "
                  + dead.description().replaceFirst("^key \\S+ ", "the orderId ")),
          true,
          false);
    }
    if (dead.reason().equals(DeadLetterReason.STORE_REJECTED)) {
      return new Decided(
          HttpAnswer.problem(
              500, "StoreRejected", "Internal error", "the store refused the order's write"),
          false,
          false);
    }
    return new Decided(invalid(dead.reason(), dead.description()), false, false);
  }

  static HttpAnswer failure(StoreFailure failure) {
    return switch (failure.kind()) {
      case TRANSIENT ->
          HttpAnswer.problem(
                  503,
                  "ServiceUnavailable",
                  "Service unavailable",
                  "the store is unavailable; retry with the same Idempotency-Key")
              .with("Retry-After", seconds(TRANSIENT_WAIT));
      case MISCONFIGURATION ->
          HttpAnswer.problem(
                  503,
                  "ServiceUnavailable",
                  "Service unavailable",
                  "the service cannot reach its store; retry later with the same Idempotency-Key")
              .with("Retry-After", seconds(MISCONFIGURED_WAIT));
      case PERMANENT ->
          HttpAnswer.problem(
              500, "InternalError", "Internal error", "the store refused the request");
    };
  }

  /** Retry-After is whole seconds; round up so a client never comes back before the lease ends. */
  static String seconds(Duration wait) {
    long millis = Math.max(0, wait.toMillis());
    return Long.toString(Math.max(1, (millis + 999) / 1000));
  }
}
