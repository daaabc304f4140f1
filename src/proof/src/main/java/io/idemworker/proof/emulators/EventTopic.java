package io.idemworker.proof.emulators;

import io.idemworker.consumers.CustomerConsumers;
import io.idemworker.emulator.servicebus.CorrelationFilter;
import io.idemworker.emulator.servicebus.SubscriptionRule;
import io.idemworker.emulator.servicebus.SubscriptionSettings;
import io.idemworker.emulator.servicebus.TopicSettings;
import java.time.Duration;
import java.util.List;

/**
 * The topic the outbox relay publishes to in every harness, and its subscriptions: {@code
 * order-events}, where {@code loyalty} and {@code customer-stats} take {@code OrderAccepted} only
 * and {@code audit} takes every event, for the harnesses to read back. The demo and the chaos run
 * create it on their own emulator ({@link #settings}); a namespace the chaos run is given must hold
 * it as is.
 *
 * <p>Constants and a pure function; thread-safe.
 */
public final class EventTopic {
  /** The topic's name. */
  public static final String NAME = "order-events";

  /** The subscription that takes every event: what the harnesses read the events back from. */
  public static final String AUDIT_SUBSCRIPTION = "audit";

  /** The topic consumers, each on the subscription named for its role. */
  public static final List<CustomerConsumers.Role> ROLES =
      List.of(CustomerConsumers.Role.LOYALTY, CustomerConsumers.Role.CUSTOMER_STATS);

  /** The topic consumers' subscriptions (their roles' names), in the order of {@link #ROLES}. */
  public static final List<String> CONSUMERS =
      ROLES.stream().map(CustomerConsumers.Role::roleName).toList();

  private EventTopic() {}

  /**
   * The topic with duplicate detection over {@code window}: {@code loyalty} and {@code
   * customer-stats} take {@code OrderAccepted} only, {@code audit} takes everything.
   *
   * @param window the duplicate-detection window, positive
   * @return the emulator's settings of the topic and its three subscriptions
   */
  public static TopicSettings settings(Duration window) {
    SubscriptionRule accepted =
        SubscriptionRule.correlation(
            "accepted", CorrelationFilter.subject(CustomerConsumers.ORDER_ACCEPTED));
    TopicSettings topic =
        TopicSettings.defaults(NAME)
            .withRequiresDuplicateDetection(true)
            .withDuplicateDetectionHistoryTimeWindow(window);
    for (CustomerConsumers.Role role : ROLES) {
      topic =
          topic.withSubscription(SubscriptionSettings.defaults(role.roleName()).withRule(accepted));
    }
    return topic.withSubscription(SubscriptionSettings.defaults(AUDIT_SUBSCRIPTION));
  }
}
