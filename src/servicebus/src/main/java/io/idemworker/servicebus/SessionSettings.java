package io.idemworker.servicebus;

import java.time.Duration;
import java.util.Objects;

/**
 * Session mode's own settings ({@code SERVICEBUS_SESSIONS=true}). Validates itself; messages name
 * the environment variable each value comes from.
 *
 * @param maxConcurrentSessions sessions (orders) held at once, each handled one message at a time,
 *     1–1000 ({@code WORKER_MAX_CONCURRENT_SESSIONS})
 * @param sessionIdleTimeout how long a session with nothing to receive is kept before it is
 *     released for the next one (a session with a version gap open is kept until the gap fills or
 *     times out)
 * @param gapTimeout how long a status change waits for its missing predecessor before the gap is
 *     given up and the waiting ones apply as outside session mode ({@code WORKER_GAP_TIMEOUT})
 * @param maxWaiting the most messages one session keeps deferred (waiting for a gap or parked
 *     behind a dead-lettered one); past it they are dead-lettered with their own reason ({@code
 *     WORKER_PARK_MAX_MESSAGES})
 * @param maxParkedAge how long an order stays parked before the messages waiting behind its
 *     dead-lettered one are dead-lettered with their own reason ({@code WORKER_PARK_MAX_AGE})
 */
public record SessionSettings(
    int maxConcurrentSessions,
    Duration sessionIdleTimeout,
    Duration gapTimeout,
    int maxWaiting,
    Duration maxParkedAge) {

  /** Checks every value. */
  public SessionSettings {
    if (maxConcurrentSessions < 1 || maxConcurrentSessions > 1000) {
      throw new IllegalArgumentException(
          "WORKER_MAX_CONCURRENT_SESSIONS must be 1-1000, was " + maxConcurrentSessions);
    }
    Objects.requireNonNull(sessionIdleTimeout, "sessionIdleTimeout");
    Objects.requireNonNull(gapTimeout, "gapTimeout");
    Objects.requireNonNull(maxParkedAge, "maxParkedAge");
    if (sessionIdleTimeout.isNegative() || sessionIdleTimeout.isZero()) {
      throw new IllegalArgumentException("the session idle timeout must be > 0");
    }
    if (gapTimeout.isNegative()) {
      throw new IllegalArgumentException("WORKER_GAP_TIMEOUT must not be negative");
    }
    if (maxWaiting < 1 || maxWaiting > 1000) {
      throw new IllegalArgumentException(
          "WORKER_PARK_MAX_MESSAGES must be 1-1000, was " + maxWaiting);
    }
    if (maxParkedAge.isNegative() || maxParkedAge.isZero()) {
      throw new IllegalArgumentException("WORKER_PARK_MAX_AGE must be > 0");
    }
  }

  /**
   * Defaults: 8 sessions, released after 200 ms idle (an idle session holds a slot that another
   * order could use: with 1 s, 200 orders of 5 messages at 8 sessions took 25 s of waiting alone),
   * gaps given up after 5 minutes, at most 100 waiting messages per order, parked for at most a day
   * (less than the queue's default message time to live, P6D, which deferred messages are subject
   * to).
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
        maxConcurrentSessions, sessionIdleTimeout, timeout, maxWaiting, maxParkedAge);
  }

  /**
   * A copy with another number of concurrent sessions.
   *
   * @param sessions the sessions
   * @return the copy
   */
  public SessionSettings withMaxConcurrentSessions(int sessions) {
    return new SessionSettings(sessions, sessionIdleTimeout, gapTimeout, maxWaiting, maxParkedAge);
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
        maxConcurrentSessions, sessionIdleTimeout, gapTimeout, messages, age);
  }
}
