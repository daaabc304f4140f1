package io.idemworker.app;

import java.net.URI;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Reads environment variables against a list of {@link WorkerConfig.Variable}s, collecting one
 * problem line per bad variable ({@code NAME: must be ALLOWED, was 'x'}) instead of failing on the
 * first, so a configuration is checked as a whole. A bad value yields a placeholder and a problem;
 * the caller throws once at the end if {@link #problems()} is not empty.
 *
 * <p>Not thread-safe: one reader per configuration read.
 */
final class EnvironmentReader {
  private final Map<String, String> env;
  private final List<WorkerConfig.Variable> variables;

  /**
   * The problems found so far, in the order found; callers add their own cross-variable problems. A
   * field rather than an accessor to keep the call sites short.
   */
  final List<String> problems = new ArrayList<>();

  /**
   * @param env the environment
   * @param variables every variable the caller reads, with its default and allowed values
   */
  EnvironmentReader(Map<String, String> env, List<WorkerConfig.Variable> variables) {
    this.env = env;
    this.variables = variables;
  }

  /** The allowed values of {@code name}; throws if {@code name} is not in the variable list. */
  String allowed(String name) {
    return variable(name).map(WorkerConfig.Variable::allowed).orElseThrow();
  }

  private Optional<WorkerConfig.Variable> variable(String name) {
    return variables.stream().filter(v -> v.name().equals(name)).findFirst();
  }

  /** The trimmed value of {@code name}; empty when unset or blank. */
  Optional<String> optional(String name) {
    return Optional.ofNullable(env.get(name)).map(String::trim).filter(v -> !v.isEmpty());
  }

  private String valueOrDefault(String name) {
    return optional(name)
        .orElseGet(() -> variable(name).map(WorkerConfig.Variable::defaultValue).orElse(null));
  }

  Optional<String> optionalMatching(String name, Pattern pattern) {
    Optional<String> value = optional(name);
    if (value.isPresent() && !pattern.matcher(value.get()).matches()) {
      problems.add(name + ": must be " + allowed(name));
      return Optional.empty();
    }
    return value;
  }

  String matching(String name, Pattern pattern) {
    String value = valueOrDefault(name);
    if (value == null || !pattern.matcher(value).matches()) {
      problems.add(name + ": must be " + allowed(name));
      return "invalid";
    }
    return value;
  }

  String choice(String name, String... choices) {
    String value = valueOrDefault(name).toLowerCase(Locale.ROOT);
    for (String choice : choices) {
      if (choice.equals(value)) {
        return choice;
      }
    }
    problems.add(name + ": must be " + allowed(name) + ", was '" + value + "'");
    return choices[0];
  }

  int integer(String name, int min, int max) {
    String value = valueOrDefault(name);
    try {
      int parsed = Integer.parseInt(value);
      if (parsed >= min && parsed <= max) {
        return parsed;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    problems.add(name + ": must be " + allowed(name) + ", was '" + value + "'");
    return min;
  }

  /**
   * An IP address literal (never a host name, so nothing is looked up).
   *
   * @param name the variable
   * @return the address; loopback after a problem was recorded
   */
  java.net.InetAddress ipAddress(String name) {
    String value = valueOrDefault(name).strip();
    boolean literal =
        IP_LITERAL.matcher(value).matches()
            && (value.contains(":")
                || java.util.Arrays.stream(value.split("\\."))
                    .allMatch(octet -> Integer.parseInt(octet) <= 255));
    if (literal) {
      try {
        return java.net.InetAddress.getByName(value);
      } catch (java.net.UnknownHostException e) {
        // reported below
      }
    }
    problems.add(name + ": must be " + allowed(name) + ", was '" + value + "'");
    return java.net.InetAddress.getLoopbackAddress();
  }

  private static final Pattern IP_LITERAL =
      Pattern.compile("[0-9]{1,3}(\\.[0-9]{1,3}){3}|[0-9A-Fa-f:]*:[0-9A-Fa-f:.]*");

  Duration duration(String name, Duration min, Duration max) {
    String value = valueOrDefault(name);
    try {
      Duration parsed = Duration.parse(value);
      if (parsed.compareTo(min) >= 0 && parsed.compareTo(max) <= 0) {
        return parsed;
      }
    } catch (DateTimeParseException e) {
      // reported below
    }
    problems.add(name + ": must be " + allowed(name) + ", was '" + value + "'");
    return min;
  }

  Optional<Duration> durationOrNever(String name, Duration min, Duration max) {
    if ("never".equalsIgnoreCase(valueOrDefault(name))) {
      return Optional.empty();
    }
    return Optional.of(duration(name, min, max));
  }

  URI endpoint(String name) {
    Optional<String> value = optional(name);
    if (value.isEmpty()) {
      problems.add(name + ": is required; " + allowed(name));
      return URI.create("https://invalid/");
    }
    try {
      URI uri = URI.create(value.get());
      if ("https".equalsIgnoreCase(uri.getScheme()) && uri.getHost() != null) {
        return uri;
      }
    } catch (IllegalArgumentException e) {
      // reported below
    }
    problems.add(name + ": must be " + allowed(name) + ", was '" + value.get() + "'");
    return URI.create("https://invalid/");
  }

  /**
   * The Cosmos DB account key in {@code name}, as set. An account key signs every request, so one
   * that does not decode as base64 can never work: it is reported (without its value) but still
   * returned, so the caller's other checks see that a key was set.
   */
  Optional<String> accountKey(String name) {
    Optional<String> key = optional(name);
    if (key.isPresent() && !isBase64(key.get())) {
      problems.add(
          name + ": must be a base64 account key, or unset to use Entra ID (value not shown)");
    }
    return key;
  }

  private static boolean isBase64(String key) {
    try {
      return Base64.getDecoder().decode(key).length > 0;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }
}
