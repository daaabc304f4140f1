package io.idemworker.proof.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a chaos run against given endpoints makes of its options, without any endpoint. */
class ChaosEndpointsTest {

  private static ChaosEndpoints endpoints(String cosmos, boolean emulator) {
    return new ChaosEndpoints(
        "Endpoint=sb://ns.example/;SharedAccessKeyName=a;SharedAccessKey=b",
        URI.create(cosmos),
        "key",
        "idemworker",
        Duration.ofSeconds(20),
        emulator);
  }

  @Test
  void aRealAccount_getsNoTrustOption_soItsCertificateIsChecked() {
    assertThat(endpoints("https://acct.documents.azure.com:443/", false).trustOptions()).isEmpty();
  }

  @Test
  void aLoopbackEndpoint_isAnEmulators_andGetsTheSdksEmulatorFlagOnly() {
    assertThat(endpoints("https://localhost:8081/", false).trustOptions())
        .containsExactly("-DCOSMOS.EMULATOR_SERVER_CERTIFICATE_VALIDATION_DISABLED=true");
    assertThat(endpoints("https://127.0.0.1:8081/", false).emulatorHost()).isEmpty();
  }

  @Test
  void anEmulatorOnAnotherHost_isTrustedForThatHostOnly() {
    ChaosEndpoints given = endpoints("https://cosmos:8081/", true);

    assertThat(given.trustOptions())
        .containsExactly(
            "-DCOSMOS.EMULATOR_SERVER_CERTIFICATE_VALIDATION_DISABLED=true",
            "-DCOSMOS.EMULATOR_HOST=cosmos");
    assertThat(given.emulatorHost()).contains("cosmos");
  }

  @Test
  void missing_namesTheOptionsNotGiven_onlyWhenSomeAre() {
    assertThat(ChaosEndpoints.missing(null, null, null)).isEmpty();
    assertThat(ChaosEndpoints.missing("sb", "https://x/", "k")).isEmpty();
    assertThat(ChaosEndpoints.missing("sb", null, null))
        .containsExactly("--cosmos-endpoint", "--cosmos-key");
    assertThat(ChaosEndpoints.missing(null, "https://x/", "k"))
        .containsExactly("--servicebus-connection-string");
  }

  @Test
  void secrets_comeFromTheEnvironment_onlyWhenTheEndpointIsGivenAndTheOptionIsNot() {
    Map<String, String> env = Map.of("CHAOS_COSMOS_KEY", "from-env", "OTHER", "x");

    assertThat(ChaosEndpoints.secret(null, "https://x/", env, "CHAOS_COSMOS_KEY"))
        .isEqualTo("from-env");
    assertThat(ChaosEndpoints.secret("from-option", "https://x/", env, "CHAOS_COSMOS_KEY"))
        .isEqualTo("from-option");
    // no --cosmos-endpoint: the emulators' run does not read the environment
    assertThat(ChaosEndpoints.secret(null, null, env, "CHAOS_COSMOS_KEY")).isNull();
    assertThat(ChaosEndpoints.secret(null, "https://x/", env, "CHAOS_SERVICEBUS_CONNECTION_STRING"))
        .isNull();
    assertThat(
            ChaosEndpoints.secret(
                null, "https://x/", Map.of("CHAOS_COSMOS_KEY", " "), "CHAOS_COSMOS_KEY"))
        .isNull();
  }

  @Test
  void aPlainHttpEndpoint_orAnEmptyWindow_isRefused() {
    assertThatThrownBy(() -> endpoints("http://localhost:8081/", false))
        .hasMessageContaining("--cosmos-endpoint must be an https URL");
    assertThatThrownBy(
            () ->
                new ChaosEndpoints("sb", URI.create("https://x/"), "k", "db", Duration.ZERO, false))
        .hasMessageContaining("--duplicate-detection-window must be positive");
  }
}
