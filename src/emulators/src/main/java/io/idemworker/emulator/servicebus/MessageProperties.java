package io.idemworker.emulator.servicebus;

import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.amqp.messaging.Properties;
import org.apache.qpid.proton.message.Message;

/** Reads the properties subscription rules test. Stateless. */
final class MessageProperties {
  private MessageProperties() {}

  /** Whether {@code name} (case-insensitive, {@code Subject} = {@code Label}) is known here. */
  static boolean isSystemProperty(String name) {
    return switch (name.toLowerCase(Locale.ROOT)) {
      case "messageid",
          "correlationid",
          "to",
          "replyto",
          "label",
          "subject",
          "sessionid",
          "replytosessionid",
          "contenttype" ->
          true;
      default -> false;
    };
  }

  /**
   * A system property as text; empty when the message does not carry it. Ids that are not strings
   * (uuid, ulong, binary) compare by their text form.
   */
  static Optional<String> system(Message m, String name) {
    Properties p = m.getProperties();
    if (p == null) {
      return Optional.empty();
    }
    Object v =
        switch (name.toLowerCase(Locale.ROOT)) {
          case "messageid" -> p.getMessageId();
          case "correlationid" -> p.getCorrelationId();
          case "to" -> p.getTo();
          case "replyto" -> p.getReplyTo();
          case "label", "subject" -> p.getSubject();
          case "sessionid" -> p.getGroupId();
          case "replytosessionid" -> p.getReplyToGroupId();
          case "contenttype" -> p.getContentType();
          default -> throw new IllegalArgumentException("unknown system property " + name);
        };
    return v == null ? Optional.empty() : Optional.of(v.toString());
  }

  /** The application properties of a message, never null. */
  static Map<String, Object> application(Message m) {
    if (m.getApplicationProperties() == null || m.getApplicationProperties().getValue() == null) {
      return Map.of();
    }
    return m.getApplicationProperties().getValue();
  }

  /**
   * Looks an application property up: by exact name first, then ignoring case; a symbol value reads
   * as a string.
   */
  static Optional<Map.Entry<String, Object>> applicationIgnoringCase(Message m, String name) {
    Map<String, Object> props = application(m);
    if (props.containsKey(name)) {
      return Optional.of(Map.entry(name, normalise(props.get(name))));
    }
    for (Map.Entry<String, Object> e : props.entrySet()) {
      if (e.getKey().equalsIgnoreCase(name)) {
        return Optional.of(Map.entry(e.getKey(), normalise(e.getValue())));
      }
    }
    return Optional.empty();
  }

  private static Object normalise(Object v) {
    return v instanceof Symbol s ? s.toString() : v == null ? NULL : v;
  }

  /** Stands for a property present with a null value (Map.entry takes no nulls). */
  static final Object NULL = new Object();
}
