package io.idemworker.emulator.servicebus;

import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.message.Message;

/**
 * A correlation filter: a message matches when every property the filter sets is equal in the
 * message. System properties are compared as strings (a non-string message-id by its text form);
 * application properties by value, numbers numerically ({@code 5} matches {@code 5L}).
 *
 * <p>Immutable; the record validates itself: an unknown system property name or an empty filter
 * fails with an {@link IllegalArgumentException} naming it.
 *
 * @param systemProperties values by system property name, one of {@link #SYSTEM_PROPERTIES}
 *     (case-insensitive; {@code Subject} is a synonym of {@code Label}); stored under the canonical
 *     name
 * @param applicationProperties values by application property name (case-sensitive); values are
 *     strings, numbers or booleans
 */
public record CorrelationFilter(
    Map<String, String> systemProperties, Map<String, Object> applicationProperties)
    implements RuleFilter {

  /** The system properties a correlation filter can test, as named in Service Bus. */
  public static final Set<String> SYSTEM_PROPERTIES =
      Set.of(
          "ContentType",
          "CorrelationId",
          "Label",
          "MessageId",
          "ReplyTo",
          "ReplyToSessionId",
          "SessionId",
          "To");

  /** Validates and canonicalises the names. */
  public CorrelationFilter {
    Objects.requireNonNull(systemProperties, "systemProperties");
    Objects.requireNonNull(applicationProperties, "applicationProperties");
    Map<String, String> canonical = new TreeMap<>();
    systemProperties.forEach(
        (k, v) -> {
          String name = canonicalName(k);
          if (v == null) {
            throw new IllegalArgumentException("correlation filter " + name + " must not be null");
          }
          canonical.put(name, v);
        });
    Map<String, Object> app = new LinkedHashMap<>();
    applicationProperties.forEach(
        (k, v) -> {
          if (k == null || k.isEmpty()) {
            throw new IllegalArgumentException(
                "correlation filter application property names must not be empty");
          }
          if (!(v instanceof String || v instanceof Number || v instanceof Boolean)) {
            throw new IllegalArgumentException(
                "correlation filter application property "
                    + k
                    + " must be a string, number or boolean but was "
                    + v);
          }
          app.put(k, v);
        });
    if (canonical.isEmpty() && app.isEmpty()) {
      throw new IllegalArgumentException("correlation filter must set at least one property");
    }
    systemProperties = Map.copyOf(canonical);
    applicationProperties = Map.copyOf(app);
  }

  /**
   * A filter on the message's subject (Service Bus {@code Label}).
   *
   * @param subject the subject to match
   * @return the filter
   */
  public static CorrelationFilter subject(String subject) {
    return new CorrelationFilter(Map.of("Label", subject), Map.of());
  }

  /**
   * Copies this filter with one more system property condition.
   *
   * @param name system property name, see {@link #SYSTEM_PROPERTIES}
   * @param value the value it must have
   * @return a copy
   */
  public CorrelationFilter with(String name, String value) {
    Map<String, String> sys = new TreeMap<>(systemProperties);
    sys.put(canonicalName(name), value);
    return new CorrelationFilter(sys, applicationProperties);
  }

  /**
   * Copies this filter with one more application property condition.
   *
   * @param name application property name
   * @param value the value it must have: a string, number or boolean
   * @return a copy
   */
  public CorrelationFilter withApplicationProperty(String name, Object value) {
    Map<String, Object> app = new LinkedHashMap<>(applicationProperties);
    app.put(name, value);
    return new CorrelationFilter(systemProperties, app);
  }

  boolean matches(Message m) {
    for (Map.Entry<String, String> e : systemProperties.entrySet()) {
      if (!MessageProperties.system(m, e.getKey()).map(e.getValue()::equals).orElse(false)) {
        return false;
      }
    }
    Map<String, Object> actual = MessageProperties.application(m);
    for (Map.Entry<String, Object> e : applicationProperties.entrySet()) {
      if (!sameValue(e.getValue(), actual.get(e.getKey()))) {
        return false;
      }
    }
    return true;
  }

  private static boolean sameValue(Object wanted, Object actual) {
    if (actual instanceof Symbol s) {
      actual = s.toString();
    }
    if (wanted instanceof Number w && actual instanceof Number a) {
      try {
        return new BigDecimal(w.toString()).compareTo(new BigDecimal(a.toString())) == 0;
      } catch (NumberFormatException e) {
        return false; // NaN or infinity never equals a filter value
      }
    }
    return wanted.equals(actual);
  }

  private static String canonicalName(String name) {
    if (name == null) {
      throw new IllegalArgumentException("correlation filter property name must not be null");
    }
    String lower = name.toLowerCase(Locale.ROOT);
    if (lower.equals("subject")) {
      return "Label";
    }
    for (String known : SYSTEM_PROPERTIES) {
      if (known.toLowerCase(Locale.ROOT).equals(lower)) {
        return known;
      }
    }
    throw new IllegalArgumentException(
        "correlation filter property "
            + name
            + " is not one of "
            + new TreeSet<>(SYSTEM_PROPERTIES));
  }
}
