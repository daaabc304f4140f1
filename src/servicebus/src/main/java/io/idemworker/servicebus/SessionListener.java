package io.idemworker.servicebus;

/**
 * Hears what session mode does beyond the flow's outcomes, for metrics ({@link SessionEvents}
 * forwards each event here after logging and counting it). Called on a session thread;
 * implementations must be fast and must not throw.
 */
@FunctionalInterface
public interface SessionListener {

  /** What happened; each is one count of the unit it names. */
  enum Event {
    /** A message deferred because its predecessor version had not applied. */
    DEFERRED,
    /** A deferred message received again and settled after the flow ran it. */
    APPLIED_AFTER_WAITING,
    /** A gap given up ({@code WORKER_GAP_TIMEOUT}, or too many messages waiting). */
    GAP_GIVEN_UP,
    /** An order parked behind a dead-lettered message. */
    PARKED,
    /** A message deferred behind a parked order's dead-lettered one. */
    PARKED_BEHIND,
    /** A parked order whose dead-lettered message came back and went through. */
    RELEASED,
    /**
     * A parked order whose waiting messages were dead-lettered past {@code WORKER_PARK_MAX_AGE}.
     */
    PARKING_EXPIRED,
    /** A message that stopped because its session's lock was gone ({@code LOCK_LOST}). */
    LOCK_LOST
  }

  /**
   * One event happened.
   *
   * @param event what
   */
  void happened(Event event);

  /**
   * A listener that does nothing.
   *
   * @return the listener
   */
  static SessionListener none() {
    return event -> {};
  }
}
