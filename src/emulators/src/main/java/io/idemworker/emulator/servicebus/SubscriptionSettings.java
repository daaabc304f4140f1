package io.idemworker.emulator.servicebus;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * Settings of one subscription of an emulated topic, named as in the official Service Bus
 * emulator's {@code Config.json}. A subscription behaves as a queue fed by its topic: it has its
 * own locks, delivery counts and dead-letter subqueue.
 *
 * <p>The record validates itself: a blank name or one containing '/', a non-positive duration, a
 * {@code maxDeliveryCount} below 1 or two rules of one name fail with an {@link
 * IllegalArgumentException} naming the field.
 *
 * @param name subscription name; matched case-insensitively
 * @param lockDuration how long a peek-lock holds a message (LockDuration)
 * @param maxDeliveryCount deliveries after which a message is dead-lettered (MaxDeliveryCount)
 * @param defaultMessageTimeToLive time-to-live of messages that carry none; the topic's is also
 *     applied, the shorter wins
 * @param deadLetteringOnMessageExpiration whether expired messages move to the dead-letter subqueue
 * @param rules the rules; a message is copied in when any matches. Empty means the {@link
 *     SubscriptionRule#DEFAULT} true filter, as in Service Bus
 * @param requiresSession whether the subscription is session-aware (RequiresSession): a matching
 *     message without SessionId is dead-lettered there, and only session receivers may attach
 */
public record SubscriptionSettings(
    String name,
    Duration lockDuration,
    int maxDeliveryCount,
    Duration defaultMessageTimeToLive,
    boolean deadLetteringOnMessageExpiration,
    List<SubscriptionRule> rules,
    boolean requiresSession) {

  /**
   * Settings of a subscription without sessions.
   *
   * @param name subscription name
   * @param lockDuration LockDuration
   * @param maxDeliveryCount MaxDeliveryCount
   * @param defaultMessageTimeToLive DefaultMessageTimeToLive
   * @param deadLetteringOnMessageExpiration DeadLetteringOnMessageExpiration
   * @param rules the rules
   */
  public SubscriptionSettings(
      String name,
      Duration lockDuration,
      int maxDeliveryCount,
      Duration defaultMessageTimeToLive,
      boolean deadLetteringOnMessageExpiration,
      List<SubscriptionRule> rules) {
    this(
        name,
        lockDuration,
        maxDeliveryCount,
        defaultMessageTimeToLive,
        deadLetteringOnMessageExpiration,
        rules,
        false);
  }

  /** Validates every field. */
  public SubscriptionSettings {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException("subscription name must not be blank");
    }
    if (name.contains("/") || name.startsWith("$")) {
      throw new IllegalArgumentException(
          "subscription name must not contain '/' or start with '$' but was '" + name + "'");
    }
    requirePositive("lockDuration", lockDuration);
    if (maxDeliveryCount < 1) {
      throw new IllegalArgumentException(
          "maxDeliveryCount must be >= 1 but was " + maxDeliveryCount);
    }
    requirePositive("defaultMessageTimeToLive", defaultMessageTimeToLive);
    rules = List.copyOf(Objects.requireNonNull(rules, "rules"));
    Set<String> names = new HashSet<>();
    for (SubscriptionRule r : rules) {
      if (!names.add(r.name().toLowerCase(Locale.ROOT))) {
        throw new IllegalArgumentException(
            "subscription " + name + ": rule name " + r.name() + " is used twice");
      }
    }
  }

  /**
   * Returns the defaults: PT1M lock, 10 deliveries, 14 days time-to-live, no dead-lettering on
   * expiry, no rules (so every message matches).
   *
   * @param name subscription name
   * @return default settings
   */
  public static SubscriptionSettings defaults(String name) {
    return new SubscriptionSettings(
        name, Duration.ofMinutes(1), 10, Duration.ofDays(14), false, List.of());
  }

  /**
   * The rules in force: the given ones, or the default true rule when there are none.
   *
   * @return at least one rule
   */
  public List<SubscriptionRule> effectiveRules() {
    return rules.isEmpty() ? List.of(SubscriptionRule.DEFAULT) : rules;
  }

  /**
   * Copies these settings with another lock duration.
   *
   * @param value the new LockDuration
   * @return a copy
   */
  public SubscriptionSettings withLockDuration(Duration value) {
    return new SubscriptionSettings(
        name,
        value,
        maxDeliveryCount,
        defaultMessageTimeToLive,
        deadLetteringOnMessageExpiration,
        rules,
        requiresSession);
  }

  /**
   * Copies these settings with another maximum delivery count.
   *
   * @param value the new MaxDeliveryCount
   * @return a copy
   */
  public SubscriptionSettings withMaxDeliveryCount(int value) {
    return new SubscriptionSettings(
        name,
        lockDuration,
        value,
        defaultMessageTimeToLive,
        deadLetteringOnMessageExpiration,
        rules,
        requiresSession);
  }

  /**
   * Copies these settings with another default time-to-live.
   *
   * @param value the new DefaultMessageTimeToLive
   * @return a copy
   */
  public SubscriptionSettings withDefaultMessageTimeToLive(Duration value) {
    return new SubscriptionSettings(
        name,
        lockDuration,
        maxDeliveryCount,
        value,
        deadLetteringOnMessageExpiration,
        rules,
        requiresSession);
  }

  /**
   * Copies these settings with dead-lettering on expiry switched on or off.
   *
   * @param value the new DeadLetteringOnMessageExpiration
   * @return a copy
   */
  public SubscriptionSettings withDeadLetteringOnMessageExpiration(boolean value) {
    return new SubscriptionSettings(
        name,
        lockDuration,
        maxDeliveryCount,
        defaultMessageTimeToLive,
        value,
        rules,
        requiresSession);
  }

  /**
   * Copies these settings with one more rule.
   *
   * @param rule the rule to add
   * @return a copy
   */
  public SubscriptionSettings withRule(SubscriptionRule rule) {
    List<SubscriptionRule> more = new ArrayList<>(rules);
    more.add(Objects.requireNonNull(rule, "rule"));
    return new SubscriptionSettings(
        name,
        lockDuration,
        maxDeliveryCount,
        defaultMessageTimeToLive,
        deadLetteringOnMessageExpiration,
        more,
        requiresSession);
  }

  /**
   * Copies these settings with sessions required or not.
   *
   * @param value the new RequiresSession
   * @return a copy
   */
  public SubscriptionSettings withRequiresSession(boolean value) {
    return new SubscriptionSettings(
        name,
        lockDuration,
        maxDeliveryCount,
        defaultMessageTimeToLive,
        deadLetteringOnMessageExpiration,
        rules,
        value);
  }

  static void requirePositive(String field, Duration value) {
    Objects.requireNonNull(value, field + " must not be null");
    if (value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(field + " must be positive but was " + value);
    }
  }
}
