package io.idemworker.emulator.servicebus;

import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * What an {@link AmqpConnection} lends the classes that serve its links: the peer's address for
 * logs, the namespace, the injected faults, and the ways back onto its thread.
 *
 * <p>Immutable. {@link #later} and {@link #requestPump} may be called from any thread; everything
 * they lead to runs on the connection thread.
 *
 * @param remote the peer's address, for logs
 * @param broker the namespace the links attach to
 * @param faults the injected delivery and disposition delays
 * @param timer where delayed work waits before it goes back to the connection thread
 * @param connectionThread runs a task on the connection thread
 * @param requestPump asks the connection thread to offer available messages to its receivers
 */
record LinkContext(
    String remote,
    Broker broker,
    Faults faults,
    ScheduledExecutorService timer,
    Executor connectionThread,
    Runnable requestPump) {

  /** Runs {@code task} on the connection thread once {@code delayNanos} have passed. */
  void later(long delayNanos, Runnable task) {
    timer.schedule(() -> connectionThread.execute(task), delayNanos, TimeUnit.NANOSECONDS);
  }
}
