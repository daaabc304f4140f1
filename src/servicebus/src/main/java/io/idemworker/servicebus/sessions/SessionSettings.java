package io.idemworker.servicebus.sessions;

import io.idemworker.core.DeadLetterReason;
import java.time.Duration;
import java.util.Objects;

/**
 * Session mode's own settings. Validates itself; messages name the component that is wrong.
 *
 * @param maxConcurrentSessions sessions (entities) held at once, each handled one message at a
 *     time, 1–1000
 * @param sessionIdleTimeout how long a session with nothing to receive is kept before it is
 *     released for the next one (a session with a version gap open is kept until the gap fills or
 *     times out)
 * @param gapTimeout how long a status change waits for its missing predecessor before the gap is
 *     given up and the waiting ones apply as outside session mode
 * @param maxWaiting the most messages one session keeps deferred (waiting for a gap or parked
 *     behind a dead-lettered one), 1–1000; past it they are dead-lettered with their own reason
 * @param maxParkedAge how long a session stays parked before the messages waiting behind its
 *     dead-lettered one are dead-lettered with their own reason
 * @param sessionKeyName what producers set {@code SessionId} to, as the message contract names it
 *     (a body field such as {@code shipmentId}); dead-letter descriptions name it
 */
public record SessionSettings(
    int maxConcurrentSessions,
    Duration sessionIdleTimeout,
    Duration gapTimeout,
    int maxWaiting,
    Duration maxParkedAge,
    String sessionKeyName) {

  /**
   * The reason a message whose {@code SessionId} is not the session key its body names is
   * dead-lettered with, before the flow runs it.
   */
  public static final DeadLetterReason SESSION_ID_MISMATCH =
      new DeadLetterReason("SessionIdMismatch");

  /** The session key's name when none is given. */
  public static final String DEFAULT_SESSION_KEY_NAME = "session key";

  /** Checks every value. */
  public SessionSettings {
    if (maxConcurrentSessions < 1 || maxConcurrentSessions > 1000) {
      throw new IllegalArgumentException(
          "maxConcurrentSessions must be 1-1000, was " + maxConcurrentSessions);
    }
    Objects.requireNonNull(sessionIdleTimeout, "sessionIdleTimeout");
    Objects.requireNonNull(gapTimeout, "gapTimeout");
    Objects.requireNonNull(maxParkedAge, "maxParkedAge");
    if (sessionIdleTimeout.isNegative() || sessionIdleTimeout.isZero()) {
      throw new IllegalArgumentException("the session idle timeout must be > 0");
    }
    if (gapTimeout.isNegative()) {
      throw new IllegalArgumentException("gapTimeout must not be negative");
    }
    if (maxWaiting < 1 || maxWaiting > 1000) {
      throw new IllegalArgumentException("maxWaiting must be 1-1000, was " + maxWaiting);
    }
    if (maxParkedAge.isNegative() || maxParkedAge.isZero()) {
      throw new IllegalArgumentException("maxParkedAge must be > 0");
    }
    if (sessionKeyName == null || sessionKeyName.isBlank()) {
      throw new IllegalArgumentException("sessionKeyName must not be blank");
    }
  }

  /**
   * Settings whose dead-letter descriptions call the session key {@value
   * #DEFAULT_SESSION_KEY_NAME}.
   *
   * @param maxConcurrentSessions sessions held at once, 1–1000
   * @param sessionIdleTimeout how long an idle session is kept
   * @param gapTimeout how long a missing predecessor is waited for
   * @param maxWaiting the most messages one session keeps deferred, 1–1000
   * @param maxParkedAge how long a session stays parked
   */
  public SessionSettings(
      int maxConcurrentSessions,
      Duration sessionIdleTimeout,
      Duration gapTimeout,
      int maxWaiting,
      Duration maxParkedAge) {
    this(
        maxConcurrentSessions,
        sessionIdleTimeout,
        gapTimeout,
        maxWaiting,
        maxParkedAge,
        DEFAULT_SESSION_KEY_NAME);
  }

  /**
   * Defaults: 8 sessions, released after 200 ms idle (an idle session holds a slot that another
   * session could use: with 1 s, 200 sessions of 5 messages at 8 sessions took 25 s of waiting
   * alone), gaps given up after 5 minutes, at most 100 waiting messages per session, parked for at
   * most a day (less than the queue's default message time to live, P6D, which deferred messages
   * are subject to).
   *
   * @return the settings
   */
  public static SessionSettings defaults() {
    return new SessionSettings(
        8, Duration.ofMillis(200), Duration.ofMinutes(5), 100, Duration.ofDays(1));
  }

  /**
   * A copy with another gap timeout.
   *
   * @param timeout the timeout
   * @return the copy
   */
  public SessionSettings withGapTimeout(Duration timeout) {
    return new SessionSettings(
        maxConcurrentSessions,
        sessionIdleTimeout,
        timeout,
        maxWaiting,
        maxParkedAge,
        sessionKeyName);
  }

  /**
   * A copy with another number of concurrent sessions.
   *
   * @param sessions the sessions
   * @return the copy
   */
  public SessionSettings withMaxConcurrentSessions(int sessions) {
    return new SessionSettings(
        sessions, sessionIdleTimeout, gapTimeout, maxWaiting, maxParkedAge, sessionKeyName);
  }

  /**
   * A copy with other parking bounds.
   *
   * @param messages the most waiting messages
   * @param age the longest parking
   * @return the copy
   */
  public SessionSettings withParkingBounds(int messages, Duration age) {
    return new SessionSettings(
        maxConcurrentSessions, sessionIdleTimeout, gapTimeout, messages, age, sessionKeyName);
  }

  /**
   * A copy whose dead-letter descriptions name the session key as the message contract does.
   *
   * @param name e.g. the body field producers copy into {@code SessionId}
   * @return the copy
   */
  public SessionSettings withSessionKeyName(String name) {
    return new SessionSettings(
        maxConcurrentSessions, sessionIdleTimeout, gapTimeout, maxWaiting, maxParkedAge, name);
  }
}
