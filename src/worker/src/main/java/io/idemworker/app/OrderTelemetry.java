package io.idemworker.app;

import io.idemworker.telemetry.Telemetry;
import io.idemworker.telemetry.TelemetryNames;
import java.util.Map;

/**
 * What the order worker's telemetry calls an order: span attribute {@code idemworker.order_id}, the
 * {@code orderId} field of every outcome line, and {@code idemworker.sessions.orders.*} for parked
 * sessions. Dashboards, alerts and the docs read these names, so they are the worker's contract.
 */
public final class OrderTelemetry {
  /** The worker's names. */
  public static final TelemetryNames NAMES =
      new TelemetryNames("idemworker.order_id", "orderId", "orders");

  private OrderTelemetry() {}

  /**
   * Telemetry exporting where the environment says, naming the queue from {@code
   * SERVICEBUS_QUEUE_NAME} ({@code orders} when unset or blank).
   *
   * @param env the environment
   * @return the telemetry; the caller closes it
   */
  public static Telemetry fromEnvironment(Map<String, String> env) {
    String queue = env.getOrDefault("SERVICEBUS_QUEUE_NAME", "orders").strip();
    return Telemetry.fromEnvironment(env, queue.isEmpty() ? "orders" : queue, NAMES);
  }
}
