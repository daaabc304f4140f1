package io.idemworker.emulator.servicebus;

import io.idemworker.emulator.servicebus.StoredMessage.Snapshot;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.apache.qpid.proton.engine.Connection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The session side of a session-aware {@link EntityStore}: accepting a session (named, or the next
 * available one), one lock holder per session, delivery of a session's messages in sequence order,
 * renewal and expiry of session locks, and session state. A session message's lock is its session's
 * lock: it ends when the session's lock ends, and the message comes back (delivery count + 1) for
 * the next holder of the session.
 *
 * <p>Thread-safe: the methods a link or the management node calls hold the store's monitor, as the
 * store's own methods do, so the session table, the message index and the session locks change
 * together; the others are called by the store while it holds its monitor.
 */
final class EntitySessions {
  private static final Logger LOG = LoggerFactory.getLogger(EntitySessions.class);

  /**
   * A session lock granted to a receiver.
   *
   * @param sessionId the session's id
   * @param lockedUntil when the lock ends unless renewed
   */
  record SessionLock(String sessionId, Instant lockedUntil) {}

  private final EntityStore store;
  private final MessageIndex index;

  /** The sessions; null when the entity does not require sessions. */
  private final SessionTable table;

  EntitySessions(EntityStore store, MessageIndex index) {
    this.store = store;
    this.index = index;
    this.table = index.sessions;
  }

  /**
   * Locks a session for {@code owner} for the entity's LockDuration: the named one (which need not
   * have messages), or with a null id the unlocked session whose oldest available message came
   * first.
   *
   * @return empty when the named session is locked by another receiver, or when no unlocked session
   *     has an available message
   */
  Optional<SessionLock> accept(String sessionId, Object owner) {
    synchronized (store) {
      Instant now = store.clock().instant();
      releaseExpired(now);
      SessionTable.Session s;
      if (sessionId != null) {
        s = table.session(sessionId);
        if (s.owner != null) {
          return Optional.empty();
        }
      } else {
        Optional<SessionTable.Session> next = table.nextAvailable(index.available.values());
        if (next.isEmpty()) {
          return Optional.empty();
        }
        s = next.get();
      }
      table.hold(s, owner, now.plus(store.settings().lockDuration()));
      LOG.debug("{}: session {} locked until {}", store.path(), s.id, s.lockedUntil);
      return Optional.of(new SessionLock(s.id, s.lockedUntil));
    }
  }

  /** Whether {@code owner} still holds the lock of session {@code sessionId}, unexpired. */
  boolean holds(String sessionId, Object owner) {
    synchronized (store) {
      if (releaseExpired(store.clock().instant())) {
        store.signal();
      }
      return table.find(sessionId).map(s -> s.owner == owner).orElse(false);
    }
  }

  /**
   * Takes up to {@code max} available messages of a session whose lock {@code owner} holds, in
   * sequence order; their locks are the session's. Empty when the lock is not held.
   */
  List<Snapshot> take(String sessionId, int max, Object owner, boolean receiveAndDelete) {
    synchronized (store) {
      List<Snapshot> out = new ArrayList<>();
      Instant now = store.clock().instant();
      SessionTable.Session s = table.find(sessionId).orElse(null);
      if (s == null || s.owner != owner || !s.lockedAt(now)) {
        return out;
      }
      while (out.size() < max && !s.available.isEmpty()) {
        StoredMessage sm = s.available.firstEntry().getValue();
        if (!sm.expiresAt.isAfter(now)) {
          store.expire(sm);
          continue;
        }
        if (receiveAndDelete) {
          index.remove(sm);
        } else {
          index.lock(sm, owner, s.lockedUntil);
        }
        out.add(sm.snapshot());
      }
      return out;
    }
  }

  /**
   * Releases the lock {@code owner} holds on a session, as when its receiver link closes: the
   * session may be accepted again at once, and its messages still locked come back (delivery count
   * + 1) in sequence order. No-op when {@code owner} does not hold it.
   */
  void release(String sessionId, Object owner) {
    synchronized (store) {
      SessionTable.Session s = table.find(sessionId).orElse(null);
      if (s != null && s.owner == owner) {
        end(s);
        store.signal();
      }
    }
  }

  /**
   * Renews a session's lock for another LockDuration.
   *
   * @throws SessionLockLostException when the session's lock is not held
   */
  Instant renew(String sessionId) {
    synchronized (store) {
      SessionTable.Session s = held(sessionId, store.clock().instant());
      s.lockedUntil = store.clock().instant().plus(store.settings().lockDuration());
      return s.lockedUntil;
    }
  }

  /** Whether some receiver holds the lock of session {@code sessionId}, unexpired. */
  boolean locked(String sessionId) {
    synchronized (store) {
      if (table == null || sessionId == null) {
        return false;
      }
      if (releaseExpired(store.clock().instant())) {
        store.signal();
      }
      return table.find(sessionId).map(s -> s.owner != null).orElse(false);
    }
  }

  /**
   * Refuses a session operation from a receiver that does not hold the session: when the request
   * names its receiver's link ({@code associated-link-name}, which the SDKs send with every session
   * operation), the session's lock must be held by that link. A receiver whose lock ran out or was
   * lost, and whose session another receiver has accepted since, can then neither renew, read nor
   * set what is now the other's, as the service answers it.
   *
   * <p>Link names are unique on one connection only (the SDKs name a session's link after the
   * session), so the holder's link must be that name on the requesting connection.
   *
   * @param linkName the requesting receiver's link name, or null when the request names none
   * @param connection the requesting connection, or null when unknown
   * @throws SessionLockLostException when another receiver's link holds the session
   */
  void requireHeldBy(String sessionId, String linkName, Connection connection) {
    if (linkName == null || sessionId == null) {
      return;
    }
    synchronized (store) {
      SessionTable.Session s = table == null ? null : table.find(sessionId).orElse(null);
      if (s != null
          && s.owner instanceof ConsumerLink holder
          && !(linkName.equals(holder.sender().getName())
              && (connection == null
                  || holder.sender().getSession().getConnection() == connection))) {
        throw new SessionLockLostException(
            "The session lock has expired on the session '"
                + sessionId
                + "', or is not held by this receiver.");
      }
    }
  }

  /**
   * Ends a session's lock now, as the service does when it refuses a renewal of a lock it has lost
   * (fault injection): its messages still locked come back (delivery count + 1), its receiver's
   * link is detached on its next look, and the session may be accepted again at once.
   *
   * @throws SessionLockLostException when the session's lock is not held
   */
  void lose(String sessionId) {
    synchronized (store) {
      end(held(sessionId, store.clock().instant()));
      store.signal();
    }
  }

  /**
   * The session state last set, empty when none.
   *
   * @throws SessionLockLostException when the session's lock is not held
   */
  Optional<byte[]> state(String sessionId) {
    synchronized (store) {
      byte[] state = held(sessionId, store.clock().instant()).state;
      return Optional.ofNullable(state == null ? null : state.clone());
    }
  }

  /**
   * Sets (null: clears) a session's state; it outlives the lock.
   *
   * @throws SessionLockLostException when the session's lock is not held
   */
  void setState(String sessionId, byte[] state) {
    synchronized (store) {
      held(sessionId, store.clock().instant()).state = state == null ? null : state.clone();
    }
  }

  SessionTable.Session held(String sessionId, Instant now) {
    if (sessionId == null) {
      throw new SessionLockLostException("a session-id is required on a session-aware entity");
    }
    releaseExpired(now);
    SessionTable.Session s = table.find(sessionId).orElse(null);
    if (s == null || s.owner == null) {
      throw new SessionLockLostException(
          "The session lock has expired on the session '" + sessionId + "', or is not held.");
    }
    return s;
  }

  /** A session message's lock is live while its session's lock is. */
  StoredMessage liveLock(StoredMessage sm) {
    Instant now = store.clock().instant();
    SessionTable.Session s = table.find(sm.sessionId).orElse(null);
    if (s != null && s.lockedAt(now)) {
      return sm;
    }
    if (s != null && s.owner != null) {
      end(s);
    } else {
      store.redeliverOrDeadLetter(sm);
    }
    store.signal();
    return null;
  }

  /** Ends a session's lock; returns how many message locks ended with it. */
  int end(SessionTable.Session s) {
    LOG.debug("{}: lock on session {} ended", store.path(), s.id);
    table.free(s);
    List<StoredMessage> held = new ArrayList<>();
    for (StoredMessage sm : index.locked.values()) {
      if (s.id.equals(sm.sessionId)) {
        held.add(sm);
      }
    }
    held.sort(Comparator.comparingLong(m -> m.sequenceNumber));
    held.forEach(store::redeliverOrDeadLetter);
    table.forgetIfEmpty(s);
    return held.size();
  }

  /**
   * Ends every held session lock now (fault injection: every lock expires at once).
   *
   * @return the session locks and message locks that ended
   */
  int endAll() {
    if (table == null) {
      return 0;
    }
    int lost = 0;
    for (SessionTable.Session s : table.held()) {
      lost += 1 + end(s);
    }
    return lost;
  }

  boolean releaseExpired(Instant now) {
    if (table == null) {
      return false;
    }
    List<SessionTable.Session> expired = table.expiredLocks(now);
    expired.forEach(this::end);
    return !expired.isEmpty();
  }
}
