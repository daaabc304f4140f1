package io.idemworker.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RelayConfigurationTest {
  private static Map<String, String> minimal() {
    Map<String, String> env = new HashMap<>();
    env.put(
        "SERVICEBUS_CONNECTION_STRING",
        "Endpoint=sb://localhost:5672;SharedAccessKeyName=RootManageSharedAccessKey;"
            + "SharedAccessKey=SAS_KEY_VALUE;UseDevelopmentEmulator=true;");
    env.put("COSMOS_ENDPOINT", "https://localhost:8081/");
    return env;
  }

  @Test
  void defaults_runTheRelayToOrderEvents() {
    WorkerConfig.RelayConfig relay = WorkerConfig.fromEnvironment(minimal()).relay();

    assertThat(relay.enabled()).isTrue();
    assertThat(relay.topicName()).isEqualTo("order-events");
    assertThat(relay.leaseDuration()).isEqualTo(Duration.ofSeconds(30));
    assertThat(relay.pollInterval()).isEqualTo(Duration.ofSeconds(1));
    assertThat(relay.batchSize()).isEqualTo(100);
    assertThat(Wiring.relaySettings(WorkerConfig.fromEnvironment(minimal())).eventTtl())
        .isEqualTo(Duration.ofDays(7));
    assertThat(Wiring.relaySettings(WorkerConfig.fromEnvironment(minimal())).ownerId())
        .matches("[A-Za-z0-9._:\\-]+-[0-9a-f]{8}");
  }

  @Test
  void badRelayVariables_areEachNamedWithTheirAllowedValues() {
    Map<String, String> env = minimal();
    env.put("RELAY_ENABLED", "yes");
    env.put("RELAY_BATCH_SIZE", "0");
    env.put("RELAY_TOPIC_NAME", "order events");

    assertThatThrownBy(() -> WorkerConfig.fromEnvironment(env))
        .isInstanceOfSatisfying(
            WorkerConfig.ConfigurationException.class,
            e ->
                assertThat(e.problems())
                    .hasSize(3)
                    .anySatisfy(
                        p -> assertThat(p).startsWith("RELAY_ENABLED: must be true | false"))
                    .anySatisfy(
                        p ->
                            assertThat(p)
                                .startsWith("RELAY_BATCH_SIZE: must be an integer from 1 to 1000"))
                    .anySatisfy(p -> assertThat(p).startsWith("RELAY_TOPIC_NAME: must be")));
  }

  @Test
  void pollIntervalLongerThanAThirdOfTheLease_isRefused() {
    Map<String, String> env = minimal();
    env.put("RELAY_LEASE_DURATION", "PT6S");
    env.put("RELAY_POLL_INTERVAL", "PT3S");

    assertThatThrownBy(() -> WorkerConfig.fromEnvironment(env))
        .isInstanceOfSatisfying(
            WorkerConfig.ConfigurationException.class,
            e ->
                assertThat(e.problems())
                    .singleElement()
                    .satisfies(
                        p ->
                            assertThat(p)
                                .startsWith("RELAY_POLL_INTERVAL, RELAY_LEASE_DURATION:")
                                .contains("a third of the lease")));
  }

  @Test
  void relayCommand_withABadVariable_exitsTwo() throws Exception {
    Map<String, String> env = minimal();
    env.put("RELAY_BATCH_SIZE", "many");

    assertThat(new RelayCommand(env).call()).isEqualTo(2);
  }
}
