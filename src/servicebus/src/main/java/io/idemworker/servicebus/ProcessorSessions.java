package io.idemworker.servicebus;

import io.idemworker.core.IncomingMessage;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * Session mode for a plain {@link ServiceBusWorker} ({@link ServiceBusWorker#withSessions}): the
 * SDK's session processor holds up to {@code maxConcurrentSessions} sessions at once and hands each
 * one message at a time, so one session's messages apply in order while different sessions run in
 * parallel. Enough for a consumer that needs neither session state nor deferral (the topic
 * consumers); the order worker, which waits for missing versions, runs a {@link SessionWorker}.
 *
 * @param maxConcurrentSessions sessions held at once, 1–1000 ({@code
 *     WORKER_MAX_CONCURRENT_SESSIONS})
 * @param idleTimeout how long a session with nothing to receive is kept before the processor moves
 *     to the next one
 * @param owner the id a message's {@code SessionId} must equal (the order id its body names), when
 *     the body tells; a message whose {@code SessionId} differs is dead-lettered as {@link
 *     #SESSION_ID_MISMATCH}. Must not throw; stateless.
 */
public record ProcessorSessions(
    int maxConcurrentSessions,
    Duration idleTimeout,
    Function<IncomingMessage, Optional<String>> owner) {

  /** The reason a message in the wrong session is dead-lettered with, as in the order worker. */
  public static final io.idemworker.core.DeadLetterReason SESSION_ID_MISMATCH =
      OrderSession.SESSION_ID_MISMATCH;

  /** Checks every value. */
  public ProcessorSessions {
    if (maxConcurrentSessions < 1 || maxConcurrentSessions > 1000) {
      throw new IllegalArgumentException(
          "WORKER_MAX_CONCURRENT_SESSIONS must be 1-1000, was " + maxConcurrentSessions);
    }
    Objects.requireNonNull(idleTimeout, "idleTimeout");
    Objects.requireNonNull(owner, "owner");
    if (idleTimeout.isNegative() || idleTimeout.isZero()) {
      throw new IllegalArgumentException("the session idle timeout must be > 0");
    }
  }

  /**
   * Session mode with session mode's settings: its sessions at once and idle timeout (the gap and
   * parking settings do not apply: nothing waits).
   *
   * @param settings {@code WORKER_MAX_CONCURRENT_SESSIONS} and the idle timeout
   * @param owner the id a message's {@code SessionId} must equal
   * @return the session mode
   */
  public static ProcessorSessions of(
      SessionSettings settings, Function<IncomingMessage, Optional<String>> owner) {
    return new ProcessorSessions(
        settings.maxConcurrentSessions(), settings.sessionIdleTimeout(), owner);
  }

  /**
   * Whether a delivery sits in the session its body names.
   *
   * @param message the delivery
   * @param sessionId its {@code SessionId}, null when it has none
   * @return the owner it should have been in, when it sits in another session
   */
  Optional<String> misplaced(IncomingMessage message, String sessionId) {
    Optional<String> expected;
    try {
      expected = owner.apply(message);
    } catch (RuntimeException e) {
      // A body the flow cannot read is the flow's to dead-letter, with its own reason.
      return Optional.empty();
    }
    return expected.filter(id -> !id.equals(sessionId));
  }
}
