package io.idemworker.emulator.servicebus;

import io.idemworker.emulator.servicebus.StoredMessage.Snapshot;
import io.idemworker.emulator.servicebus.StoredMessage.State;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.amqp.messaging.ApplicationProperties;
import org.apache.qpid.proton.message.Message;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The messages of one entity: a queue or its dead-letter subqueue.
 *
 * <p>Thread-safe: every operation holds this store's monitor. A main queue may call into its
 * dead-letter store while holding its own monitor, never the other way round. Look-ups are by hash
 * or tree; expiry uses priority queues with lazy deletion, so no operation scans all messages.
 */
final class EntityStore implements MessageSink {
  private static final Logger LOG = LoggerFactory.getLogger(EntityStore.class);
  static final Symbol SCHEDULED_ENQUEUE_TIME = Symbol.valueOf("x-opt-scheduled-enqueue-time");
  static final String MAX_DELIVERY_REASON = "MaxDeliveryCountExceeded";
  static final String TTL_REASON = "TTLExpiredException";
  static final String SESSION_ID_NULL_REASON = "Session id is null.";

  /** Result of a settlement. */
  enum Settled {
    OK,
    LOCK_LOST
  }

  private final String path;
  private volatile QueueSettings settings;
  private final Clock clock;
  private final AtomicLong sequence;
  private final EntityStore deadLetter;
  private final MessageIndex index;
  private final EntitySessions sessions;
  private final DuplicateWindow seenIds;
  private final Set<Runnable> listeners = new CopyOnWriteArraySet<>();
  private final Instant createdAt;

  EntityStore(
      String path,
      QueueSettings settings,
      Clock clock,
      AtomicLong sequence,
      EntityStore deadLetter) {
    this.path = path;
    this.settings = settings;
    this.clock = clock;
    this.sequence = sequence;
    this.deadLetter = deadLetter;
    this.seenIds = new DuplicateWindow(settings.duplicateDetectionHistoryTimeWindow());
    this.index = new MessageIndex(settings.requiresSession());
    this.sessions = new EntitySessions(this, index);
    this.createdAt = clock.instant();
  }

  /** When the entity was made, on its clock. */
  Instant createdAt() {
    return createdAt;
  }

  /**
   * Replaces the settings (administration API): new locks, deliveries, arrivals and expiries follow
   * them; locks already held keep their end.
   *
   * @throws IllegalArgumentException when RequiresSession would change
   */
  synchronized void updateSettings(QueueSettings updated) {
    if (updated.requiresSession() != settings.requiresSession()) {
      throw new IllegalArgumentException("RequiresSession of an entity cannot be changed");
    }
    settings = updated;
    seenIds.window(updated.duplicateDetectionHistoryTimeWindow());
  }

  @Override
  public String path() {
    return path;
  }

  Clock clock() {
    return clock;
  }

  QueueSettings settings() {
    return settings;
  }

  Optional<EntityStore> deadLetterStore() {
    return Optional.ofNullable(deadLetter);
  }

  /** Registers a callback run whenever messages may have become available. */
  void addListener(Runnable listener) {
    listeners.add(listener);
  }

  void removeListener(Runnable listener) {
    listeners.remove(listener);
  }

  void signal() {
    for (Runnable l : listeners) {
      l.run();
    }
  }

  /**
   * Enqueues messages sent by a client. A message without message-id gets one; a message whose id
   * was seen inside the duplicate window is dropped silently; one carrying {@code
   * x-opt-scheduled-enqueue-time} in the future is scheduled.
   *
   * @return the sequence numbers assigned (dropped duplicates get none)
   */
  @Override
  public synchronized long[] send(List<Message> messages) {
    Instant now = clock.instant();
    long[] seqs = new long[messages.size()];
    int n = 0;
    boolean any = false;
    for (Message m : messages) {
      MessageCodec.ensureMessageId(m);
      if (settings.requiresDuplicateDetection()
          && seenIds.isDuplicate(m.getMessageId().toString(), now)) {
        LOG.debug("{}: duplicate message-id {} dropped", path, m.getMessageId());
        continue;
      }
      long seq = sequence.incrementAndGet();
      seqs[n++] = seq;
      any |= enqueue(m, seq, now);
    }
    if (any) {
      signal();
    }
    return n == seqs.length ? seqs : java.util.Arrays.copyOf(seqs, n);
  }

  /**
   * Enqueues a copy of a message that a topic accepted and numbered, as a subscription does:
   * neither a message-id nor duplicate detection is applied here, the topic did both.
   */
  synchronized void enqueueFromTopic(Message m, long sequenceNumber) {
    Instant now = clock.instant();
    if (requiresSession() && StoredMessage.sessionIdOf(m) == null) {
      // As the service does: a session-aware subscription dead-letters a copy without SessionId.
      moveToDeadLetter(
          StoredMessage.arriving(m, sequenceNumber, now, null, settings),
          SESSION_ID_NULL_REASON,
          "Session enabled entity doesn't allow a message whose session identifier is null.");
      return;
    }
    if (enqueue(m, sequenceNumber, now)) {
      signal();
    }
  }

  /**
   * Refuses messages a session-aware queue cannot take, as the service does: every message must
   * carry a SessionId.
   */
  @Override
  public Optional<String> refusal(List<Message> messages) {
    if (requiresSession()) {
      for (Message m : messages) {
        if (StoredMessage.sessionIdOf(m) == null) {
          return Optional.of(
              "The SessionId was not set on a message, and it cannot be sent to the entity."
                  + " Entities that have session support enabled can only receive messages that"
                  + " have the SessionId set to a valid value.");
        }
      }
    }
    return Optional.empty();
  }

  /** Stores one message now or at its scheduled time; returns whether it is available now. */
  private boolean enqueue(Message m, long sequenceNumber, Instant now) {
    Instant scheduled = StoredMessage.scheduledTime(m);
    StoredMessage sm = StoredMessage.arriving(m, sequenceNumber, now, scheduled, settings);
    if (scheduled != null && scheduled.isAfter(now)) {
      index.schedule(sm, scheduled);
      return false;
    }
    index.makeAvailable(sm);
    return true;
  }

  /** Schedules messages (management {@code schedule-message}); returns their sequence numbers. */
  synchronized long[] schedule(List<Message> messages) {
    Instant now = clock.instant();
    long[] seqs = new long[messages.size()];
    boolean any = false;
    for (int i = 0; i < messages.size(); i++) {
      Message m = messages.get(i);
      MessageCodec.ensureMessageId(m);
      seqs[i] = sequence.incrementAndGet();
      any |= enqueue(m, seqs[i], now);
    }
    if (any) {
      signal();
    }
    return seqs;
  }

  /** Cancels scheduled messages; unknown or already enqueued sequence numbers are ignored. */
  synchronized void cancelScheduled(long[] sequenceNumbers) {
    for (long s : sequenceNumbers) {
      StoredMessage sm = index.all.get(s);
      if (sm != null && sm.state == State.SCHEDULED) {
        index.remove(sm);
      }
    }
  }

  /**
   * Takes up to {@code max} available messages for a receiver link.
   *
   * @param owner the link holding the locks, detached by {@link #detachLocks}
   * @param receiveAndDelete whether the messages are deleted instead of locked
   */
  synchronized List<Snapshot> take(int max, Object owner, boolean receiveAndDelete) {
    List<Snapshot> out = new ArrayList<>(Math.min(max, 64));
    if (index.available.isEmpty()) {
      return out;
    }
    Instant now = clock.instant();
    while (out.size() < max) {
      Map.Entry<Long, StoredMessage> e = index.available.pollFirstEntry();
      if (e == null) {
        break;
      }
      StoredMessage sm = e.getValue();
      if (!sm.expiresAt.isAfter(now)) {
        expire(sm);
        continue;
      }
      if (receiveAndDelete) {
        index.remove(sm);
        out.add(sm.snapshot());
      } else {
        index.lock(sm, owner, now.plus(settings.lockDuration()));
        out.add(sm.snapshot());
      }
    }
    return out;
  }

  private StoredMessage liveLock(UUID token) {
    StoredMessage sm = index.locked.get(token);
    if (sm == null) {
      return null;
    }
    if (index.inSession(sm)) {
      return sessions.liveLock(sm);
    }
    if (!sm.lockedUntil.isAfter(clock.instant())) {
      unlockExpired(sm);
      signal();
      return null;
    }
    return sm;
  }

  /** Whether a lock token is held and unexpired. */
  synchronized boolean holdsLock(UUID token) {
    return liveLock(token) != null;
  }

  synchronized Settled complete(UUID token) {
    StoredMessage sm = liveLock(token);
    if (sm == null) {
      return Settled.LOCK_LOST;
    }
    index.remove(sm);
    return Settled.OK;
  }

  synchronized Settled abandon(UUID token, Map<String, Object> propertiesToModify) {
    StoredMessage sm = liveLock(token);
    if (sm == null) {
      return Settled.LOCK_LOST;
    }
    sm.modifyProperties(propertiesToModify);
    redeliverOrDeadLetter(sm);
    signal();
    return Settled.OK;
  }

  synchronized Settled defer(UUID token, Map<String, Object> propertiesToModify) {
    StoredMessage sm = liveLock(token);
    if (sm == null) {
      return Settled.LOCK_LOST;
    }
    sm.modifyProperties(propertiesToModify);
    index.unlock(sm);
    sm.state = State.DEFERRED;
    sm.deferred = true;
    return Settled.OK;
  }

  synchronized Settled deadLetter(
      UUID token, String reason, String description, Map<String, Object> propertiesToModify) {
    StoredMessage sm = liveLock(token);
    if (sm == null) {
      return Settled.LOCK_LOST;
    }
    sm.modifyProperties(propertiesToModify);
    moveToDeadLetter(sm, reason, description);
    return Settled.OK;
  }

  /** Releases a lock without counting a delivery attempt (AMQP {@code released}). */
  synchronized Settled release(UUID token) {
    StoredMessage sm = liveLock(token);
    if (sm == null) {
      return Settled.LOCK_LOST;
    }
    index.makeAvailable(sm);
    signal();
    return Settled.OK;
  }

  /**
   * Ends a lock now, as if it had expired (fault injection): the message is redelivered or, at the
   * delivery limit, dead-lettered.
   *
   * @return false when the lock was already gone
   */
  synchronized boolean loseLock(UUID token) {
    StoredMessage sm = liveLock(token);
    if (sm == null) {
      return false;
    }
    redeliverOrDeadLetter(sm);
    signal();
    return true;
  }

  /** Renews a lock; empty when the lock is lost. */
  synchronized Optional<Instant> renew(UUID token) {
    StoredMessage sm = liveLock(token);
    if (sm == null) {
      return Optional.empty();
    }
    index.relock(sm, clock.instant().plus(settings.lockDuration()));
    return Optional.of(sm.lockedUntil);
  }

  /**
   * Detaches every lock held by {@code owner} from it, as when a receiver link or its connection
   * closes. As on the service, the locks outlive the link: each message stays locked until its
   * LockDuration ends (then it comes back with delivery count + 1, like any expired lock), and
   * until then it can be settled or renewed by lock token through the management node.
   */
  synchronized void detachLocks(Object owner, Iterable<UUID> tokens) {
    for (UUID token : tokens) {
      StoredMessage sm = index.locked.get(token);
      if (sm != null && sm.lockOwner == owner) {
        sm.lockOwner = null;
      }
    }
  }

  /** Fault injection: every held lock expires now, session locks included. */
  synchronized int loseLocks() {
    int lost = sessions.endAll();
    List<StoredMessage> held = new ArrayList<>(index.locked.values());
    for (StoredMessage sm : held) {
      unlockExpired(sm);
    }
    lost += held.size();
    if (lost > 0) {
      signal();
    }
    return lost;
  }

  private void unlockExpired(StoredMessage sm) {
    LOG.debug("{}: lock on sequence number {} expired", path, sm.sequenceNumber);
    redeliverOrDeadLetter(sm);
  }

  void redeliverOrDeadLetter(StoredMessage sm) {
    index.unlock(sm);
    sm.deliveryCount++;
    if (deadLetter != null && sm.deliveryCount >= settings.maxDeliveryCount()) {
      moveToDeadLetter(
          sm,
          MAX_DELIVERY_REASON,
          "Message could not be consumed after "
              + settings.maxDeliveryCount()
              + " delivery attempts.");
    } else if (!sm.expiresAt.isAfter(clock.instant())) {
      expire(sm);
    } else if (sm.deferred) {
      // As in Service Bus: abandoning or losing the lock of a deferred message leaves it
      // deferred, receivable by sequence number only.
      sm.state = State.DEFERRED;
    } else {
      index.makeAvailable(sm);
    }
  }

  private void moveToDeadLetter(StoredMessage sm, String reason, String description) {
    if (deadLetter == null) {
      // A dead-letter subqueue has none of its own: the message stays where it is.
      LOG.info("{}: sequence number {} is already dead-lettered; kept", path, sm.sequenceNumber);
      index.makeAvailable(sm);
      return;
    }
    index.remove(sm);
    Message m = sm.message;
    Map<String, Object> props = new HashMap<>();
    if (m.getApplicationProperties() != null && m.getApplicationProperties().getValue() != null) {
      props.putAll(m.getApplicationProperties().getValue());
    }
    if (reason != null) {
      props.put("DeadLetterReason", reason);
    }
    if (description != null) {
      props.put("DeadLetterErrorDescription", description);
    }
    Message copy = MessageCodec.copy(m);
    copy.setApplicationProperties(new ApplicationProperties(props));
    LOG.info("{}: sequence number {} dead-lettered, reason {}", path, sm.sequenceNumber, reason);
    deadLetter.acceptDeadLettered(sm, copy);
  }

  /**
   * Takes a dead-lettered message in. No {@code DeadLetterSource} is set: Service Bus sets it only
   * on messages auto-forwarded out of a dead-letter queue, and this emulator does not forward.
   */
  private synchronized void acceptDeadLettered(StoredMessage from, Message copy) {
    StoredMessage sm =
        new StoredMessage(
            from.sequenceNumber, copy, from.enqueuedTime, Instant.MAX, from.ttlMillis, 0);
    sm.deliveryCount = from.deliveryCount;
    index.makeAvailable(sm);
    signal();
  }

  void expire(StoredMessage sm) {
    if (settings.deadLetteringOnMessageExpiration() && deadLetter != null) {
      moveToDeadLetter(sm, TTL_REASON, "The message expired and was dead lettered.");
    } else {
      LOG.debug("{}: sequence number {} expired and was removed", path, sm.sequenceNumber);
      index.remove(sm);
    }
  }

  /**
   * Messages from a sequence number on, in every state but locked-and-gone; with a session id, only
   * that session's.
   */
  synchronized List<Snapshot> peek(long fromSequenceNumber, int count, String sessionId) {
    List<Snapshot> out = new ArrayList<>();
    for (StoredMessage sm : index.all.tailMap(fromSequenceNumber, true).values()) {
      if (out.size() >= count) {
        break;
      }
      if (sessionId != null && !sessionId.equals(sm.sessionId)) {
        continue;
      }
      out.add(sm.snapshot());
    }
    return out;
  }

  /**
   * Locks (or deletes) deferred messages by sequence number; unknown numbers are skipped. On a
   * session-aware entity only messages of {@code sessionId} are found, and their locks are that
   * session's.
   *
   * @throws SessionLockLostException on a session-aware entity when the session's lock is not held
   */
  synchronized List<Snapshot> receiveDeferred(
      long[] sequenceNumbers, boolean receiveAndDelete, String sessionId) {
    List<Snapshot> out = new ArrayList<>();
    Instant now = clock.instant();
    Instant until = now.plus(settings.lockDuration());
    if (index.sessions != null) {
      until = sessions.held(sessionId, now).lockedUntil;
    }
    for (long s : sequenceNumbers) {
      StoredMessage sm = index.all.get(s);
      if (sm == null || sm.state != State.DEFERRED) {
        continue;
      }
      if (index.sessions != null && !Objects.equals(sessionId, sm.sessionId)) {
        continue;
      }
      if (receiveAndDelete) {
        index.remove(sm);
      } else {
        index.lock(sm, null, until);
      }
      out.add(sm.snapshot());
    }
    return out;
  }

  /**
   * Applies time: expires locks, enqueues due scheduled messages and expires messages whose TTL has
   * passed. Costs O(k log n) for k due items.
   */
  synchronized void sweep() {
    Instant now = clock.instant();
    boolean any = sessions.releaseExpired(now);
    StoredMessage head;
    while (!index.lockIndex.isEmpty()
        && !(head = index.lockIndex.first()).lockedUntil.isAfter(now)) {
      unlockExpired(head);
      any = true;
    }
    MessageIndex.Deadline d;
    while ((d = index.scheduleDeadlines.peek()) != null && !d.at().isAfter(now)) {
      index.scheduleDeadlines.poll();
      StoredMessage sm = d.ref();
      if (sm.state == State.SCHEDULED) {
        sm.enqueuedTime = d.at();
        index.makeAvailable(sm);
        any = true;
      }
    }
    List<StoredMessage> due = new ArrayList<>();
    for (StoredMessage sm : index.ttlIndex) {
      if (sm.expiresAt.isAfter(now)) {
        break;
      }
      // Locked messages expire when their lock ends; scheduled ones once enqueued.
      if (sm.state == State.AVAILABLE || sm.state == State.DEFERRED) {
        due.add(sm);
      }
    }
    due.forEach(this::expire);
    if (any) {
      signal();
    }
  }

  /** Whether this entity requires sessions (RequiresSession). */
  boolean requiresSession() {
    return index.sessions != null;
  }

  /**
   * The entity's sessions: accepting, holding, renewing, losing and releasing session locks, taking
   * a session's messages, and session state. Each of its methods holds this store's monitor.
   */
  EntitySessions sessions() {
    return sessions;
  }

  /** Every message held, whatever its state (available, locked, deferred, scheduled). */
  synchronized int messageCount() {
    return index.all.size();
  }

  /**
   * What the entity holds, as the administration API reports it.
   *
   * @param active messages neither scheduled nor gone: available, locked or deferred
   * @param scheduled messages waiting for their scheduled enqueue time
   * @param sizeInBytes the encoded size of every message held
   * @param scheduledSequenceNumbers the sequence numbers of the scheduled ones
   */
  record Counts(int active, int scheduled, long sizeInBytes, long[] scheduledSequenceNumbers) {}

  synchronized Counts counts() {
    int scheduled = 0;
    long size = 0;
    long[] numbers = new long[index.all.size()];
    for (StoredMessage sm : index.all.values()) {
      if (sm.state == State.SCHEDULED) {
        numbers[scheduled++] = sm.sequenceNumber;
      }
      size += MessageCodec.encode(sm.message).length;
    }
    return new Counts(
        index.all.size() - scheduled, scheduled, size, java.util.Arrays.copyOf(numbers, scheduled));
  }

  synchronized int activeCount() {
    return index.available.size();
  }

  synchronized int lockedCount() {
    return index.locked.size();
  }

  /** Milliseconds until the next lock expiry, for tests and diagnostics. */
  synchronized Optional<Duration> nextLockExpiry() {
    return index.lockIndex.isEmpty()
        ? Optional.empty()
        : Optional.of(Duration.between(clock.instant(), index.lockIndex.first().lockedUntil));
  }
}
