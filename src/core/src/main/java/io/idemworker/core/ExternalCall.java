package io.idemworker.core;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Objects;

/**
 * A side effect outside the store that cannot join its transaction (a provider's API), made
 * idempotent by the key the call passes on: the provider executes a key once and replays its stored
 * answer to every repeat. The flow records the work as in progress before the call and as
 * completed, with the answer, after it ({@link Change.TwoPhase}).
 *
 * <p>Implementations must pass the same idempotency key on every call for one message, must be
 * thread-safe, must bound each call by the timeout the change declares ({@link
 * Change.TwoPhase#callTimeout()}), and must never throw: every answer, failures included, is one of
 * the {@link Answer}s.
 */
@FunctionalInterface
public interface ExternalCall {

  /**
   * Makes the call.
   *
   * @return the classified answer
   */
  Answer call();

  /** What the other side answered. */
  sealed interface Answer permits Done, Busy, KeyReused, Unknown, Refused {}

  /**
   * The call took effect or was refused as a business outcome (a decline); either way it is final
   * and is recorded.
   *
   * @param result what to record, e.g. {@code {result: captured, providerCaptureId}}
   */
  record Done(ObjectNode result) implements Answer {
    /** Requires the result. */
    public Done {
      Objects.requireNonNull(result, "result");
    }
  }

  /**
   * The other side is executing this key right now (another attempt's call): retry later.
   *
   * @param description what it said
   */
  record Busy(String description) implements Answer {}

  /**
   * The other side has seen this key with other parameters: the key was reused.
   *
   * @param description what it said; no payloads
   */
  record KeyReused(String description) implements Answer {}

  /**
   * No answer, or one that cannot be trusted (timeout, reset connection, 5xx): the call may or may
   * not have taken effect. A retry with the same key resolves it.
   *
   * @param description what failed
   */
  record Unknown(String description) implements Answer {}

  /**
   * Our own request or credentials are wrong (401, 403, 400): no retry of this message can fix it,
   * but neither is the message at fault.
   *
   * @param description what it said
   */
  record Refused(String description) implements Answer {}
}
