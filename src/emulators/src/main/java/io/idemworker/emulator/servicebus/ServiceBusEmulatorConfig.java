package io.idemworker.emulator.servicebus;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads queue and topic definitions from a file in the format of Microsoft's Service Bus emulator
 * {@code Config.json}.
 *
 * <p>{@code UserConfig.Namespaces[*].Queues[*]} and {@code Topics[*]} (with {@code
 * Subscriptions[*]} and their {@code Rules[*]}) are read; {@code Logging} is ignored. Missing
 * properties take the values of {@link QueueSettings#defaults(String)}, {@link
 * TopicSettings#defaults(String)} and {@link SubscriptionSettings#defaults(String)}. Durations are
 * ISO-8601 ({@code PT1M}) or .NET TimeSpan ({@code 00:01:00}, {@code 1.00:00:00}). What the
 * emulator does not implement (auto-forwarding, rule actions) is refused, naming the field, rather
 * than ignored.
 */
public final class ServiceBusEmulatorConfig {
  private static final Pattern TIME_SPAN =
      Pattern.compile("^(?:(\\d+)\\.)?(\\d{1,2}):(\\d{2}):(\\d{2})(?:\\.(\\d{1,7}))?$");

  private ServiceBusEmulatorConfig() {}

  /**
   * The entities of a Config.json.
   *
   * @param queues the queues, in file order
   * @param topics the topics with their subscriptions, in file order
   */
  public record Entities(List<QueueSettings> queues, List<TopicSettings> topics) {
    /** Copies the lists. */
    public Entities {
      queues = List.copyOf(queues);
      topics = List.copyOf(topics);
    }
  }

  /**
   * Loads the queues and topics defined in a Config.json file.
   *
   * @param file path of the file
   * @return the queues and topics of every namespace, in file order
   * @throws IllegalArgumentException when the file is not valid JSON or a field is missing or bad;
   *     the message names the field by its JSON path
   * @throws UncheckedIOException when the file cannot be read
   */
  public static Entities load(Path file) {
    String json;
    try {
      json = Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read Service Bus emulator config " + file, e);
    }
    return parse(json, file.toString());
  }

  static Entities parse(String json, String source) {
    JsonNode root;
    try {
      root = new ObjectMapper().readTree(json);
    } catch (IOException e) {
      throw new IllegalArgumentException(source + ": not valid JSON: " + e.getMessage(), e);
    }
    JsonNode namespaces = root == null ? null : root.path("UserConfig").get("Namespaces");
    if (namespaces == null || !namespaces.isArray()) {
      throw new IllegalArgumentException(source + ": UserConfig.Namespaces must be an array");
    }
    List<QueueSettings> result = new ArrayList<>();
    List<TopicSettings> topicResult = new ArrayList<>();
    for (int n = 0; n < namespaces.size(); n++) {
      JsonNode namespace = namespaces.get(n);
      String nsPath = source + ": UserConfig.Namespaces[" + n + "]";
      JsonNode queues = array(namespace, "Queues", nsPath);
      for (int q = 0; q < queues.size(); q++) {
        result.add(queue(queues.get(q), nsPath + ".Queues[" + q + "]"));
      }
      JsonNode topics = array(namespace, "Topics", nsPath);
      for (int t = 0; t < topics.size(); t++) {
        topicResult.add(TopicConfig.topic(topics.get(t), nsPath + ".Topics[" + t + "]"));
      }
    }
    return new Entities(result, topicResult);
  }

  /** An optional array field; missing or null reads as empty. */
  static JsonNode array(JsonNode parent, String field, String path) {
    JsonNode v = parent.get(field);
    if (v == null || v.isNull()) {
      return JsonNodeFactory.instance.arrayNode();
    }
    if (!v.isArray()) {
      throw new IllegalArgumentException(path + "." + field + " must be an array");
    }
    return v;
  }

  /** The Name field of an entity. */
  static String name(JsonNode node, String path) {
    JsonNode name = node.get("Name");
    if (name == null || !name.isTextual() || name.asText().isBlank()) {
      throw new IllegalArgumentException(path + ".Name must be a non-blank string");
    }
    return name.asText();
  }

  /** Runs a settings step, prefixing a validation failure with the JSON path of the properties. */
  static <T> T withPath(String p, Supplier<T> step) {
    try {
      return step.get();
    } catch (IllegalArgumentException e) {
      if (e.getMessage() != null && e.getMessage().startsWith(p)) {
        throw e;
      }
      throw new IllegalArgumentException(p + e.getMessage(), e);
    }
  }

  /** Refuses auto-forwarding, which the emulator does not implement. */
  static void refuseUnsupported(JsonNode props, String p) {
    for (String forward : List.of("ForwardTo", "ForwardDeadLetteredMessagesTo")) {
      JsonNode f = props.get(forward);
      if (f != null && f.isTextual() && !f.asText().isEmpty()) {
        throw new IllegalArgumentException(
            p + forward + ": auto-forwarding is not supported by this emulator");
      }
    }
  }

  /** An optional integer field. */
  static Integer integer(JsonNode props, String field, String path) {
    JsonNode v = props.get(field);
    if (v == null || v.isNull()) {
      return null;
    }
    if (!v.canConvertToInt() || !v.isIntegralNumber()) {
      throw new IllegalArgumentException(path + field + " must be an integer but was " + v);
    }
    return v.asInt();
  }

  private static QueueSettings queue(JsonNode node, String path) {
    QueueSettings defaults = QueueSettings.defaults(name(node, path));
    JsonNode props = node.get("Properties");
    if (props == null || props.isNull()) {
      return defaults;
    }
    String p = path + ".Properties.";
    return withPath(
        p,
        () -> {
          QueueSettings settings = defaults;
          Duration lock = duration(props, "LockDuration", p);
          if (lock != null) {
            settings = settings.withLockDuration(lock);
          }
          Integer max = integer(props, "MaxDeliveryCount", p);
          if (max != null) {
            settings = settings.withMaxDeliveryCount(max);
          }
          Boolean dup = bool(props, "RequiresDuplicateDetection", p);
          if (dup != null) {
            settings = settings.withRequiresDuplicateDetection(dup);
          }
          Duration window = duration(props, "DuplicateDetectionHistoryTimeWindow", p);
          if (window != null) {
            settings = settings.withDuplicateDetectionHistoryTimeWindow(window);
          }
          Duration ttl = duration(props, "DefaultMessageTimeToLive", p);
          if (ttl != null) {
            settings = settings.withDefaultMessageTimeToLive(ttl);
          }
          Boolean dlq = bool(props, "DeadLetteringOnMessageExpiration", p);
          if (dlq != null) {
            settings = settings.withDeadLetteringOnMessageExpiration(dlq);
          }
          Boolean sessions = bool(props, "RequiresSession", p);
          if (sessions != null) {
            settings = settings.withRequiresSession(sessions);
          }
          refuseUnsupported(props, p);
          return settings;
        });
  }

  static Boolean bool(JsonNode props, String field, String path) {
    JsonNode v = props.get(field);
    if (v == null || v.isNull()) {
      return null;
    }
    if (!v.isBoolean()) {
      throw new IllegalArgumentException(path + field + " must be true or false but was " + v);
    }
    return v.asBoolean();
  }

  static Duration duration(JsonNode props, String field, String path) {
    JsonNode v = props.get(field);
    if (v == null || v.isNull()) {
      return null;
    }
    if (!v.isTextual()) {
      throw new IllegalArgumentException(path + field + " must be a duration string but was " + v);
    }
    try {
      return parseDuration(v.asText());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          path + field + " is not an ISO-8601 or TimeSpan duration: '" + v.asText() + "'", e);
    }
  }

  static Duration parseDuration(String text) {
    Matcher m = TIME_SPAN.matcher(text.trim());
    if (m.matches()) {
      long days = m.group(1) == null ? 0 : Long.parseLong(m.group(1));
      Duration d =
          Duration.ofDays(days)
              .plusHours(Long.parseLong(m.group(2)))
              .plusMinutes(Long.parseLong(m.group(3)))
              .plusSeconds(Long.parseLong(m.group(4)));
      if (m.group(5) != null) {
        String fraction = (m.group(5) + "0000000").substring(0, 7);
        d = d.plusNanos(Long.parseLong(fraction) * 100);
      }
      return d;
    }
    try {
      return Duration.parse(text.trim());
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException("bad duration '" + text + "'", e);
    }
  }
}
