package io.idemworker.servicebus.processor;

import io.idemworker.core.IncomingMessage;
import io.idemworker.servicebus.sessions.SessionSettings;
import io.idemworker.servicebus.sessions.SessionWorker;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * Session mode for a plain {@link ServiceBusWorker} ({@link ServiceBusWorker#withSessions}): the
 * SDK's session processor holds up to {@code maxConcurrentSessions} sessions at once and hands each
 * one message at a time, so one session's messages apply in order while different sessions run in
 * parallel. Enough for a consumer that needs neither session state nor deferral (the topic
 * consumers); a consumer that waits for missing versions runs a {@link SessionWorker}.
 *
 * @param maxConcurrentSessions sessions held at once, 1–1000
 * @param idleTimeout how long a session with nothing to receive is kept before the processor moves
 *     to the next one
 * @param owner the id a message's {@code SessionId} must equal (the session key its body names),
 *     when the body tells; a message whose {@code SessionId} differs is dead-lettered as {@link
 *     #SESSION_ID_MISMATCH}. Must not throw; stateless.
 * @param keyName the owner's name in the message contract, for dead-letter descriptions
 */
public record ProcessorSessions(
    int maxConcurrentSessions,
    Duration idleTimeout,
    Function<IncomingMessage, Optional<String>> owner,
    String keyName) {

  /**
   * The reason a message in the wrong session is dead-lettered with, as in {@link SessionWorker}.
   */
  public static final io.idemworker.core.DeadLetterReason SESSION_ID_MISMATCH =
      SessionSettings.SESSION_ID_MISMATCH;

  /** Checks every value. */
  public ProcessorSessions {
    if (maxConcurrentSessions < 1 || maxConcurrentSessions > 1000) {
      throw new IllegalArgumentException(
          "maxConcurrentSessions must be 1-1000, was " + maxConcurrentSessions);
    }
    Objects.requireNonNull(idleTimeout, "idleTimeout");
    Objects.requireNonNull(owner, "owner");
    if (idleTimeout.isNegative() || idleTimeout.isZero()) {
      throw new IllegalArgumentException("the session idle timeout must be > 0");
    }
    if (keyName == null || keyName.isBlank()) {
      throw new IllegalArgumentException("keyName must not be blank");
    }
  }

  /**
   * Session mode with session mode's settings: its sessions at once and idle timeout (the gap and
   * parking settings do not apply: nothing waits).
   *
   * @param settings sessions at once, the idle timeout and the session key's name
   * @param owner the id a message's {@code SessionId} must equal
   * @return the session mode
   */
  public static ProcessorSessions of(
      SessionSettings settings, Function<IncomingMessage, Optional<String>> owner) {
    return new ProcessorSessions(
        settings.maxConcurrentSessions(),
        settings.sessionIdleTimeout(),
        owner,
        settings.sessionKeyName());
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
