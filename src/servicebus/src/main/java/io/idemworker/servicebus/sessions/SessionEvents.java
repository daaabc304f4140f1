package io.idemworker.servicebus.sessions;

import io.idemworker.servicebus.sessions.SessionListener.Event;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What session mode does beyond the flow's outcomes, logged, counted in process and passed to a
 * {@link SessionListener} (the worker's OpenTelemetry counters): messages deferred while a version
 * is missing, gaps given up, messages applied after waiting, parked and released sessions, and
 * messages stopped by a lost session lock. Logs carry the session id and versions, never payloads.
 * Thread-safe; tests in this package extend it to wait for an event.
 */
public class SessionEvents {
  private static final Logger LOG = LoggerFactory.getLogger(SessionWorker.class);

  private final SessionListener listener;

  private final AtomicLong deferred = new AtomicLong();
  private final AtomicLong parked = new AtomicLong();
  private final AtomicLong released = new AtomicLong();
  private final AtomicLong gapsGivenUp = new AtomicLong();
  private final AtomicLong appliedAfterWaiting = new AtomicLong();
  private final AtomicLong locksLost = new AtomicLong();

  /** Events counted in process only. */
  public SessionEvents() {
    this(SessionListener.none());
  }

  /**
   * Events counted in process and passed on.
   *
   * @param listener hears every event, after it is logged and counted
   */
  public SessionEvents(SessionListener listener) {
    this.listener = Objects.requireNonNull(listener, "listener");
  }

  private void tell(Event event) {
    try {
      listener.happened(event);
    } catch (RuntimeException e) {
      LOG.debug("session listener failed on {}: {}", event, e.toString());
    }
  }

  void deferred(String sessionId, long version, long applied) {
    deferred.incrementAndGet();
    tell(Event.DEFERRED);
    LOG.info(
        "session {}: version {} deferred until version {} applies",
        sessionId,
        version,
        applied + 1);
  }

  void gapGivenUp(String sessionId, long missing, int waiting, String why) {
    gapsGivenUp.incrementAndGet();
    tell(Event.GAP_GIVEN_UP);
    LOG.warn(
        "session {}: gap given up, version {} never came ({}); {} waiting message(s) apply as"
            + " outside session mode",
        sessionId,
        missing,
        why,
        waiting);
  }

  void appliedAfterWaiting(String sessionId, long version) {
    appliedAfterWaiting.incrementAndGet();
    tell(Event.APPLIED_AFTER_WAITING);
    LOG.debug("session {}: version {} applied after waiting", sessionId, version);
  }

  void parked(String sessionId, String messageId, String reason) {
    parked.incrementAndGet();
    tell(Event.PARKED);
    LOG.warn(
        "session {}: parked behind message {} dead-lettered as {}; later messages wait for"
            + " 'dlq release' or 'dlq discard'",
        sessionId,
        messageId,
        reason);
  }

  void parkedBehind(String sessionId, String messageId) {
    tell(Event.PARKED_BEHIND);
    LOG.info("session {}: message {} parked", sessionId, messageId);
  }

  void released(String sessionId, int messages) {
    released.incrementAndGet();
    tell(Event.RELEASED);
    LOG.info(
        "session {}: released; {} parked message(s) apply in their order", sessionId, messages);
  }

  /**
   * Parked sessions whose dead-lettered message came back and went through.
   *
   * @return the count since start
   */
  public long releasedCount() {
    return released.get();
  }

  void parkingExpired(String sessionId, int messages) {
    tell(Event.PARKING_EXPIRED);
    LOG.warn(
        "session {}: parked longer than maxParkedAge; {} parked message(s) dead-lettered as"
            + " ParkingBoundExceeded",
        sessionId,
        messages);
  }

  void lockLost(String sessionId, String messageId, String key, long deliveryCount) {
    locksLost.incrementAndGet();
    tell(Event.LOCK_LOST);
    LOG.warn(
        "session {}: message {} (key {}, delivery count {}): session lock lost before the handler"
            + " finished; it stopped before its next write or call, settles nothing, and the"
            + " session is released",
        sessionId,
        messageId,
        key,
        deliveryCount);
  }

  /**
   * Messages stopped because their session's lock was gone ({@code LOCK_LOST}).
   *
   * @return the count since start
   */
  public long locksLostCount() {
    return locksLost.get();
  }

  /**
   * Sessions parked behind a dead-lettered message.
   *
   * @return the count since start
   */
  public long parkedCount() {
    return parked.get();
  }

  /**
   * Messages deferred because their predecessor version had not applied.
   *
   * @return the count since start
   */
  public long deferredCount() {
    return deferred.get();
  }

  /**
   * Gaps given up ({@link SessionSettings#gapTimeout()} passed, or too many messages waiting).
   *
   * @return the count since start
   */
  public long gapsGivenUp() {
    return gapsGivenUp.get();
  }

  /**
   * Deferred messages received again and settled after the flow ran them.
   *
   * @return the count since start
   */
  public long appliedAfterWaitingCount() {
    return appliedAfterWaiting.get();
  }
}
