package io.idemworker.servicebus.internal;

import java.time.Duration;

/**
 * Waits out a back-off or another attempt's lease; the production one ({@link #REAL_TIME}) sleeps,
 * tests pass one that moves a test clock.
 */
@FunctionalInterface
public interface Sleeper {
  /** Waits in real time: a back-off, not a synchronisation. */
  Sleeper REAL_TIME = wait -> Thread.sleep(wait.toMillis());

  /**
   * Waits.
   *
   * @param wait how long
   * @throws InterruptedException when interrupted
   */
  void sleep(Duration wait) throws InterruptedException;
}
