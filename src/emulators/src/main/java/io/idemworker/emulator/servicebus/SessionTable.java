package io.idemworker.emulator.servicebus;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The sessions of one session-aware queue or subscription: for each SessionId, its available
 * messages in sequence order, the receiver that holds its lock and until when, and its session
 * state. A session exists while it has messages, a lock or a state.
 *
 * <p>Not thread-safe: guarded by the monitor of the {@link EntityStore} that owns it, which keeps
 * {@link Session#available} in step with its own indexes.
 */
final class SessionTable {

  /** One session. Fields are guarded by the owning store's monitor. */
  static final class Session {
    final String id;

    /** Its messages that are available now, by sequence number: the order of delivery. */
    final TreeMap<Long, StoredMessage> available = new TreeMap<>();

    /** The receiver holding the session lock, or null. */
    Object owner;

    Instant lockedUntil;

    /** The session state an application set, or null. */
    byte[] state;

    Session(String id) {
      this.id = id;
    }

    boolean lockedAt(Instant now) {
      return owner != null && lockedUntil.isAfter(now);
    }
  }

  private final Map<String, Session> sessions = new HashMap<>();

  /** The sessions whose lock is held: few (one per session receiver), scanned for expiry. */
  private final Set<Session> held = new HashSet<>();

  /** The session of that id, created when unknown. */
  Session session(String id) {
    return sessions.computeIfAbsent(id, Session::new);
  }

  Optional<Session> find(String id) {
    return Optional.ofNullable(sessions.get(id));
  }

  /**
   * The unlocked session whose oldest available message came first, as the service hands out the
   * next available session; empty when every session with messages is locked. Walks the entity's
   * available messages in order, so it costs the messages of held sessions that come first.
   */
  Optional<Session> nextAvailable(Collection<StoredMessage> availableInOrder) {
    for (StoredMessage sm : availableInOrder) {
      Session s = sm.sessionId == null ? null : sessions.get(sm.sessionId);
      if (s != null && s.owner == null) {
        return Optional.of(s);
      }
    }
    return Optional.empty();
  }

  /** Gives a session's lock to {@code owner} until {@code until}. */
  void hold(Session s, Object owner, Instant until) {
    s.owner = owner;
    s.lockedUntil = until;
    held.add(s);
  }

  /** Ends a session's lock. */
  void free(Session s) {
    s.owner = null;
    s.lockedUntil = null;
    held.remove(s);
  }

  /** Sessions whose lock has run out at {@code now} but that still name an owner. */
  List<Session> expiredLocks(Instant now) {
    List<Session> out = new ArrayList<>();
    for (Session s : held) {
      if (!s.lockedUntil.isAfter(now)) {
        out.add(s);
      }
    }
    return out;
  }

  /** Every session whose lock is held, expired or not. */
  List<Session> held() {
    return new ArrayList<>(held);
  }

  /** Forgets a session that has nothing left: no lock, no state, no available message. */
  void forgetIfEmpty(Session s) {
    if (s.owner == null && s.state == null && s.available.isEmpty()) {
      sessions.remove(s.id);
    }
  }
}
