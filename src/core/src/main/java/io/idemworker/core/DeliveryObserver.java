package io.idemworker.core;

import java.time.Duration;

/**
 * Watches deliveries from arrival to settlement: where metrics, logs and traces hook in.
 * Implementations must be thread-safe and must not throw; they run on the processing thread.
 */
public interface DeliveryObserver {

  /**
   * Called when a delivery arrives, before it is handled.
   *
   * @param message the delivery
   * @return the observation that is told how the delivery ended
   */
  Observation start(IncomingMessage message);

  /** The observation of one delivery. */
  interface Observation {

    /**
     * Called once, after the delivery was handled and its settlement attempted.
     *
     * @param outcome how it ended
     * @param elapsed the time from arrival to settlement
     * @param settled false when the settlement itself failed (e.g. the lock was lost); the broker
     *     will redeliver and the redelivery takes the duplicate path
     */
    void finish(Outcome outcome, Duration elapsed, boolean settled);
  }

  /**
   * An observer that does nothing.
   *
   * @return the observer
   */
  static DeliveryObserver none() {
    return message -> (outcome, elapsed, settled) -> {};
  }

  /**
   * Combines observers; each is called in order.
   *
   * @param observers the observers
   * @return the combined observer
   */
  static DeliveryObserver all(DeliveryObserver... observers) {
    DeliveryObserver[] copy = observers.clone();
    return message -> {
      Observation[] started = new Observation[copy.length];
      for (int i = 0; i < copy.length; i++) {
        started[i] = copy[i].start(message);
      }
      return (outcome, elapsed, settled) -> {
        for (Observation observation : started) {
          observation.finish(outcome, elapsed, settled);
        }
      };
    };
  }
}
