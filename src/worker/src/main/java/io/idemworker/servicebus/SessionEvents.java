package io.idemworker.servicebus;

import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What session mode does beyond the flow's outcomes, logged and counted: messages deferred while a
 * version is missing, gaps given up, and messages applied after waiting. Logs carry the session
 * (order) id and versions, never payloads. Thread-safe; tests in this package extend it to wait for
 * an event.
 */
public class SessionEvents {
  private static final Logger LOG = LoggerFactory.getLogger(SessionWorker.class);

  private final AtomicLong deferred = new AtomicLong();
  private final AtomicLong parked = new AtomicLong();
  private final AtomicLong released = new AtomicLong();
  private final AtomicLong gapsGivenUp = new AtomicLong();
  private final AtomicLong appliedAfterWaiting = new AtomicLong();

  void deferred(String sessionId, long version, long applied) {
    deferred.incrementAndGet();
    LOG.info(
        "order {}: version {} deferred until version {} applies", sessionId, version, applied + 1);
  }

  void gapGivenUp(String sessionId, long missing, int waiting, String why) {
    gapsGivenUp.incrementAndGet();
    LOG.warn(
        "order {}: gap given up, version {} never came ({}); {} waiting message(s) apply as"
            + " outside session mode",
        sessionId,
        missing,
        why,
        waiting);
  }

  void appliedAfterWaiting(String sessionId, long version) {
    appliedAfterWaiting.incrementAndGet();
    LOG.debug("order {}: version {} applied after waiting", sessionId, version);
  }

  void parked(String sessionId, String messageId, String reason) {
    parked.incrementAndGet();
    LOG.warn(
        "order {}: parked behind message {} dead-lettered as {}; later messages wait for"
            + " 'dlq release' or 'dlq discard'",
        sessionId,
        messageId,
        reason);
  }

  void parkedBehind(String sessionId, String messageId) {
    LOG.info("order {}: message {} parked", sessionId, messageId);
  }

  void released(String sessionId, int messages) {
    released.incrementAndGet();
    LOG.info("order {}: released; {} parked message(s) apply in their order", sessionId, messages);
  }

  /**
   * Parked orders whose dead-lettered message came back and went through.
   *
   * @return the count since start
   */
  public long releasedCount() {
    return released.get();
  }

  void parkingExpired(String sessionId, int messages) {
    LOG.warn(
        "order {}: parked longer than WORKER_PARK_MAX_AGE; {} parked message(s) dead-lettered as"
            + " ParkingBoundExceeded",
        sessionId,
        messages);
  }

  /**
   * Orders parked behind a dead-lettered message.
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
   * Gaps given up ({@code WORKER_GAP_TIMEOUT}, or too many messages waiting).
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
