package io.idemworker.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The api's configuration: defaults, and each bad variable as one line naming it. */
class ApiConfigTest {
  private static Map<String, String> valid() {
    Map<String, String> env = new HashMap<>();
    env.put("COSMOS_ENDPOINT", "https://cosmos.example.net/");
    env.put("API_KEY", "0123456789abcdef-key");
    return env;
  }

  @Test
  void defaults_areApiKeyAuthAndADayOfReplay() {
    ApiConfig config = ApiConfig.fromEnvironment(valid());

    assertThat(config.auth()).isEqualTo(ApiConfig.AuthMode.APIKEY);
    assertThat(config.window()).isEqualTo(Duration.ofDays(1));
    assertThat(config.lease()).isEqualTo(Duration.ofSeconds(30));
    assertThat(config.port()).isEqualTo(8080);
    assertThat(config.toString()).doesNotContain("0123456789abcdef-key");
  }

  @Test
  void bindAddress_isLoopbackByDefault_andBoundsHaveTheirDefaults() {
    ApiConfig config = ApiConfig.fromEnvironment(valid());

    assertThat(config.bind().isLoopbackAddress()).isTrue();
    assertThat(config.limits().maxInFlight()).isEqualTo(16);
    assertThat(config.limits().maxConnections()).isEqualTo(1024);
    assertThat(config.limits().headerTimeout()).isEqualTo(Duration.ofSeconds(10));
  }

  @Test
  void noneAuth_isRefusedWhenTheApiListensBeyondLoopback_evenAgainstALoopbackEndpoint() {
    Map<String, String> env = new HashMap<>();
    env.put("COSMOS_ENDPOINT", "https://localhost:8081/");
    env.put("API_AUTH", "none");
    env.put("API_BIND", "0.0.0.0");

    WorkerConfig.ConfigurationException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            WorkerConfig.ConfigurationException.class, () -> ApiConfig.fromEnvironment(env));

    assertThat(e.problems())
        .singleElement()
        .asString()
        .startsWith("API_AUTH: none")
        .contains("API_BIND");
  }

  @Test
  void entraAuth_needsTheAllowedApplications_asGuids() {
    Map<String, String> env = new HashMap<>();
    env.put("COSMOS_ENDPOINT", "https://cosmos.example.net:443/");
    env.put("API_AUTH", "entra");

    WorkerConfig.ConfigurationException missing =
        org.junit.jupiter.api.Assertions.assertThrows(
            WorkerConfig.ConfigurationException.class, () -> ApiConfig.fromEnvironment(env));
    env.put("API_ENTRA_ALLOWED_APPLICATIONS", "11111111-2222-3333-4444-555555555555, app-two");
    WorkerConfig.ConfigurationException notGuids =
        org.junit.jupiter.api.Assertions.assertThrows(
            WorkerConfig.ConfigurationException.class, () -> ApiConfig.fromEnvironment(env));
    env.put(
        "API_ENTRA_ALLOWED_APPLICATIONS",
        "11111111-2222-3333-4444-555555555555,22222222-2222-3333-4444-555555555555");

    assertThat(missing.problems())
        .singleElement()
        .asString()
        .startsWith("API_ENTRA_ALLOWED_APPLICATIONS");
    assertThat(notGuids.problems())
        .singleElement()
        .asString()
        .startsWith("API_ENTRA_ALLOWED_APPLICATIONS");
    assertThat(ApiConfig.fromEnvironment(env).entraAllowedApplications()).hasSize(2);
  }

  @Test
  void noneAuth_isAllowedAgainstALoopbackEndpoint() {
    Map<String, String> env = new HashMap<>();
    env.put("COSMOS_ENDPOINT", "https://localhost:8081/");
    env.put("API_AUTH", "none");

    assertThat(ApiConfig.fromEnvironment(env).auth()).isEqualTo(ApiConfig.AuthMode.NONE);
  }

  @ParameterizedTest
  @CsvSource({
    "API_AUTH, basic",
    "API_KEY, short",
    "API_PORT, 70000",
    "API_IDEMPOTENCY_TTL, PT10S",
    "API_IDEMPOTENCY_TTL, P31D",
    "API_LEASE, PT0.5S",
    "API_LEASE, PT10M",
    "API_MAX_BODY_BYTES, 10",
    "API_THREADS, 16",
    "API_BIND, localhost",
    "API_ENTRA_ALLOWED_APPLICATIONS, 11111111-2222-3333-4444-555555555555",
    "API_BIND, 300.1.1.1",
    "API_MAX_IN_FLIGHT, 0",
    "API_MAX_IN_FLIGHT_PER_CALLER, 0",
    "API_MAX_CONNECTIONS, 0",
    "API_MAX_CONNECTIONS_PER_CLIENT, 2000",
    "API_HEADER_TIMEOUT, PT0S",
    "API_BODY_TIMEOUT, PT10M",
    "COSMOS_ENDPOINT, http://cosmos.example.net/",
    "COSMOS_KEY, not*base64",
    "COSMOS_DATABASE, a/b",
    "COSMOS_CONNECTION_MODE, tcp",
    "COSMOS_CREATE_CONTAINER, maybe",
    "PAYMENTS_WEBHOOK_SECRET, short-secret",
    "PAYMENTS_WEBHOOK_MARKER_TTL, PT30S",
    "PAYMENTS_WEBHOOK_MARKER_TTL, two weeks"
  })
  void aBadValue_isOneLineNamingTheVariable(String name, String value) {
    Map<String, String> env = valid();
    env.put(name, value);

    WorkerConfig.ConfigurationException e =
        catchThrowableOfType(
            WorkerConfig.ConfigurationException.class, () -> ApiConfig.fromEnvironment(env));

    assertThat(e).as("%s=%s is refused", name, value).isNotNull();
    assertThat(e.problems()).hasSize(1);
    assertThat(e.problems().get(0)).startsWith(name + ":").doesNotContain("\n");
  }

  @Test
  void aLeaseAsLongAsTheWindow_isRefusedNamingBoth() {
    Map<String, String> env = valid();
    env.put("API_LEASE", "PT5M");
    env.put("API_IDEMPOTENCY_TTL", "PT5M");

    WorkerConfig.ConfigurationException e =
        catchThrowableOfType(
            WorkerConfig.ConfigurationException.class, () -> ApiConfig.fromEnvironment(env));

    assertThat(e.problems())
        .singleElement()
        .asString()
        .startsWith("API_LEASE, API_IDEMPOTENCY_TTL:");
  }

  @Test
  void everyVariableOfTheReferenceIsCovered() {
    assertThat(ApiConfig.VARIABLES)
        .extracting(WorkerConfig.Variable::name)
        .containsExactly(
            "COSMOS_ENDPOINT",
            "COSMOS_KEY",
            "COSMOS_DATABASE",
            "COSMOS_CONTAINER",
            "COSMOS_CONNECTION_MODE",
            "COSMOS_CREATE_CONTAINER",
            "API_PORT",
            "API_AUTH",
            "API_KEY",
            "API_IDEMPOTENCY_TTL",
            "API_LEASE",
            "API_MAX_BODY_BYTES",
            "API_BIND",
            "API_ENTRA_ALLOWED_APPLICATIONS",
            "API_MAX_IN_FLIGHT",
            "API_MAX_IN_FLIGHT_PER_CALLER",
            "API_MAX_CONNECTIONS",
            "API_MAX_CONNECTIONS_PER_CLIENT",
            "API_HEADER_TIMEOUT",
            "API_BODY_TIMEOUT",
            "PAYMENTS_WEBHOOK_SECRET",
            "PAYMENTS_WEBHOOK_MARKER_TTL");
  }

  @Test
  void webhookSecret_isOptional_andTheMarkersLiveFourteenDaysByDefault() {
    ApiConfig config = ApiConfig.fromEnvironment(valid());

    assertThat(config.webhookSecret()).isEmpty();
    assertThat(config.webhookMarkerTtl()).contains(Duration.ofDays(14));
  }

  @Test
  void webhookSecretAndMarkerTtl_areRead_andTheSecretIsNeverShown() {
    Map<String, String> env = valid();
    env.put("PAYMENTS_WEBHOOK_SECRET", "whsec_config_test_0123456789");
    env.put("PAYMENTS_WEBHOOK_MARKER_TTL", "never");

    ApiConfig config = ApiConfig.fromEnvironment(env);

    assertThat(config.webhookSecret()).isPresent();
    assertThat(config.webhookSecret().get().value()).isEqualTo("whsec_config_test_0123456789");
    assertThat(config.webhookMarkerTtl()).isEmpty();
    assertThat(config.toString()).doesNotContain("whsec_config_test_0123456789");
  }

  @Test
  void aBadWebhookSecret_isReportedWithoutItsValue() {
    Map<String, String> env = valid();
    env.put("PAYMENTS_WEBHOOK_SECRET", "tooShortSecret");

    WorkerConfig.ConfigurationException e =
        catchThrowableOfType(
            WorkerConfig.ConfigurationException.class, () -> ApiConfig.fromEnvironment(env));

    assertThat(e.problems())
        .singleElement()
        .asString()
        .startsWith("PAYMENTS_WEBHOOK_SECRET:")
        .doesNotContain("tooShortSecret");
  }
}
