package io.idemworker.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.idemworker.testing.Emulators;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code run} refuses to start, exit code 2, when {@code SERVICEBUS_SESSIONS} and the queue's
 * sessions disagree, in both directions, as a real process against the emulators.
 */
class RunSessionModeProcessTest {
  private static final Duration WAIT = Duration.ofSeconds(90);

  private Process process;

  @AfterEach
  void cleanUp() {
    if (process != null) {
      process.destroyForcibly();
    }
  }

  private static Map<String, String> env(String queue, boolean sessions) {
    Map<String, String> env = new HashMap<>();
    env.put("RELAY_ENABLED", "false");
    env.put("SERVICEBUS_CONNECTION_STRING", Emulators.serviceBus().connectionString());
    env.put("SERVICEBUS_QUEUE_NAME", queue);
    env.put("SERVICEBUS_SESSIONS", Boolean.toString(sessions));
    env.put("COSMOS_ENDPOINT", Emulators.cosmos().endpoint());
    env.put("COSMOS_KEY", Emulators.cosmos().key());
    env.put("COSMOS_DATABASE", "db-" + UUID.randomUUID().toString().substring(0, 8));
    env.put("COSMOS_CREATE_CONTAINER", "true");
    env.put("HEALTH_PORT", "0");
    return env;
  }

  private String runToExit(Map<String, String> env) throws Exception {
    process = ChildJvm.command("run", env).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    return output;
  }

  @Test
  void sessionsOn_queueWithoutSessions_exitsTwoNamingTheVariable() throws Exception {
    String queue = Emulators.newQueue(s -> s);

    String output = runToExit(env(queue, true));

    assertThat(process.exitValue()).isEqualTo(2);
    assertThat(output)
        .contains("SERVICEBUS_SESSIONS is true, but queue " + queue + " does not require sessions");
  }

  @Test
  void sessionsOff_queueThatRequiresSessions_exitsTwoNamingTheVariable() throws Exception {
    String queue = Emulators.newQueue(s -> s.withRequiresSession(true));

    String output = runToExit(env(queue, false));

    assertThat(process.exitValue()).isEqualTo(2);
    assertThat(output)
        .contains("SERVICEBUS_SESSIONS is false, but queue " + queue + " requires sessions");
  }
}
