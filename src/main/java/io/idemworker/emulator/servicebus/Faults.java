package io.idemworker.emulator.servicebus;

import java.time.Duration;
import java.util.Objects;

/**
 * Fault injection for tests. Thread-safe; every method takes effect immediately.
 *
 * <p>Obtained from {@link ServiceBusEmulator#faults()}.
 */
public final class Faults {
  private final ServiceBusEmulator emulator;
  private volatile Duration dispositionDelay = Duration.ZERO;

  Faults(ServiceBusEmulator emulator) {
    this.emulator = emulator;
  }

  /**
   * Closes every client connection abruptly (TCP close without an AMQP close frame), as a network
   * failure would. When it returns, nothing more is read from those sockets and the locks they held
   * are back on their queues (delivery count + 1), unless a connection thread failed to stop within
   * 5 seconds. The listener stays open, so clients reconnect.
   */
  public void dropConnections() {
    emulator.dropConnections();
  }

  /**
   * Makes every lock currently held on a queue or a subscription (and its dead-letter subqueue)
   * expire now: the messages return to the queue or subscription with their delivery count
   * incremented, and settling them answers {@code com.microsoft:message-lock-lost}.
   *
   * @param entity queue name or subscription path {@code topic/Subscriptions/name},
   *     case-insensitive
   * @return how many locks were lost
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
    Objects.requireNonNull(delay, "delay");
    if (delay.isNegative()) {
      throw new IllegalArgumentException("delay must not be negative but was " + delay);
    }
    dispositionDelay = delay;
  }

  /** Removes every fault that is still in effect (currently the disposition delay). */
  public void clear() {
    dispositionDelay = Duration.ZERO;
  }

  Duration dispositionDelay() {
    return dispositionDelay;
  }
}
