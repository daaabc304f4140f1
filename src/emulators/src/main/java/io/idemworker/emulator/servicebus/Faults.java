package io.idemworker.emulator.servicebus;

import io.idemworker.emulator.Latencies;
import java.time.Duration;
import java.util.Objects;

/**
 * Fault injection for tests. Thread-safe; every method takes effect immediately.
 *
 * <p>Obtained from {@link ServiceBusEmulator#faults()}.
 */
public final class Faults {
  private final ServiceBusEmulator emulator;
  private volatile Delay dispositionDelay = Delay.NONE;
  private volatile Delay deliveryDelay = Delay.NONE;

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

  /** Removes every fault that is still in effect (the disposition and delivery delays). */
  public void clear() {
    dispositionDelay = Delay.NONE;
    deliveryDelay = Delay.NONE;
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
