package io.idemworker.emulator.servicebus;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * Settings of one emulated topic and its subscriptions, named as in the official Service Bus
 * emulator's {@code Config.json}. Duplicate detection is a property of the topic: a message whose
 * message-id was seen inside the window reaches no subscription.
 *
 * <p>The record validates itself: a bad name, a non-positive duration or two subscriptions of one
 * name fail with an {@link IllegalArgumentException} naming the field.
 *
 * @param name topic name; matched case-insensitively
 * @param requiresDuplicateDetection whether repeated message-ids are dropped
 * @param duplicateDetectionHistoryTimeWindow how long a message-id is remembered
 * @param defaultMessageTimeToLive time-to-live of messages that carry none, and the upper bound of
 *     those that do
 * @param subscriptions the subscriptions; a topic without any accepts and drops every message
 */
public record TopicSettings(
    String name,
    boolean requiresDuplicateDetection,
    Duration duplicateDetectionHistoryTimeWindow,
    Duration defaultMessageTimeToLive,
    List<SubscriptionSettings> subscriptions) {

  /** Validates every field. */
  public TopicSettings {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException("name must not be blank");
    }
    if (name.startsWith("/") || name.endsWith("/") || name.startsWith("$")) {
      throw new IllegalArgumentException(
          "name must not start or end with '/' or start with '$' but was '" + name + "'");
    }
    if (name.toLowerCase(Locale.ROOT).contains("/subscriptions/")) {
      throw new IllegalArgumentException(
          "name must not contain '/Subscriptions/' but was '" + name + "'");
    }
    QueueSettings.requireDuplicateWindow(duplicateDetectionHistoryTimeWindow);
    SubscriptionSettings.requirePositive("defaultMessageTimeToLive", defaultMessageTimeToLive);
    subscriptions = List.copyOf(Objects.requireNonNull(subscriptions, "subscriptions"));
    Set<String> names = new HashSet<>();
    for (SubscriptionSettings s : subscriptions) {
      if (!names.add(s.name().toLowerCase(Locale.ROOT))) {
        throw new IllegalArgumentException(
            "topic " + name + ": subscription name " + s.name() + " is used twice");
      }
    }
  }

  /**
   * Returns the defaults: no duplicate detection, PT10M duplicate window, 14 days time-to-live, no
   * subscriptions.
   *
   * @param name topic name
   * @return default settings
   */
  public static TopicSettings defaults(String name) {
    return new TopicSettings(name, false, Duration.ofMinutes(10), Duration.ofDays(14), List.of());
  }

  /**
   * Copies these settings with duplicate detection switched on or off.
   *
   * @param value the new RequiresDuplicateDetection
   * @return a copy
   */
  public TopicSettings withRequiresDuplicateDetection(boolean value) {
    return new TopicSettings(
        name, value, duplicateDetectionHistoryTimeWindow, defaultMessageTimeToLive, subscriptions);
  }

  /**
   * Copies these settings with another duplicate detection window.
   *
   * @param value the new DuplicateDetectionHistoryTimeWindow
   * @return a copy
   */
  public TopicSettings withDuplicateDetectionHistoryTimeWindow(Duration value) {
    return new TopicSettings(
        name, requiresDuplicateDetection, value, defaultMessageTimeToLive, subscriptions);
  }

  /**
   * Copies these settings with another default time-to-live.
   *
   * @param value the new DefaultMessageTimeToLive
   * @return a copy
   */
  public TopicSettings withDefaultMessageTimeToLive(Duration value) {
    return new TopicSettings(
        name,
        requiresDuplicateDetection,
        duplicateDetectionHistoryTimeWindow,
        value,
        subscriptions);
  }

  /**
   * Copies these settings with one more subscription.
   *
   * @param subscription the subscription
   * @return a copy
   */
  public TopicSettings withSubscription(SubscriptionSettings subscription) {
    List<SubscriptionSettings> more = new ArrayList<>(subscriptions);
    more.add(Objects.requireNonNull(subscription, "subscription"));
    return new TopicSettings(
        name,
        requiresDuplicateDetection,
        duplicateDetectionHistoryTimeWindow,
        defaultMessageTimeToLive,
        more);
  }

  /** The entity path of a subscription: {@code topic/Subscriptions/name}. */
  String subscriptionPath(SubscriptionSettings s) {
    return name + Broker.SUBSCRIPTIONS_SEGMENT + s.name();
  }
}
