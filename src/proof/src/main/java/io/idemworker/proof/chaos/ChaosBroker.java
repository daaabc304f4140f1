package io.idemworker.proof.chaos;

import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusReceiverClient;
import io.idemworker.emulator.Latencies;
import io.idemworker.emulator.servicebus.ServiceBusEmulator;
import io.idemworker.proof.emulators.AdjustableClock;
import java.io.PrintStream;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The broker a chaos run sends to and drains: its own in-process emulator ({@link #emulated}), or a
 * namespace it is given ({@link #external}). The two differ in what the run can do to them:
 *
 * <ul>
 *   <li>Unsettled messages ({@link #unsettled}): the emulator's own count; on a given namespace a
 *       peek through the AMQP client, which a Listen right may do (the administration client's
 *       counts need Manage). A peek sees every message the entity holds, locked, deferred and
 *       scheduled ones included, as the emulator's count does; it does not see dead-letters, which
 *       live in their own sub-queue.
 *   <li>Past the duplicate-detection window ({@link #pastWindow}): the emulator's clock moves; on a
 *       given namespace the run waits out the window, so the copies meant to arrive past it are
 *       held back and sent together after the drain ({@link #holdsBackPastWindow}).
 * </ul>
 *
 * <p>Not thread-safe: the chaos loop's thread drives it.
 */
final class ChaosBroker implements AutoCloseable {
  /** A peek page: the service answers at most this many per call anyway. */
  private static final int PAGE = 250;

  /**
   * Added to the window when it is waited out: the broker measures it on its own clock, which may
   * be a little behind this machine's.
   */
  static final Duration CLOCK_MARGIN = Duration.ofSeconds(2);

  private static final long FAILURE_PRINT_NANOS = 5_000_000_000L;

  private final String connectionString;
  private final Optional<ServiceBusEmulator> emulator;
  private final Optional<AdjustableClock> clock;
  private final Duration window;
  private final PrintStream log;
  private final Map<String, ServiceBusReceiverClient> peekers = new HashMap<>();
  private long lastFailurePrint;

  private ChaosBroker(
      String connectionString,
      Optional<ServiceBusEmulator> emulator,
      Optional<AdjustableClock> clock,
      Duration window,
      PrintStream log) {
    if (window.isNegative() || window.isZero()) {
      throw new IllegalArgumentException("the duplicate-detection window must be positive");
    }
    this.connectionString = connectionString;
    this.emulator = emulator;
    this.clock = clock;
    this.window = window;
    this.log = log;
  }

  /**
   * The run's own emulator, whose clock it moves past {@code window}.
   *
   * @param emulator the broker
   * @param clock the broker's clock
   * @param window the queue's duplicate-detection window
   */
  static ChaosBroker emulated(
      ServiceBusEmulator emulator, AdjustableClock clock, Duration window, PrintStream log) {
    return new ChaosBroker(
        emulator.connectionString(), Optional.of(emulator), Optional.of(clock), window, log);
  }

  /**
   * A namespace the run is given.
   *
   * @param connectionString with Send and Listen rights on the queue and the topic
   * @param window the queue's duplicate-detection window (at least as long as the queue's own, or
   *     the broker drops the copies meant to arrive past it)
   * @param log where peek failures are told
   */
  static ChaosBroker external(String connectionString, Duration window, PrintStream log) {
    return new ChaosBroker(connectionString, Optional.empty(), Optional.empty(), window, log);
  }

  String connectionString() {
    return connectionString;
  }

  /** The emulator, when the run started its own. */
  Optional<ServiceBusEmulator> emulator() {
    return emulator;
  }

  Duration window() {
    return window;
  }

  /**
   * Whether the copies meant to arrive past the window are held back until after the drain: there
   * is no clock to move, and waiting out the window once per wave would make the run hours long.
   */
  boolean holdsBackPastWindow() {
    return clock.isEmpty();
  }

  /** How often a wait on {@link #unsettled} polls: a peek is a round trip to the service. */
  long pollMillis() {
    return emulator.isPresent() ? 50 : 500;
  }

  /**
   * How many messages a queue or subscription ({@code topic/Subscriptions/name}) holds unsettled:
   * available, locked, deferred or scheduled.
   *
   * @param atMost a peek stops counting past this (the emulator's count is exact)
   * @return the count, {@code atMost + 1} when a peek found more; {@link Integer#MAX_VALUE} when a
   *     peek failed (told on the log, at most every 5 s): the caller waits and asks again
   */
  int unsettled(String entity, int atMost) {
    if (emulator.isPresent()) {
      return emulator.get().unsettledCount(entity);
    }
    try {
      return peekCount(peeker(entity), atMost);
    } catch (RuntimeException e) {
      if (System.nanoTime() - lastFailurePrint > FAILURE_PRINT_NANOS) {
        lastFailurePrint = System.nanoTime();
        log.println("  peeking " + entity + " failed, trying again: " + e.getMessage());
      }
      return Integer.MAX_VALUE;
    }
  }

  /** Counts by peeking from the first sequence number, page by page, up to {@code atMost + 1}. */
  static int peekCount(ServiceBusReceiverClient receiver, int atMost) {
    int found = 0;
    long next = 0;
    while (found <= atMost) {
      int page = 0;
      for (ServiceBusReceivedMessage m :
          receiver.peekMessages(Math.min(PAGE, atMost + 1 - found), next)) {
        page++;
        next = Math.max(next, m.getSequenceNumber() + 1);
      }
      if (page == 0) {
        return found;
      }
      found += page;
    }
    return found;
  }

  /**
   * Moves past the duplicate-detection window: the emulator's clock by the window and a second; on
   * a given namespace, waits until the window and {@link #CLOCK_MARGIN} have passed since {@code
   * lastSendNanos} (a {@link System#nanoTime} reading), or until {@code deadline}.
   *
   * @return false when the deadline came first
   */
  boolean pastWindow(long lastSendNanos, long deadline) throws InterruptedException {
    if (clock.isPresent()) {
      clock.get().advance(window.plusSeconds(1));
      return true;
    }
    long until = lastSendNanos + window.plus(CLOCK_MARGIN).toNanos();
    if (until - deadline > 0) {
      return false;
    }
    // Waiting out the broker's window is the point here: nothing signals its end.
    Latencies.awaitNanoTime(until);
    return true;
  }

  private ServiceBusReceiverClient peeker(String entity) {
    return peekers.computeIfAbsent(entity, e -> receiver(connectionString, e).buildClient());
  }

  /** A peek-lock receiver of a queue or of {@code topic/Subscriptions/name}, not yet connected. */
  static ServiceBusClientBuilder.ServiceBusReceiverClientBuilder receiver(
      String connectionString, String entity) {
    ServiceBusClientBuilder.ServiceBusReceiverClientBuilder builder =
        new ServiceBusClientBuilder().connectionString(connectionString).receiver();
    int at = entity.toLowerCase(java.util.Locale.ROOT).indexOf("/subscriptions/");
    return at < 0
        ? builder.queueName(entity)
        : builder
            .topicName(entity.substring(0, at))
            .subscriptionName(entity.substring(at + "/subscriptions/".length()));
  }

  @Override
  public void close() {
    peekers.values().forEach(ServiceBusReceiverClient::close);
    peekers.clear();
  }
}
