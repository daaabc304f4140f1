package io.idemworker.emulator.servicebus;

import io.idemworker.emulator.Latencies;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Fault injection for tests. Thread-safe; every method takes effect immediately.
 *
 * <p>Obtained from {@link ServiceBusEmulator#faults()}.
 */
public final class Faults {
  private final ServiceBusEmulator emulator;
  private volatile Delay dispositionDelay = Delay.NONE;
  private volatile Delay deliveryDelay = Delay.NONE;
  private final Map<String, AtomicInteger> renewalsToRefuse = new ConcurrentHashMap<>();
  private final AtomicInteger refusedRenewals = new AtomicInteger();
  private final Map<String, AtomicInteger> sessionRenewalsToRefuse = new ConcurrentHashMap<>();
  private final AtomicInteger refusedSessionRenewals = new AtomicInteger();

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
    dispositionDelay = Delay.of(mean, spread);
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
    deliveryDelay = Delay.of(mean, spread);
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
    String path = emulator.broker().requireQueueOrSubscription(entity);
    renewalsToRefuse.computeIfAbsent(path, p -> new AtomicInteger()).addAndGet(count);
  }

  /**
   * How many lock renewals {@link #refuseLockRenewals} has refused since the emulator started or
   * {@link #clear()} last ran.
   *
   * @return the count
   */
  public int refusedLockRenewals() {
    return refusedRenewals.get();
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
    String path = emulator.broker().requireQueueOrSubscription(entity);
    sessionRenewalsToRefuse.computeIfAbsent(path, p -> new AtomicInteger()).addAndGet(count);
  }

  /**
   * How many session lock renewals {@link #refuseSessionLockRenewals} has refused since the
   * emulator started or {@link #clear()} last ran.
   *
   * @return the count
   */
  public int refusedSessionLockRenewals() {
    return refusedSessionRenewals.get();
  }

  /**
   * Removes every fault that is still in effect (the disposition and delivery delays, renewals
   * still to refuse) and resets the counts of refused renewals.
   */
  public void clear() {
    dispositionDelay = Delay.NONE;
    deliveryDelay = Delay.NONE;
    renewalsToRefuse.clear();
    refusedRenewals.set(0);
    sessionRenewalsToRefuse.clear();
    refusedSessionRenewals.set(0);
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
      Map<String, AtomicInteger> toRefuse, AtomicInteger refused, String entityPath) {
    AtomicInteger left = toRefuse.get(Broker.normalise(entityPath));
    if (left == null || left.getAndUpdate(n -> Math.max(0, n - 1)) <= 0) {
      return false;
    }
    refused.incrementAndGet();
    return true;
  }

  /** The next disposition answer's delay in nanoseconds; 0 for none. */
  long nextDispositionDelayNanos() {
    return dispositionDelay.drawNanos();
  }

  /** The next delivery's delay in nanoseconds; 0 for none. */
  long nextDeliveryDelayNanos() {
    return deliveryDelay.drawNanos();
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
