package io.idemworker.servicebus;

import io.idemworker.servicebus.processor.ServiceBusWorker;
import io.idemworker.servicebus.sessions.SessionWorker;
import java.time.Duration;

/**
 * What {@code run} starts and stops: the plain {@link ServiceBusWorker} or, in session mode, the
 * {@link SessionWorker}. Thread-safe; {@link #shutdown} is idempotent.
 */
public interface MessageWorker extends AutoCloseable {

  /**
   * Starts taking messages.
   *
   * @throws IllegalStateException when already started or shut down
   */
  void start();

  /**
   * The current status, for the readiness endpoint.
   *
   * @return the status
   */
  WorkerStatus status();

  /**
   * Stops taking messages, lets the deliveries in flight finish within {@code timeout}, then closes
   * the connection.
   *
   * @param timeout how long to wait for in-flight deliveries
   * @return true when every in-flight delivery was settled in time
   */
  boolean shutdown(Duration timeout);

  @Override
  default void close() {
    shutdown(Duration.ofSeconds(30));
  }
}
