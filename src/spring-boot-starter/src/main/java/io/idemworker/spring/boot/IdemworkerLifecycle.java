package io.idemworker.spring.boot;

import io.idemworker.azure.IdempotentWorker;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Starts the worker when the context is ready (after the web server, so the health endpoint is up
 * first) and stops it first in Spring's graceful shutdown, draining the deliveries in flight.
 */
public class IdemworkerLifecycle implements SmartLifecycle {
  /** After the web server starts, before it stops. */
  public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 512;

  private static final Logger LOG = LoggerFactory.getLogger(IdemworkerLifecycle.class);

  private final IdempotentWorker worker;
  private final Duration shutdownTimeout;
  private volatile boolean running;
  private volatile boolean drained;

  /**
   * The lifecycle of one worker.
   *
   * @param worker the worker, built and not started
   * @param shutdownTimeout how long stopping waits for deliveries in flight
   */
  public IdemworkerLifecycle(IdempotentWorker worker, Duration shutdownTimeout) {
    this.worker = worker;
    this.shutdownTimeout = shutdownTimeout;
  }

  @Override
  public synchronized void start() {
    if (!running) {
      worker.start();
      running = true;
    }
  }

  @Override
  public void stop() {
    drain();
  }

  @Override
  public void stop(Runnable callback) {
    Thread thread =
        new Thread(
            () -> {
              try {
                drain();
              } finally {
                callback.run();
              }
            },
            "idemworker-shutdown");
    thread.start();
  }

  private synchronized void drain() {
    if (running) {
      drained = worker.shutdown(shutdownTimeout);
      running = false;
      if (drained) {
        LOG.info("idempotent worker stopped; every delivery in flight was settled");
      } else {
        LOG.warn(
            "idempotent worker stopped with deliveries still in flight after {}: the broker will"
                + " deliver them again, and they will be found done or done then",
            shutdownTimeout);
      }
    }
  }

  /**
   * Whether the last stop settled every delivery in flight within the timeout.
   *
   * @return true when drained
   */
  public boolean drained() {
    return drained;
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  @Override
  public int getPhase() {
    return PHASE;
  }
}
