package io.idemworker.emulator.servicebus;

import io.idemworker.emulator.FaultOwner;
import io.idemworker.emulator.Latencies;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Fault injection for tests. Thread-safe; every method takes effect immediately.
 *
 * <p>Obtained from {@link ServiceBusEmulator#faults()}.
 *
 * <p><b>Scope.</b> Lock losses, refused renewals and their counts name the queue or subscription
 * they act on, and the delays may too ({@link #delayDeliveries(String, Duration)}, {@link
 * #delayDispositions(String, Duration)}); {@link #clear(String)} clears one entity's. Tests that
 * run in parallel on one emulator, each on entities of its own, then do not meet each other's
 * faults. {@link #dropConnections()} and the delays without an entity act on the whole namespace.
 *
 * <p><b>Owner.</b> A fault armed while a {@link FaultOwner} is open on the thread (the JUnit
 * extension opens one per test) is disarmed when that owner closes, and no other is.
 */
public final class Faults {
  private final ServiceBusEmulator emulator;
  private final AtomicReference<Delay> dispositionDelay = new AtomicReference<>(Delay.NONE);
  private final AtomicReference<Delay> deliveryDelay = new AtomicReference<>(Delay.NONE);
  private final Map<String, Delay> entityDispositionDelays = new ConcurrentHashMap<>();
  private final Map<String, Delay> entityDeliveryDelays = new ConcurrentHashMap<>();
  private final Map<String, Queue<AtomicInteger>> renewalsToRefuse = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> refusedRenewals = new ConcurrentHashMap<>();
  private final Map<String, Queue<AtomicInteger>> sessionRenewalsToRefuse =
      new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> refusedSessionRenewals = new ConcurrentHashMap<>();

  Faults(ServiceBusEmulator emulator) {
    this.emulator = emulator;
  }

  /**
   * Closes every client connection abruptly (TCP close without an AMQP close frame), as a network
   * failure would. When it returns, nothing more is read from those sockets and their links have
   * ended, unless a connection thread failed to stop within 5 seconds. As on the service, the locks
   * they held outlive them: the messages come back (delivery count + 1) when their LockDuration
   * ends, and until then can be settled or renewed by lock token through the management node
   * (combine with {@link #loseLocks} or a moved clock for a prompt redelivery). The listener stays
   * open, so clients reconnect.
   */
  public void dropConnections() {
    emulator.dropConnections();
  }

  /**
   * Makes every lock currently held on a queue or a subscription (and its dead-letter subqueue)
   * expire now: the messages return to the queue or subscription with their delivery count
   * incremented, and settling them answers {@code com.microsoft:message-lock-lost}. On a
   * session-aware entity the session locks end too: their receivers are detached with {@code
   * com.microsoft:session-lock-lost} and the sessions may be accepted again.
   *
   * @param entity queue name or subscription path {@code topic/Subscriptions/name},
   *     case-insensitive
   * @return how many locks were lost, session locks included
   * @throws IllegalArgumentException when no such queue or subscription exists
   */
  public int loseLocks(String entity) {
    return emulator.broker().loseLocks(entity);
  }

  /**
   * Delays the broker's answer to every disposition (complete, abandon, dead-letter, defer) sent on
   * a receive link by a wall-clock duration; the settlement takes effect when the answer is sent.
   * Zero switches the delay off.
   *
   * @param delay the delay, zero or positive
   */
  public void delayDispositions(Duration delay) {
    delayDispositions(delay, 0);
  }

  /**
   * As {@link #delayDispositions(Duration)}, with each answer's delay drawn uniformly between
   * {@code mean × (1 − spread)} and {@code mean × (1 + spread)} ({@link Latencies}).
   *
   * @param mean the mean delay, zero or positive
   * @param spread 0 (constant) to 1
   */
  public void delayDispositions(Duration mean, double spread) {
    setShared(dispositionDelay, Delay.of(mean, spread));
  }

  /**
   * As {@link #delayDispositions(Duration)}, for dispositions on one queue or subscription only;
   * where set, it replaces the namespace-wide delay there. Zero switches it off.
   *
   * @param entity queue name or subscription path {@code topic/Subscriptions/name},
   *     case-insensitive
   * @throws IllegalArgumentException when no such queue or subscription exists
   */
  public void delayDispositions(String entity, Duration delay) {
    setFor(entityDispositionDelays, entity, Delay.of(delay, 0));
  }

  private static void setShared(AtomicReference<Delay> slot, Delay delay) {
    slot.set(delay);
    FaultOwner.register(() -> slot.compareAndSet(delay, Delay.NONE));
  }

  private void setFor(Map<String, Delay> delays, String entity, Delay delay) {
    String path = emulator.broker().requireQueueOrSubscription(entity);
    delays.put(path, delay);
    FaultOwner.register(() -> delays.remove(path, delay));
  }

  /**
   * Delays every delivery of a message on a receive link by a wall-clock duration, as the round
   * trip of a receive on a distant namespace would: the message is taken and locked when the
   * client's credit allows it (its lock runs from then, as on the service), and reaches the client
   * after the delay. Deliveries on one link are delayed independently of each other, so credit kept
   * open ahead (prefetch) hides the delay while a receive that asks for one message at a time waits
   * it out every time. The connection thread never waits: other links, senders and settlements go
   * on meanwhile. A message whose credit is gone when its delay ends (the client closed the link or
   * lowered its credit) returns to the queue without counting as a delivery; in receive-and-delete
   * mode it is lost, as a receive-and-delete message in flight is on the service. Zero switches the
   * delay off; deliveries already waiting keep their delay.
   *
   * @param delay the delay, zero or positive
   */
  public void delayDeliveries(Duration delay) {
    delayDeliveries(delay, 0);
  }

  /**
   * As {@link #delayDeliveries(Duration)}, with the delay of each take of messages (the messages a
   * credit allows at once) drawn uniformly between {@code mean × (1 − spread)} and {@code mean × (1
   * + spread)} ({@link Latencies}).
   *
   * @param mean the mean delay, zero or positive
   * @param spread 0 (constant) to 1
   */
  public void delayDeliveries(Duration mean, double spread) {
    setShared(deliveryDelay, Delay.of(mean, spread));
  }

  /**
   * As {@link #delayDeliveries(Duration)}, for deliveries from one queue or subscription only;
   * where set, it replaces the namespace-wide delay there. Zero switches it off.
   *
   * @param entity queue name or subscription path {@code topic/Subscriptions/name},
   *     case-insensitive
   * @throws IllegalArgumentException when no such queue or subscription exists
   */
  public void delayDeliveries(String entity, Duration delay) {
    setFor(entityDeliveryDelays, entity, Delay.of(delay, 0));
  }

  /**
   * Refuses the next {@code count} message lock renewals on an entity, as the service answers a
   * renewal of a lock it has already lost: {@code com.microsoft:message-lock-lost} (status 410),
   * and the lock ends at once, so the message returns to the queue or subscription with its
   * delivery count incremented (or is dead-lettered {@code MaxDeliveryCountExceeded} at the limit),
   * and settling it answers {@code message-lock-lost}. A renewal request for several locks is
   * refused as a whole and counts once. Session lock renewals are not affected ({@link
   * #refuseSessionLockRenewals}).
   *
   * @param entity queue name or subscription path {@code topic/Subscriptions/name},
   *     case-insensitive
   * @param count how many renewals to refuse, at least 1; added to any still pending
   * @throws IllegalArgumentException when no such queue or subscription exists, or count is below 1
   */
  public void refuseLockRenewals(String entity, int count) {
    if (count < 1) {
      throw new IllegalArgumentException("count must be at least 1 but was " + count);
    }
    arm(renewalsToRefuse, emulator.broker().requireQueueOrSubscription(entity), count);
  }

  private static void arm(Map<String, Queue<AtomicInteger>> toRefuse, String path, int count) {
    AtomicInteger left = new AtomicInteger(count);
    toRefuse.computeIfAbsent(path, p -> new ConcurrentLinkedQueue<>()).add(left);
    FaultOwner.register(() -> left.set(0));
  }

  /**
   * How many lock renewals {@link #refuseLockRenewals} has refused since the emulator started or
   * {@link #clear()} last ran, on every entity.
   *
   * @return the count
   */
  public int refusedLockRenewals() {
    return sum(refusedRenewals);
  }

  /**
   * How many lock renewals {@link #refuseLockRenewals} has refused on one queue or subscription
   * since the emulator started or {@link #clear()} or {@link #clear(String)} last ran there.
   *
   * @param entity queue name or subscription path, case-insensitive
   * @return the count
   */
  public int refusedLockRenewals(String entity) {
    return count(refusedRenewals, entity);
  }

  private static int sum(Map<String, AtomicInteger> counts) {
    return counts.values().stream().mapToInt(AtomicInteger::get).sum();
  }

  private static int count(Map<String, AtomicInteger> counts, String entity) {
    AtomicInteger n = counts.get(Broker.normalise(entity));
    return n == null ? 0 : n.get();
  }

  /**
   * Refuses the next {@code count} session lock renewals on a session-aware entity, as the service
   * answers a renewal of a session lock it has already lost: {@code
   * com.microsoft:session-lock-lost} (status 410), and the session's lock ends at once: its
   * messages still locked return (delivery count + 1, or dead-lettered {@code
   * MaxDeliveryCountExceeded} at the limit), its receiver's link is detached with {@code
   * session-lock-lost} (on the renewal's connection, before the refusal is sent, as the service
   * detached it when it lost the lock), settling through that receiver answers {@code
   * session-lock-lost} at once (on the link or through the management node), and the session may be
   * accepted again at once. Only a renewal of a session that some receiver holds uses up a refusal
   * (one that is not held answers {@code session-lock-lost} anyway). Message lock renewals are not
   * affected ({@link #refuseLockRenewals}).
   *
   * @param entity queue name or subscription path {@code topic/Subscriptions/name},
   *     case-insensitive
   * @param count how many renewals to refuse, at least 1; added to any still pending
   * @throws IllegalArgumentException when no such queue or subscription exists, or count is below 1
   */
  public void refuseSessionLockRenewals(String entity, int count) {
    if (count < 1) {
      throw new IllegalArgumentException("count must be at least 1 but was " + count);
    }
    arm(sessionRenewalsToRefuse, emulator.broker().requireQueueOrSubscription(entity), count);
  }

  /**
   * How many session lock renewals {@link #refuseSessionLockRenewals} has refused since the
   * emulator started or {@link #clear()} last ran, on every entity.
   *
   * @return the count
   */
  public int refusedSessionLockRenewals() {
    return sum(refusedSessionRenewals);
  }

  /**
   * How many session lock renewals {@link #refuseSessionLockRenewals} has refused on one queue or
   * subscription since the emulator started or {@link #clear()} or {@link #clear(String)} last ran
   * there.
   *
   * @param entity queue name or subscription path, case-insensitive
   * @return the count
   */
  public int refusedSessionLockRenewals(String entity) {
    return count(refusedSessionRenewals, entity);
  }

  /**
   * Removes every fault that is still in effect (the disposition and delivery delays, renewals
   * still to refuse), on every entity and namespace-wide, and resets the counts of refused
   * renewals.
   */
  public void clear() {
    dispositionDelay.set(Delay.NONE);
    deliveryDelay.set(Delay.NONE);
    entityDispositionDelays.clear();
    entityDeliveryDelays.clear();
    renewalsToRefuse.clear();
    refusedRenewals.clear();
    sessionRenewalsToRefuse.clear();
    refusedSessionRenewals.clear();
  }

  /**
   * Removes the faults of one queue or subscription (its own delays, renewals still to refuse on
   * it) and resets its counts of refused renewals; the namespace-wide delays stay.
   *
   * @param entity queue name or subscription path, case-insensitive (it need not exist any more)
   */
  public void clear(String entity) {
    String path = Broker.normalise(entity);
    entityDispositionDelays.remove(path);
    entityDeliveryDelays.remove(path);
    renewalsToRefuse.remove(path);
    refusedRenewals.remove(path);
    sessionRenewalsToRefuse.remove(path);
    refusedSessionRenewals.remove(path);
  }

  /** Whether to refuse this renewal on {@code entityPath}; uses up one refusal when so. */
  boolean refuseRenewal(String entityPath) {
    return useUp(renewalsToRefuse, refusedRenewals, entityPath);
  }

  /** Whether to refuse this session renewal on {@code entityPath}; uses up one when so. */
  boolean refuseSessionRenewal(String entityPath) {
    return useUp(sessionRenewalsToRefuse, refusedSessionRenewals, entityPath);
  }

  private static boolean useUp(
      Map<String, Queue<AtomicInteger>> toRefuse,
      Map<String, AtomicInteger> refused,
      String entityPath) {
    String path = Broker.normalise(entityPath);
    Queue<AtomicInteger> armed = toRefuse.get(path);
    if (armed == null) {
      return false;
    }
    for (AtomicInteger left : armed) {
      if (left.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
        refused.computeIfAbsent(path, p -> new AtomicInteger()).incrementAndGet();
        return true;
      }
      armed.remove(left);
    }
    return false;
  }

  /** The next namespace-wide disposition delay, in nanoseconds; 0 for none. */
  long nextDispositionDelayNanos() {
    return dispositionDelay.get().drawNanos();
  }

  /** The next namespace-wide delivery delay, in nanoseconds; 0 for none. */
  long nextDeliveryDelayNanos() {
    return deliveryDelay.get().drawNanos();
  }

  /** The next disposition answer's delay on {@code entityPath}, in nanoseconds; 0 for none. */
  long nextDispositionDelayNanos(String entityPath) {
    return delayOn(entityDispositionDelays, dispositionDelay, entityPath).drawNanos();
  }

  /** The next delivery's delay from {@code entityPath}, in nanoseconds; 0 for none. */
  long nextDeliveryDelayNanos(String entityPath) {
    return delayOn(entityDeliveryDelays, deliveryDelay, entityPath).drawNanos();
  }

  private static Delay delayOn(
      Map<String, Delay> own, AtomicReference<Delay> shared, String entityPath) {
    Delay delay = own.isEmpty() ? null : own.get(Broker.normalise(entityPath));
    return delay != null ? delay : shared.get();
  }

  private record Delay(Duration mean, double spread) {
    static final Delay NONE = new Delay(Duration.ZERO, 0);

    static Delay of(Duration mean, double spread) {
      Objects.requireNonNull(mean, "delay");
      if (mean.isNegative()) {
        throw new IllegalArgumentException("delay must not be negative but was " + mean);
      }
      return new Delay(mean, Latencies.requireSpread(spread));
    }

    long drawNanos() {
      return Latencies.drawNanos(mean, spread);
    }
  }
}
