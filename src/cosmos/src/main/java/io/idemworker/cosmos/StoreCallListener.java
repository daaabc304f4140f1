package io.idemworker.cosmos;

import java.time.Duration;

/**
 * Observes every call the adapter makes to Cosmos DB: one call is one round trip. Implementations
 * must be thread-safe and fast; they run on the calling thread.
 */
public interface StoreCallListener {

  /**
   * Reports one round trip.
   *
   * @param operation {@code batch} or {@code read}
   * @param statusCode the response's status code (0 when there was none)
   * @param requestCharge the request units charged
   * @param latency how long the call took, SDK retries included
   */
  void onCall(String operation, int statusCode, double requestCharge, Duration latency);

  /**
   * A listener that does nothing.
   *
   * @return the listener
   */
  static StoreCallListener none() {
    return (operation, statusCode, requestCharge, latency) -> {};
  }
}
