package io.idemworker.emulator.cosmos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosException;
import io.idemworker.testing.MutableClock;
import java.net.ServerSocket;
import java.util.Base64;
import org.junit.jupiter.api.Test;

/** Start-up, configuration, keys and the certificate. */
class CosmosEmulatorLifecycleTest {

  @Test
  void wrongKey_isRejectedWith401() {
    try (CosmosEmulator emulator = CosmosEmulator.builder().start()) {
      String wrongKey = Base64.getEncoder().encodeToString(new byte[64]);

      Throwable t =
          catchThrowable(
              () -> {
                try (CosmosClient ignored = Clients.builder(emulator, wrongKey).buildClient()) {
                  ignored.createDatabaseIfNotExists("db");
                }
              });

      // The client fails its start-up (GET of the account) and wraps the service's answer.
      Throwable cause = t;
      while (cause != null && !(cause instanceof CosmosException)) {
        cause = cause.getCause();
      }
      assertThat(cause).isInstanceOf(CosmosException.class);
      assertThat(((CosmosException) cause).getStatusCode()).isEqualTo(401);
    }
  }

  @Test
  void configuredKey_isRequiredAndAccepted() {
    String key =
        Base64.getEncoder()
            .encodeToString(
                "another emulator key, 32+ bytes...."
                    .getBytes(java.nio.charset.StandardCharsets.UTF_8));
    try (CosmosEmulator emulator = CosmosEmulator.builder().key(key).start();
        CosmosClient client = Clients.sync(emulator)) {

      assertThat(emulator.key()).isEqualTo(key);
      assertThat(client.createDatabaseIfNotExists("db").getStatusCode()).isEqualTo(201);
    }
  }

  @Test
  void configuredPort_isBound_andEndpointNamesLocalhost() throws Exception {
    int free;
    try (ServerSocket s = new ServerSocket(0)) {
      free = s.getLocalPort();
    }
    try (CosmosEmulator emulator = CosmosEmulator.builder().port(free).start()) {
      assertThat(emulator.port()).isEqualTo(free);
      assertThat(emulator.endpoint()).isEqualTo("https://localhost:" + free + "/");
      assertThat(emulator.certificate().getSubjectAlternativeNames())
          .extracting(san -> san.get(1).toString())
          .contains("localhost", "127.0.0.1");
    }
  }

  @Test
  void certificateIsValidNow_evenWhenTheInjectedClockIsElsewhere() throws Exception {
    MutableClock future = new MutableClock(java.time.Instant.parse("2090-01-01T00:00:00Z"));
    try (CosmosEmulator emulator = CosmosEmulator.builder().clock(future).start()) {
      emulator.certificate().checkValidity();
    }
  }

  @Test
  void notStarted_hasNoPort_andCloseIsIdempotent() {
    CosmosEmulator emulator = CosmosEmulator.builder().build();

    assertThatThrownBy(emulator::port).isInstanceOf(IllegalStateException.class);
    emulator.start();
    emulator.close();
    emulator.close();
  }

  @Test
  void builder_rejectsBadSettings() {
    assertThatThrownBy(() -> CosmosEmulator.builder().port(70000))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> CosmosEmulator.builder().key("not base64!"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> CosmosEmulator.builder().key(""))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
