package io.idemworker.emulator.servicebus;

import io.idemworker.emulator.servicebus.StoredMessage.Snapshot;
import io.idemworker.emulator.servicebus.StoredMessage.State;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
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

  /** Result of a settlement. */
  enum Settled {
    OK,
    LOCK_LOST
  }

  private record Deadline(Instant at, long key, Object ref) {}

  private final String path;
  private final QueueSettings settings;
  private final Clock clock;
  private final AtomicLong sequence;
  private final EntityStore deadLetter;
  private final TreeMap<Long, StoredMessage> all = new TreeMap<>();
  private final TreeMap<Long, StoredMessage> available = new TreeMap<>();
  private final Map<UUID, StoredMessage> locked = new HashMap<>();
  private final TreeSet<StoredMessage> lockIndex =
      new TreeSet<>(
          Comparator.comparing((StoredMessage m) -> m.lockedUntil)
              .thenComparingLong(m -> m.sequenceNumber));
  private final TreeSet<StoredMessage> ttlIndex =
      new TreeSet<>(
          Comparator.comparing((StoredMessage m) -> m.expiresAt)
              .thenComparingLong(m -> m.sequenceNumber));
  private final PriorityQueue<Deadline> scheduleDeadlines = deadlines();
  private final DuplicateWindow seenIds;
  private final Set<Runnable> listeners = new CopyOnWriteArraySet<>();

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
  }

  private static PriorityQueue<Deadline> deadlines() {
    return new PriorityQueue<>(
        (a, b) -> {
          int c = a.at.compareTo(b.at);
          return c != 0 ? c : Long.compare(a.key, b.key);
        });
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

  private void signal() {
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
    if (enqueue(m, sequenceNumber, clock.instant())) {
      signal();
    }
  }

  /** Stores one message now or at its scheduled time; returns whether it is available now. */
  private boolean enqueue(Message m, long sequenceNumber, Instant now) {
    Instant scheduled = scheduledTime(m);
    StoredMessage sm = newMessage(m, sequenceNumber, now, scheduled);
    if (scheduled != null && scheduled.isAfter(now)) {
      scheduleInternal(sm, scheduled);
      return false;
    }
    makeAvailable(sm);
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
      StoredMessage sm = all.get(s);
      if (sm != null && sm.state == State.SCHEDULED) {
        remove(sm);
      }
    }
  }

  private void scheduleInternal(StoredMessage sm, Instant at) {
    sm.state = State.SCHEDULED;
    sm.scheduledEnqueueTime = at;
    all.put(sm.sequenceNumber, sm);
    scheduleDeadlines.add(new Deadline(at, sm.sequenceNumber, sm));
  }

  private static Instant scheduledTime(Message m) {
    if (m.getMessageAnnotations() == null || m.getMessageAnnotations().getValue() == null) {
      return null;
    }
    Object v = m.getMessageAnnotations().getValue().get(SCHEDULED_ENQUEUE_TIME);
    return v instanceof Date d ? d.toInstant() : null;
  }

  /** A new message; its time-to-live runs from its (scheduled) enqueue time. */
  private StoredMessage newMessage(Message m, long sequenceNumber, Instant now, Instant scheduled) {
    long ttl = settings.defaultMessageTimeToLive().toMillis();
    if (m.getHeader() != null && m.getHeader().getTtl() != null) {
      long own = m.getHeader().getTtl().longValue();
      if (own > 0) {
        ttl = Math.min(ttl, own);
      }
    }
    Instant base = scheduled != null && scheduled.isAfter(now) ? scheduled : now;
    Instant expiresAt = saturatedPlus(base, ttl);
    return new StoredMessage(sequenceNumber, m, now, expiresAt, Math.min(ttl, 0xFFFFFFFFL), 0);
  }

  private static Instant saturatedPlus(Instant t, long millis) {
    try {
      return t.plusMillis(millis);
    } catch (ArithmeticException | java.time.DateTimeException e) {
      return Instant.MAX;
    }
  }

  private void makeAvailable(StoredMessage sm) {
    unlock(sm);
    sm.state = State.AVAILABLE;
    all.put(sm.sequenceNumber, sm);
    available.put(sm.sequenceNumber, sm);
    if (!Instant.MAX.equals(sm.expiresAt)) {
      ttlIndex.add(sm);
    }
  }

  private void remove(StoredMessage sm) {
    unlock(sm);
    all.remove(sm.sequenceNumber);
    available.remove(sm.sequenceNumber);
    ttlIndex.remove(sm);
    sm.state = State.GONE;
  }

  /** Drops the message's lock, if any, from every index. */
  private void unlock(StoredMessage sm) {
    if (sm.lockToken != null) {
      locked.remove(sm.lockToken);
      lockIndex.remove(sm);
    }
    sm.lockToken = null;
    sm.lockedUntil = null;
    sm.lockOwner = null;
  }

  /**
   * Takes up to {@code max} available messages for a receiver link.
   *
   * @param owner the link holding the locks, released by {@link #releaseAll}
   * @param receiveAndDelete whether the messages are deleted instead of locked
   */
  synchronized List<Snapshot> take(int max, Object owner, boolean receiveAndDelete) {
    List<Snapshot> out = new ArrayList<>(Math.min(max, 64));
    if (available.isEmpty()) {
      return out;
    }
    Instant now = clock.instant();
    while (out.size() < max) {
      Map.Entry<Long, StoredMessage> e = available.pollFirstEntry();
      if (e == null) {
        break;
      }
      StoredMessage sm = e.getValue();
      if (!sm.expiresAt.isAfter(now)) {
        expire(sm);
        continue;
      }
      if (receiveAndDelete) {
        remove(sm);
        out.add(sm.snapshot());
      } else {
        lock(sm, owner, now);
        out.add(sm.snapshot());
      }
    }
    return out;
  }

  private void lock(StoredMessage sm, Object owner, Instant now) {
    sm.state = State.LOCKED;
    sm.lockToken = UUID.randomUUID();
    sm.lockOwner = owner;
    sm.lockedUntil = now.plus(settings.lockDuration());
    locked.put(sm.lockToken, sm);
    lockIndex.add(sm);
  }

  private StoredMessage liveLock(UUID token) {
    StoredMessage sm = locked.get(token);
    if (sm == null) {
      return null;
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
    remove(sm);
    return Settled.OK;
  }

  synchronized Settled abandon(UUID token, Map<String, Object> propertiesToModify) {
    StoredMessage sm = liveLock(token);
    if (sm == null) {
      return Settled.LOCK_LOST;
    }
    modify(sm, propertiesToModify);
    redeliverOrDeadLetter(sm);
    signal();
    return Settled.OK;
  }

  synchronized Settled defer(UUID token, Map<String, Object> propertiesToModify) {
    StoredMessage sm = liveLock(token);
    if (sm == null) {
      return Settled.LOCK_LOST;
    }
    modify(sm, propertiesToModify);
    unlock(sm);
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
    modify(sm, propertiesToModify);
    moveToDeadLetter(sm, reason, description);
    return Settled.OK;
  }

  /** Releases a lock without counting a delivery attempt (AMQP {@code released}). */
  synchronized Settled release(UUID token) {
    StoredMessage sm = liveLock(token);
    if (sm == null) {
      return Settled.LOCK_LOST;
    }
    makeAvailable(sm);
    signal();
    return Settled.OK;
  }

  /** Renews a lock; empty when the lock is lost. */
  synchronized Optional<Instant> renew(UUID token) {
    StoredMessage sm = liveLock(token);
    if (sm == null) {
      return Optional.empty();
    }
    lockIndex.remove(sm);
    sm.lockedUntil = clock.instant().plus(settings.lockDuration());
    lockIndex.add(sm);
    return Optional.of(sm.lockedUntil);
  }

  /**
   * Returns every lock held by {@code owner} to the queue, counting a delivery attempt, as when a
   * receiver link or its connection closes.
   */
  synchronized void releaseAll(Object owner, Iterable<UUID> tokens) {
    boolean any = false;
    for (UUID token : tokens) {
      StoredMessage sm = locked.get(token);
      if (sm != null && sm.lockOwner == owner) {
        redeliverOrDeadLetter(sm);
        any = true;
      }
    }
    if (any) {
      signal();
    }
  }

  /** Fault injection: every held lock expires now. */
  synchronized int loseLocks() {
    List<StoredMessage> held = new ArrayList<>(locked.values());
    for (StoredMessage sm : held) {
      unlockExpired(sm);
    }
    if (!held.isEmpty()) {
      signal();
    }
    return held.size();
  }

  private void unlockExpired(StoredMessage sm) {
    LOG.debug("{}: lock on sequence number {} expired", path, sm.sequenceNumber);
    redeliverOrDeadLetter(sm);
  }

  private void redeliverOrDeadLetter(StoredMessage sm) {
    unlock(sm);
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
      makeAvailable(sm);
    }
  }

  private void moveToDeadLetter(StoredMessage sm, String reason, String description) {
    if (deadLetter == null) {
      // A dead-letter subqueue has none of its own: the message stays where it is.
      LOG.info("{}: sequence number {} is already dead-lettered; kept", path, sm.sequenceNumber);
      makeAvailable(sm);
      return;
    }
    remove(sm);
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
    makeAvailable(sm);
    signal();
  }

  private void expire(StoredMessage sm) {
    if (settings.deadLetteringOnMessageExpiration() && deadLetter != null) {
      moveToDeadLetter(sm, TTL_REASON, "The message expired and was dead lettered.");
    } else {
      LOG.debug("{}: sequence number {} expired and was removed", path, sm.sequenceNumber);
      remove(sm);
    }
  }

  private static void modify(StoredMessage sm, Map<String, Object> propertiesToModify) {
    if (propertiesToModify == null || propertiesToModify.isEmpty()) {
      return;
    }
    Message m = sm.message;
    Map<String, Object> props = new HashMap<>();
    if (m.getApplicationProperties() != null && m.getApplicationProperties().getValue() != null) {
      props.putAll(m.getApplicationProperties().getValue());
    }
    props.putAll(propertiesToModify);
    m.setApplicationProperties(new ApplicationProperties(props));
  }

  /** Messages from a sequence number on, in every state but locked-and-gone. */
  synchronized List<Snapshot> peek(long fromSequenceNumber, int count) {
    List<Snapshot> out = new ArrayList<>();
    for (StoredMessage sm : all.tailMap(fromSequenceNumber, true).values()) {
      if (out.size() >= count) {
        break;
      }
      out.add(sm.snapshot());
    }
    return out;
  }

  /** Locks (or deletes) deferred messages by sequence number; unknown numbers are skipped. */
  synchronized List<Snapshot> receiveDeferred(long[] sequenceNumbers, boolean receiveAndDelete) {
    List<Snapshot> out = new ArrayList<>();
    Instant now = clock.instant();
    for (long s : sequenceNumbers) {
      StoredMessage sm = all.get(s);
      if (sm == null || sm.state != State.DEFERRED) {
        continue;
      }
      if (receiveAndDelete) {
        remove(sm);
      } else {
        lock(sm, null, now);
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
    boolean any = false;
    StoredMessage head;
    while (!lockIndex.isEmpty() && !(head = lockIndex.first()).lockedUntil.isAfter(now)) {
      unlockExpired(head);
      any = true;
    }
    Deadline d;
    while ((d = scheduleDeadlines.peek()) != null && !d.at.isAfter(now)) {
      scheduleDeadlines.poll();
      StoredMessage sm = (StoredMessage) d.ref;
      if (sm.state == State.SCHEDULED) {
        sm.enqueuedTime = d.at;
        makeAvailable(sm);
        any = true;
      }
    }
    List<StoredMessage> due = new ArrayList<>();
    for (StoredMessage sm : ttlIndex) {
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

  /** Every message held, whatever its state (available, locked, deferred, scheduled). */
  synchronized int messageCount() {
    return all.size();
  }

  synchronized int activeCount() {
    return available.size();
  }

  synchronized int lockedCount() {
    return locked.size();
  }

  /** Milliseconds until the next lock expiry, for tests and diagnostics. */
  synchronized Optional<Duration> nextLockExpiry() {
    return lockIndex.isEmpty()
        ? Optional.empty()
        : Optional.of(Duration.between(clock.instant(), lockIndex.first().lockedUntil));
  }
}
