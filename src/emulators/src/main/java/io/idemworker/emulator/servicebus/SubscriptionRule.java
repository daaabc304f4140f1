package io.idemworker.emulator.servicebus;

import java.util.Objects;

/**
 * A named rule of a subscription. Rule actions ({@code SET ...}) are not supported.
 *
 * @param name rule name, non-blank
 * @param filter which messages the rule lets into the subscription
 */
public record SubscriptionRule(String name, RuleFilter filter) {
  /** The rule Service Bus gives a subscription created without rules: {@code $Default}, 1=1. */
  public static final SubscriptionRule DEFAULT =
      new SubscriptionRule("$Default", new SqlFilter("1=1"));

  /** Validates the fields. */
  public SubscriptionRule {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException("rule name must not be blank");
    }
    Objects.requireNonNull(filter, "rule " + name + ": filter must not be null");
  }

  /**
   * A rule with a correlation filter.
   *
   * @param name rule name
   * @param filter the filter
   * @return the rule
   */
  public static SubscriptionRule correlation(String name, CorrelationFilter filter) {
    return new SubscriptionRule(name, filter);
  }

  /**
   * A rule with a SQL filter.
   *
   * @param name rule name
   * @param expression the SQL filter expression, see {@link SqlFilter}
   * @return the rule
   * @throws IllegalArgumentException when the expression is not in the supported subset
   */
  public static SubscriptionRule sql(String name, String expression) {
    return new SubscriptionRule(name, new SqlFilter(expression));
  }
}
