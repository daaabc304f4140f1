package io.idemworker.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idemworker.servicebus.sessions.SessionSettings;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Session mode's variables: off by default, checked and named like every other variable. */
class SessionConfigTest {
  private static Map<String, String> minimal() {
    Map<String, String> env = new HashMap<>();
    env.put("SERVICEBUS_CONNECTION_STRING", "Endpoint=sb://localhost:5672;SharedAccessKey=k;");
    env.put("COSMOS_ENDPOINT", "https://localhost:8081/");
    return env;
  }

  @Test
  void sessionModeIsOffUnlessAskedFor() {
    assertThat(WorkerConfig.fromEnvironment(minimal()).sessions()).isEmpty();
  }

  @Test
  void sessionModeOn_takesItsSettingsAndTheirDefaults() {
    Map<String, String> env = minimal();
    env.put("SERVICEBUS_SESSIONS", "true");
    env.put("WORKER_MAX_CONCURRENT_SESSIONS", "32");

    SessionSettings sessions = WorkerConfig.fromEnvironment(env).sessions().orElseThrow();

    assertThat(sessions.maxConcurrentSessions()).isEqualTo(32);
    assertThat(sessions.gapTimeout()).isEqualTo(Duration.ofMinutes(5));
    assertThat(sessions.maxWaiting()).isEqualTo(100);
    assertThat(sessions.maxParkedAge()).isEqualTo(Duration.ofDays(1));
  }

  @Test
  void badSessionValues_areEachNamedWithTheirAllowedValues() {
    Map<String, String> env = minimal();
    env.put("SERVICEBUS_SESSIONS", "yes");
    env.put("WORKER_MAX_CONCURRENT_SESSIONS", "0");
    env.put("WORKER_GAP_TIMEOUT", "5 minutes");

    assertThatThrownBy(() -> WorkerConfig.fromEnvironment(env))
        .hasMessageContaining("SERVICEBUS_SESSIONS: must be true | false")
        .hasMessageContaining("WORKER_MAX_CONCURRENT_SESSIONS: must be an integer from 1 to 1000")
        .hasMessageContaining("WORKER_GAP_TIMEOUT: must be an ISO 8601 duration");
  }

  @Test
  void sessionModeForAConsumerRole_takesItsSessionsAtOnce() {
    Map<String, String> env = minimal();
    env.put("SERVICEBUS_SESSIONS", "true");
    env.put("WORKER_ROLE", "loyalty");
    env.put("SERVICEBUS_TOPIC_NAME", "order-events");
    env.put("SERVICEBUS_SUBSCRIPTION_NAME", "loyalty");
    env.put("WORKER_MAX_CONCURRENT_SESSIONS", "24");

    WorkerConfig config = WorkerConfig.fromEnvironment(env);

    assertThat(config.consumerRole()).isPresent();
    assertThat(config.sessions().orElseThrow().maxConcurrentSessions()).isEqualTo(24);
  }

  @Test
  void sessionModeForAConsumerRole_stillChecksItsSessionVariables() {
    Map<String, String> env = minimal();
    env.put("SERVICEBUS_SESSIONS", "true");
    env.put("WORKER_ROLE", "customer-stats");
    env.put("SERVICEBUS_TOPIC_NAME", "order-events");
    env.put("SERVICEBUS_SUBSCRIPTION_NAME", "customer-stats");
    env.put("WORKER_MAX_CONCURRENT_SESSIONS", "1001");

    assertThatThrownBy(() -> WorkerConfig.fromEnvironment(env))
        .hasMessageContaining("WORKER_MAX_CONCURRENT_SESSIONS: must be an integer from 1 to 1000");
  }
}
