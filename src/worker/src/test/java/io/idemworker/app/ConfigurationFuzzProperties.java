package io.idemworker.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.idemworker.telemetry.TelemetryExport;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/**
 * Fuzzes the start-up check: every variable of the configuration reference, given a generated value
 * that cannot work, is reported as one line naming it, and {@code run} exits 2 before connecting
 * anywhere. Seeded; {@code -Pfuzz} runs more tries.
 */
class ConfigurationFuzzProperties {
  private static final String TELEMETRY_CS = TelemetryExport.CONNECTION_STRING;
  private static final String OTLP = TelemetryExport.OTLP_ENDPOINT;

  private static Map<String, String> valid() {
    Map<String, String> env = new HashMap<>();
    env.put(
        "SERVICEBUS_CONNECTION_STRING",
        "Endpoint=sb://localhost:5672;SharedAccessKeyName=a;SharedAccessKey=b;");
    env.put("COSMOS_ENDPOINT", "https://localhost:8081/");
    return env;
  }

  @Example
  void everyVariableOfTheReferenceIsFuzzed() {
    Set<String> reference =
        Stream.concat(
                WorkerConfig.VARIABLES.stream().map(WorkerConfig.Variable::name),
                Stream.of(TELEMETRY_CS, OTLP))
            .collect(Collectors.toSet());

    assertThat(badValues().keySet()).containsExactlyInAnyOrderElementsOf(reference);
  }

  @Property(seed = "20261130")
  void aBadValue_isOneLineNamingTheVariable(
      @ForAll("badSettings") Tuple.Tuple2<String, String> bad) {
    Map<String, String> env = valid();
    if (bad.get1().equals("SERVICEBUS_FULLY_QUALIFIED_NAMESPACE")) {
      env.remove("SERVICEBUS_CONNECTION_STRING");
    }
    if (bad.get1().equals("SERVICEBUS_TOPIC_NAME")
        || bad.get1().equals("SERVICEBUS_SUBSCRIPTION_NAME")) {
      env.put("WORKER_ROLE", "loyalty");
      env.put("SERVICEBUS_TOPIC_NAME", "order-events");
      env.put("SERVICEBUS_SUBSCRIPTION_NAME", "loyalty");
    }
    if (bad.get1().equals("PAYMENTS_BASE_URL")) {
      env.put("PAYMENTS_API_KEY", "sk_test_idemworker");
    }
    if (bad.get1().equals("PAYMENTS_API_KEY")) {
      env.put("PAYMENTS_BASE_URL", "http://localhost:8082");
    }
    env.put(bad.get1(), bad.get2());

    WorkerConfig.ConfigurationException e =
        catchThrowableOfType(
            WorkerConfig.ConfigurationException.class, () -> WorkerConfig.fromEnvironment(env));

    assertThat(e).as("%s=%s is refused", bad.get1(), bad.get2()).isNotNull();
    assertThat(e.problems()).hasSize(1);
    assertThat(e.problems().get(0)).startsWith(bad.get1() + ":").doesNotContain("\n");
  }

  @Provide
  Arbitrary<Tuple.Tuple2<String, String>> badSettings() {
    return Arbitraries.oneOf(
        badValues().entrySet().stream()
            .map(e -> e.getValue().map(v -> Tuple.of(e.getKey(), v)))
            .toList());
  }

  /** For each variable, values that can never work (never blank: blank means unset). */
  static Map<String, Arbitrary<String>> badValues() {
    Arbitrary<String> junk = Arbitraries.strings().all().ofMinLength(1).ofMaxLength(30);
    // The reader trims (every char up to U+0020) and treats what is left empty as unset.
    Arbitrary<String> visibleJunk = junk.filter(ConfigurationFuzzProperties::isSet);
    Map<String, Arbitrary<String>> m = new HashMap<>();
    m.put("SERVICEBUS_CONNECTION_STRING", visibleJunk.filter(s -> !s.contains("Endpoint=sb://")));
    m.put(
        "SERVICEBUS_FULLY_QUALIFIED_NAMESPACE",
        withOneOf(Arbitraries.strings().alpha().ofMinLength(1).ofMaxLength(20), "/:@?#_\u00e9"));
    m.put(
        "SERVICEBUS_QUEUE_NAME",
        Arbitraries.oneOf(
            withOneOf(Arbitraries.strings().alpha().ofMinLength(1).ofMaxLength(20), "!:@?#\u00e9"),
            Arbitraries.strings().alpha().ofLength(261)));
    m.put(
        "COSMOS_ENDPOINT",
        Arbitraries.oneOf(
            Arbitraries.strings()
                .alpha()
                .ofMinLength(1)
                .ofMaxLength(20)
                .map(s -> "http://" + s + "/"),
            visibleJunk.filter(s -> !s.trim().toLowerCase().startsWith("https://")),
            Arbitraries.of("https://", "https:///path", "https://exa mple/")));
    m.put(
        "COSMOS_KEY",
        withOneOf(Arbitraries.strings().alpha().ofMinLength(4).ofMaxLength(40), "!*-_.\u00e9"));
    for (String name : List.of("COSMOS_DATABASE", "COSMOS_CONTAINER")) {
      m.put(
          name,
          Arbitraries.oneOf(
              withOneOf(Arbitraries.strings().alpha().ofMinLength(1).ofMaxLength(20), "/\\?#"),
              Arbitraries.strings().alpha().ofLength(256)));
    }
    m.put("COSMOS_CONNECTION_MODE", choiceJunk(Set.of("gateway", "direct")));
    m.put("COSMOS_CREATE_CONTAINER", choiceJunk(Set.of("true", "false")));
    m.put("WORKER_KEY_STRATEGY", choiceJunk(Set.of("message-id", "cloudevents")));
    m.put("WORKER_MAX_CONCURRENT_CALLS", badInteger(1, 1000));
    m.put("WORKER_PREFETCH_COUNT", badInteger(0, 10_000));
    m.put("WORKER_MAX_BODY_BYTES", badInteger(1024, 100 * 1024 * 1024));
    m.put("HEALTH_PORT", badInteger(0, 65_535));
    m.put("HEALTH_BIND", Arbitraries.of("localhost", "256.0.0.1", "0.0.0", "::g", "any"));
    m.put("WORKER_MAX_LOCK_RENEWAL", badDuration("PT24H1S", "-PT1S"));
    m.put(
        "WORKER_INBOX_TTL",
        badDuration("P24856D", "PT59S").filter(s -> !s.trim().equalsIgnoreCase("never")));
    m.put("WORKER_RESUBMIT_WINDOW", badDuration("P3651D", "-PT1S"));
    m.put("SERVICEBUS_LOCK_DURATION", badDuration("PT5M1S", "PT4S"));
    m.put("SERVICEBUS_MAX_DELIVERY_COUNT", badInteger(1, 2000));
    m.put("SERVICEBUS_MESSAGE_TTL", badDuration("P3651D", "PT0S"));
    m.put(
        "PAYMENTS_BASE_URL",
        Arbitraries.oneOf(
            Arbitraries.strings().alpha().ofMinLength(1).ofMaxLength(20),
            Arbitraries.strings().alpha().ofMinLength(1).ofMaxLength(10).map(h -> "ftp://" + h),
            Arbitraries.of("http://", "https:///x", "http://exa mple/")));
    m.put(
        "PAYMENTS_API_KEY",
        Arbitraries.oneOf(
            withOneOf(Arbitraries.strings().alpha().ofMinLength(1).ofMaxLength(20), "\u00e9\u007f"),
            Arbitraries.strings().alpha().ofLength(256)));
    m.put("PAYMENTS_TIMEOUT", badDuration("PT2M1S", "PT0.5S"));
    m.put("WORKER_ROLE", choiceJunk(Set.of("orders", "loyalty", "customer-stats")));
    m.put(
        "SERVICEBUS_TOPIC_NAME",
        Arbitraries.oneOf(
            withOneOf(Arbitraries.strings().alpha().ofMinLength(1).ofMaxLength(20), "!:@?#\u00e9"),
            Arbitraries.strings().alpha().ofLength(261)));
    m.put(
        "SERVICEBUS_SUBSCRIPTION_NAME",
        Arbitraries.oneOf(
            withOneOf(Arbitraries.strings().alpha().ofMinLength(1).ofMaxLength(20), "/!:@?#\u00e9"),
            Arbitraries.strings().alpha().ofLength(51)));
    m.put("RELAY_ENABLED", choiceJunk(Set.of("true", "false")));
    m.put(
        "RELAY_TOPIC_NAME",
        withOneOf(Arbitraries.strings().alpha().ofMinLength(1).ofMaxLength(20), "!:@?#\u00e9"));
    m.put("RELAY_LEASE_DURATION", badDuration("PT10M1S", "PT4S"));
    m.put("RELAY_POLL_INTERVAL", badDuration("PT1M1S", "PT0.05S"));
    m.put("RELAY_BATCH_SIZE", badInteger(1, 1000));
    m.put("SERVICEBUS_SESSIONS", choiceJunk(Set.of("true", "false")));
    m.put("WORKER_MAX_CONCURRENT_SESSIONS", badInteger(1, 1000));
    m.put("WORKER_GAP_TIMEOUT", badDuration("P7DT1S", "-PT1S"));
    m.put("WORKER_PARK_MAX_MESSAGES", badInteger(1, 1000));
    m.put("WORKER_PARK_MAX_AGE", badDuration("P3651D", "PT59S"));
    m.put("PAYMENTS_LEASE", badDuration("PT5M1S", "PT1S"));
    m.put("WORKER_SHUTDOWN_TIMEOUT", badDuration("PT10M1S", "PT0.5S"));
    m.put(
        "WORKER_CONSUMER_NAME",
        Arbitraries.oneOf(
            withOneOf(Arbitraries.strings().alpha().ofMinLength(1).ofMaxLength(20), "/:@?#\u00e9"),
            Arbitraries.strings().alpha().ofLength(65)));
    m.put(
        TELEMETRY_CS,
        Arbitraries.oneOf(
            visibleJunk.filter(s -> !s.contains("InstrumentationKey")),
            Arbitraries.of(
                "InstrumentationKey=",
                "InstrumentationKey=k;IngestionEndpoint=ftp://x",
                "InstrumentationKey=k;IngestionEndpoint=http://[::1")));
    m.put(
        OTLP,
        Arbitraries.oneOf(
            Arbitraries.strings().alpha().ofMinLength(1).ofMaxLength(20),
            Arbitraries.strings().alpha().ofMinLength(1).ofMaxLength(10).map(s -> s + ":4317"),
            Arbitraries.of(
                "ftp://localhost:4317",
                "http://localhost:4317?x=1",
                "http://localhost:4317#f",
                "http://localhost:4317/v1/traces",
                "http://localhost:99999",
                "http://")));
    return m;
  }

  private static boolean isSet(String value) {
    return !value.trim().isEmpty() && !value.strip().isEmpty();
  }

  private static Arbitrary<String> withOneOf(Arbitrary<String> base, String forbidden) {
    return base.flatMap(
        s ->
            Arbitraries.of(forbidden.chars().mapToObj(c -> (char) c).toList())
                .flatMap(
                    c ->
                        Arbitraries.integers()
                            .between(0, s.length())
                            .map(i -> s.substring(0, i) + c + s.substring(i))));
  }

  private static Arbitrary<String> choiceJunk(Set<String> allowed) {
    return Arbitraries.strings()
        .all()
        .ofMinLength(1)
        .ofMaxLength(15)
        .filter(s -> isSet(s) && !allowed.contains(s.trim().toLowerCase(java.util.Locale.ROOT)));
  }

  private static Arbitrary<String> badInteger(int min, int max) {
    return Arbitraries.oneOf(
        Arbitraries.longs().between(Long.MIN_VALUE, min - 1L).map(String::valueOf),
        Arbitraries.longs().between(max + 1L, Long.MAX_VALUE).map(String::valueOf),
        Arbitraries.of("1.5", "0x10", "1e3", "+-1", "one", "99999999999999999999999"));
  }

  private static Arbitrary<String> badDuration(String tooLong, String tooShort) {
    return Arbitraries.oneOf(
        Arbitraries.of(tooLong, tooShort, "5 minutes", "P", "PT", "300", "PT-", "P1Y"),
        Arbitraries.strings().alpha().ofMinLength(1).ofMaxLength(10));
  }
}
