package io.idemworker.emulator.junit;

import io.idemworker.emulator.cosmos.ContainerSettings;
import io.idemworker.emulator.servicebus.QueueSettings;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;

/**
 * Reads the entity declarations of {@link AzureEmulators}: a name, then options separated by
 * spaces, each {@code key=value} or a bare flag, keys in any case.
 *
 * <pre>
 * queues     = "orders lockDuration=30s maxDeliveryCount=3 sessions duplicateDetection=10m"
 * containers = "shop/orders:/orderId ranges=3 ttl=60s"
 * </pre>
 *
 * <p>Durations are a number and a unit ({@code 500ms}, {@code 30s}, {@code 10m}, {@code 1h}, {@code
 * 2d}) or ISO-8601 ({@code PT30S}). A declaration that cannot be read fails the class with an
 * {@link ExtensionConfigurationException} naming it and the options it accepts.
 */
final class Declarations {
  static final String QUEUE_OPTIONS =
      "lockDuration=<duration>, maxDeliveryCount=<n>, sessions, duplicateDetection[=<window>],"
          + " ttl=<duration>, deadLetterOnExpiry";
  static final String CONTAINER_OPTIONS = "ranges=<1-64>, ttl=<seconds or duration, -1 or on>";

  private static final Pattern CONTAINER =
      Pattern.compile("([^/\\\\?#:\\s]{1,255})/([^/\\\\?#:\\s]{1,255}):(/[A-Za-z0-9_/]+)");
  private static final Pattern ENTITY = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,259}");
  private static final Pattern SHORT_DURATION = Pattern.compile("(\\d{1,9})(ms|s|m|h|d)");

  private Declarations() {}

  /** A queue declaration: {@code name [option ...]}. */
  static QueueSettings queue(String declaration) {
    String[] words = words("queues", declaration);
    QueueSettings queue = QueueSettings.defaults(entityName("queues", words[0]));
    Map<String, String> options = options("queues", declaration, words, QUEUE_OPTIONS);
    try {
      for (Map.Entry<String, String> o : options.entrySet()) {
        String value = o.getValue();
        queue =
            switch (o.getKey()) {
              case "lockduration", "lock" ->
                  queue.withLockDuration(duration(need(o.getKey(), value)));
              case "maxdeliverycount" ->
                  queue.withMaxDeliveryCount(number(o.getKey(), need(o.getKey(), value)));
              case "sessions", "requiressession" -> queue.withRequiresSession(flag(o, true));
              case "duplicatedetection", "requiresduplicatedetection" -> {
                if (value == null || value.equalsIgnoreCase("true")) {
                  yield queue.withRequiresDuplicateDetection(true);
                }
                if (value.equalsIgnoreCase("false")) {
                  yield queue.withRequiresDuplicateDetection(false);
                }
                yield queue
                    .withRequiresDuplicateDetection(true)
                    .withDuplicateDetectionHistoryTimeWindow(duration(value));
              }
              case "ttl", "defaultmessagetimetolive" ->
                  queue.withDefaultMessageTimeToLive(duration(need(o.getKey(), value)));
              case "deadletteronexpiry", "deadletteringonmessageexpiration" ->
                  queue.withDeadLetteringOnMessageExpiration(flag(o, true));
              default -> throw new IllegalArgumentException("unknown option '" + o.getKey() + "'");
            };
      }
    } catch (IllegalArgumentException e) {
      throw invalid("queues", declaration, e.getMessage(), QUEUE_OPTIONS);
    }
    return queue;
  }

  /** A container declaration: {@code database/container:/partitionKeyPath [option ...]}. */
  static ContainerSettings container(String declaration) {
    String[] words = words("containers", declaration);
    Matcher m = CONTAINER.matcher(words[0]);
    if (!m.matches()) {
      throw new ExtensionConfigurationException(
          "@AzureEmulators(containers) entry '"
              + declaration
              + "' is not database/container:/partitionKeyPath (e.g. shop/orders:/orderId),"
              + " followed by options ("
              + CONTAINER_OPTIONS
              + ")");
    }
    Map<String, String> options = options("containers", declaration, words, CONTAINER_OPTIONS);
    try {
      ContainerSettings container = ContainerSettings.of(m.group(1), m.group(2), m.group(3));
      for (Map.Entry<String, String> o : options.entrySet()) {
        String value = need(o.getKey(), o.getValue());
        container =
            switch (o.getKey()) {
              case "ranges", "partitionkeyranges" ->
                  container.withPartitionKeyRanges(number(o.getKey(), value));
              case "ttl", "defaultttl" -> container.withDefaultTimeToLive(ttlSeconds(value));
              default -> throw new IllegalArgumentException("unknown option '" + o.getKey() + "'");
            };
      }
      return container;
    } catch (IllegalArgumentException e) {
      throw invalid("containers", declaration, e.getMessage(), CONTAINER_OPTIONS);
    }
  }

  /** A topic or subscription name, checked. */
  static String entityName(String attribute, String name) {
    if (!ENTITY.matcher(name).matches()) {
      throw new ExtensionConfigurationException(
          "@AzureEmulators("
              + attribute
              + ") name '"
              + name
              + "' is not 1-260 letters, digits, '.', '-' or '_', starting with a letter or digit");
    }
    return name;
  }

  /** A duration: {@code 500ms}, {@code 30s}, {@code 10m}, {@code 1h}, {@code 2d} or ISO-8601. */
  static Duration duration(String text) {
    Matcher m = SHORT_DURATION.matcher(text);
    if (m.matches()) {
      long n = Long.parseLong(m.group(1));
      return switch (m.group(2)) {
        case "ms" -> Duration.ofMillis(n);
        case "s" -> Duration.ofSeconds(n);
        case "m" -> Duration.ofMinutes(n);
        case "h" -> Duration.ofHours(n);
        default -> Duration.ofDays(n);
      };
    }
    try {
      return Duration.parse(text);
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException(
          "'" + text + "' is not a duration (500ms, 30s, 10m, 1h, 2d or ISO-8601 like PT30S)");
    }
  }

  /** A container TTL: whole seconds ({@code 60}, {@code 60s}, {@code 2m}), or -1 / on. */
  private static int ttlSeconds(String text) {
    if (text.equalsIgnoreCase("on")) {
      return -1;
    }
    if (text.matches("-?\\d{1,9}")) {
      return Integer.parseInt(text); // -1, or seconds; ContainerSettings refuses the rest
    }
    Duration d = duration(text);
    if (d.toNanos() % 1_000_000_000L != 0 || d.isZero() || d.getSeconds() > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "ttl must be a positive whole number of seconds, -1 or on, got '" + text + "'");
    }
    return (int) d.getSeconds();
  }

  private static String[] words(String attribute, String declaration) {
    String trimmed = declaration == null ? "" : declaration.trim();
    if (trimmed.isEmpty()) {
      throw new ExtensionConfigurationException(
          "@AzureEmulators(" + attribute + ") has an empty entry");
    }
    return trimmed.split("\\s+");
  }

  private static Map<String, String> options(
      String attribute, String declaration, String[] words, String accepted) {
    Map<String, String> options = new LinkedHashMap<>();
    for (int i = 1; i < words.length; i++) {
      String word = words[i];
      int eq = word.indexOf('=');
      String key = (eq < 0 ? word : word.substring(0, eq)).toLowerCase(Locale.ROOT);
      String value = eq < 0 ? null : word.substring(eq + 1);
      if (key.isEmpty() || (value != null && value.isEmpty())) {
        throw invalid(attribute, declaration, "'" + word + "' is not key=value", accepted);
      }
      if (options.containsKey(key)) {
        throw invalid(attribute, declaration, "'" + key + "' is given twice", accepted);
      }
      options.put(key, value);
    }
    return options;
  }

  private static String need(String key, String value) {
    if (value == null) {
      throw new IllegalArgumentException("'" + key + "' needs a value (" + key + "=…)");
    }
    return value;
  }

  private static boolean flag(Map.Entry<String, String> option, boolean bare) {
    String value = option.getValue();
    if (value == null) {
      return bare;
    }
    if (value.equalsIgnoreCase("true") || value.equalsIgnoreCase("false")) {
      return Boolean.parseBoolean(value);
    }
    throw new IllegalArgumentException(
        "'" + option.getKey() + "' is a flag: give it bare, or =true or =false");
  }

  private static int number(String key, String value) {
    try {
      return Integer.parseInt(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("'" + key + "' needs a whole number, got '" + value + "'");
    }
  }

  private static ExtensionConfigurationException invalid(
      String attribute, String declaration, String why, String accepted) {
    return new ExtensionConfigurationException(
        "@AzureEmulators("
            + attribute
            + ") entry '"
            + declaration
            + "': "
            + why
            + " (options: "
            + accepted
            + ")");
  }
}
