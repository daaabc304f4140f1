package io.idemworker.emulator.servicebus;

import java.util.Objects;
import org.apache.qpid.proton.message.Message;

/**
 * A SQL filter over a message's system and application properties, in the subset of Service Bus's
 * SQL filter syntax that this emulator implements:
 *
 * <ul>
 *   <li>properties: {@code sys.<name>} for MessageId, CorrelationId, To, ReplyTo, Label (or
 *       Subject), SessionId, ReplyToSessionId, ContentType; {@code user.<name>} or a bare name for
 *       an application property; {@code [name with spaces]} quotes a name. Names are
 *       case-insensitive.
 *   <li>constants: {@code 'text'} ({@code ''} for a quote), integers, decimals, TRUE, FALSE, NULL.
 *   <li>predicates: {@code = <> != < <= > >=}, {@code [NOT] IN (...)}, {@code [NOT] LIKE 'pattern'}
 *       ({@code %} and {@code _}), {@code IS [NOT] NULL}, {@code EXISTS(property)}, AND, OR, NOT
 *       and parentheses.
 * </ul>
 *
 * <p>Comparisons follow SQL's three-valued logic: a missing property makes a comparison unknown,
 * and a message matches only when the whole expression is true. Strings compare case-sensitively;
 * numbers compare by value whatever their AMQP type; comparing a string with a number is unknown.
 * Arithmetic, functions and {@code ESCAPE} are refused when the filter is made.
 *
 * <p>Immutable and thread-safe; equal when the expressions are equal.
 */
public final class SqlFilter implements RuleFilter {
  private final String expression;
  private final SqlExpression.Predicate parsed;

  /**
   * Parses a filter expression.
   *
   * @param expression the expression, e.g. {@code sys.Label = 'OrderAccepted' AND region = 'eu'}
   * @throws IllegalArgumentException when the expression is blank or outside the supported subset;
   *     the message gives the position
   */
  public SqlFilter(String expression) {
    if (expression == null || expression.isBlank()) {
      throw new IllegalArgumentException("SQL filter expression must not be blank");
    }
    this.expression = expression;
    this.parsed = SqlExpression.parse(expression);
  }

  /**
   * Returns the expression as given.
   *
   * @return the expression text
   */
  public String expression() {
    return expression;
  }

  boolean matches(Message m) {
    return parsed.test(m) == SqlExpression.Truth.TRUE;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SqlFilter other && other.expression.equals(expression);
  }

  @Override
  public int hashCode() {
    return Objects.hash(expression);
  }

  @Override
  public String toString() {
    return "SqlFilter[" + expression + "]";
  }
}
