package io.idemworker.emulator.servicebus;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads queue definitions from a file in the format of Microsoft's Service Bus emulator {@code
 * Config.json}.
 *
 * <p>Only {@code UserConfig.Namespaces[*].Queues[*]} is read; topics are refused because the
 * emulator does not implement them, and {@code Logging} is ignored. Missing queue properties take
 * the values of {@link QueueSettings#defaults(String)}. Durations are ISO-8601 ({@code PT1M}) or
 * .NET TimeSpan ({@code 00:01:00}, {@code 1.00:00:00}).
 */
public final class ServiceBusEmulatorConfig {
  private static final Pattern TIME_SPAN =
      Pattern.compile("^(?:(\\d+)\\.)?(\\d{1,2}):(\\d{2}):(\\d{2})(?:\\.(\\d{1,7}))?$");

  private ServiceBusEmulatorConfig() {}

  /**
   * Loads the queues defined in a Config.json file.
   *
   * @param file path of the file
   * @return the queues of every namespace, in file order
   * @throws IllegalArgumentException when the file is not valid JSON or a field is missing or bad;
   *     the message names the field by its JSON path
   * @throws UncheckedIOException when the file cannot be read
   */
  public static List<QueueSettings> load(Path file) {
    String json;
    try {
      json = Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read Service Bus emulator config " + file, e);
    }
    return parse(json, file.toString());
  }

  static List<QueueSettings> parse(String json, String source) {
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
    for (int n = 0; n < namespaces.size(); n++) {
      JsonNode namespace = namespaces.get(n);
      String nsPath = "UserConfig.Namespaces[" + n + "]";
      JsonNode topics = namespace.get("Topics");
      if (topics != null && topics.isArray() && topics.size() > 0) {
        throw new IllegalArgumentException(
            source + ": " + nsPath + ".Topics: topics are not supported by this emulator");
      }
      JsonNode queues = namespace.get("Queues");
      if (queues == null || queues.isNull()) {
        continue;
      }
      if (!queues.isArray()) {
        throw new IllegalArgumentException(source + ": " + nsPath + ".Queues must be an array");
      }
      for (int q = 0; q < queues.size(); q++) {
        result.add(queue(queues.get(q), source + ": " + nsPath + ".Queues[" + q + "]"));
      }
    }
    return result;
  }

  private static QueueSettings queue(JsonNode node, String path) {
    JsonNode name = node.get("Name");
    if (name == null || !name.isTextual() || name.asText().isBlank()) {
      throw new IllegalArgumentException(path + ".Name must be a non-blank string");
    }
    QueueSettings settings = QueueSettings.defaults(name.asText());
    JsonNode props = node.get("Properties");
    if (props == null || props.isNull()) {
      return settings;
    }
    String p = path + ".Properties.";
    try {
      Duration lock = duration(props, "LockDuration", p);
      if (lock != null) {
        settings = settings.withLockDuration(lock);
      }
      JsonNode max = props.get("MaxDeliveryCount");
      if (max != null && !max.isNull()) {
        if (!max.canConvertToInt() || !max.isIntegralNumber()) {
          throw new IllegalArgumentException(p + "MaxDeliveryCount must be an integer");
        }
        settings = settings.withMaxDeliveryCount(max.asInt());
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
      if (Boolean.TRUE.equals(sessions)) {
        throw new IllegalArgumentException(
            p + "RequiresSession: sessions are not supported by this emulator");
      }
      for (String forward : List.of("ForwardTo", "ForwardDeadLetteredMessagesTo")) {
        JsonNode f = props.get(forward);
        if (f != null && f.isTextual() && !f.asText().isEmpty()) {
          throw new IllegalArgumentException(
              p + forward + ": auto-forwarding is not supported by this emulator");
        }
      }
    } catch (IllegalArgumentException e) {
      if (e.getMessage() != null && e.getMessage().startsWith(p)) {
        throw e;
      }
      throw new IllegalArgumentException(p + e.getMessage(), e);
    }
    return settings;
  }

  private static Boolean bool(JsonNode props, String field, String path) {
    JsonNode v = props.get(field);
    if (v == null || v.isNull()) {
      return null;
    }
    if (!v.isBoolean()) {
      throw new IllegalArgumentException(path + field + " must be true or false but was " + v);
    }
    return v.asBoolean();
  }

  private static Duration duration(JsonNode props, String field, String path) {
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
