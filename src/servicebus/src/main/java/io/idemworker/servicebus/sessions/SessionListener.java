package io.idemworker.servicebus.sessions;

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
    /** A gap given up (the gap timeout passed, or too many messages waiting). */
    GAP_GIVEN_UP,
    /** A session parked behind a dead-lettered message. */
    PARKED,
    /** A message deferred behind a parked session's dead-lettered one. */
    PARKED_BEHIND,
    /** A parked session whose dead-lettered message came back and went through. */
    RELEASED,
    /** A parked session whose waiting messages were dead-lettered past the parking age. */
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
