package io.idemworker.emulator.servicebus;

import io.idemworker.emulator.servicebus.StoredMessage.State;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;

/**
 * The indexes of one {@link EntityStore} and the state transitions that keep them in step: every
 * message by sequence number, the available ones in order, the locked ones by token and by expiry,
 * the expiry of time-to-live, the scheduled enqueue times and, on a session-aware entity, each
 * session's available messages ({@link SessionTable}).
 *
 * <p>Not thread-safe: guarded by the owning store's monitor. Look-ups are by hash or tree; expiry
 * uses ordered sets and a priority queue with lazy deletion, so no transition scans all messages.
 */
final class MessageIndex {
  record Deadline(Instant at, long key, StoredMessage ref) {}

  final TreeMap<Long, StoredMessage> all = new TreeMap<>();
  final TreeMap<Long, StoredMessage> available = new TreeMap<>();
  final Map<UUID, StoredMessage> locked = new HashMap<>();

  /** Locks that run out on their own; a session message's lock is its session's. */
  final TreeSet<StoredMessage> lockIndex =
      new TreeSet<>(
          Comparator.comparing((StoredMessage m) -> m.lockedUntil)
              .thenComparingLong(m -> m.sequenceNumber));

  final TreeSet<StoredMessage> ttlIndex =
      new TreeSet<>(
          Comparator.comparing((StoredMessage m) -> m.expiresAt)
              .thenComparingLong(m -> m.sequenceNumber));

  final PriorityQueue<Deadline> scheduleDeadlines =
      new PriorityQueue<>(
          (a, b) -> {
            int c = a.at.compareTo(b.at);
            return c != 0 ? c : Long.compare(a.key, b.key);
          });

  /** The sessions, or null on an entity that does not require sessions. */
  final SessionTable sessions;

  MessageIndex(boolean requiresSession) {
    this.sessions = requiresSession ? new SessionTable() : null;
  }

  /** Whether {@code sm} belongs to a session of this entity. */
  boolean inSession(StoredMessage sm) {
    return sessions != null && sm.sessionId != null;
  }

  void makeAvailable(StoredMessage sm) {
    unlock(sm);
    sm.state = State.AVAILABLE;
    all.put(sm.sequenceNumber, sm);
    available.put(sm.sequenceNumber, sm);
    if (inSession(sm)) {
      sessions.session(sm.sessionId).available.put(sm.sequenceNumber, sm);
    }
    if (!Instant.MAX.equals(sm.expiresAt)) {
      ttlIndex.add(sm);
    }
  }

  /** Takes an available message out of the available indexes (it is being locked or removed). */
  void takeAvailable(StoredMessage sm) {
    available.remove(sm.sequenceNumber);
    if (inSession(sm)) {
      sessions.find(sm.sessionId).ifPresent(s -> s.available.remove(sm.sequenceNumber));
    }
  }

  void remove(StoredMessage sm) {
    unlock(sm);
    all.remove(sm.sequenceNumber);
    takeAvailable(sm);
    ttlIndex.remove(sm);
    sm.state = State.GONE;
  }

  void schedule(StoredMessage sm, Instant at) {
    sm.state = State.SCHEDULED;
    sm.scheduledEnqueueTime = at;
    all.put(sm.sequenceNumber, sm);
    scheduleDeadlines.add(new Deadline(at, sm.sequenceNumber, sm));
  }

  /**
   * Locks a message taken from the available ones (or a deferred one) for {@code owner} until
   * {@code until}; a session message's lock follows its session's and is not indexed by expiry.
   */
  void lock(StoredMessage sm, Object owner, Instant until) {
    takeAvailable(sm);
    sm.state = State.LOCKED;
    sm.lockToken = UUID.randomUUID();
    sm.lockOwner = owner;
    sm.lockedUntil = until;
    locked.put(sm.lockToken, sm);
    if (!inSession(sm)) {
      lockIndex.add(sm);
    }
  }

  /** Drops the message's lock, if any, from every index. */
  void unlock(StoredMessage sm) {
    if (sm.lockToken != null) {
      locked.remove(sm.lockToken);
      lockIndex.remove(sm);
    }
    sm.lockToken = null;
    sm.lockedUntil = null;
    sm.lockOwner = null;
  }

  /** Moves a lock's expiry. */
  void relock(StoredMessage sm, Instant until) {
    boolean indexed = lockIndex.remove(sm);
    sm.lockedUntil = until;
    if (indexed) {
      lockIndex.add(sm);
    }
  }
}
