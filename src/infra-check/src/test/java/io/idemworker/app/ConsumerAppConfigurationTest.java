package io.idemworker.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idemworker.consumers.CustomerConsumers;
import io.idemworker.infra.ConsumerAppEnv;
import io.idemworker.servicebus.ProcessorSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The environment infra/modules/consumer-app.bicep gives each consumer, with the subscription
 * settings servicebus.bicep sets, is a configuration the worker accepts, for the right role and
 * subscription, without the relay.
 */
class ConsumerAppConfigurationTest {

  @ParameterizedTest
  @ValueSource(strings = {"loyalty", "customer-stats"})
  void consumerAppEnvironment_isAValidConsumerConfiguration(String role) {
    Map<String, String> env = ConsumerAppEnv.of(role);

    WorkerConfig config = WorkerConfig.fromEnvironment(env);

    assertThat(config.consumerRole()).map(CustomerConsumers.Role::roleName).contains(role);
    assertThat(config.subscription())
        .contains(new ProcessorSettings.Subscription("order-events", role));
    assertThat(config.cosmosContainer()).isEqualTo("customers");
    assertThat(config.relay().enabled()).isFalse();
    assertThat(config.payments()).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"loyalty", "customer-stats"})
  void consumerAppEnvironment_followsServiceBusSessions(String role) {
    WorkerConfig plain = WorkerConfig.fromEnvironment(ConsumerAppEnv.of(role, false));
    WorkerConfig sessions = WorkerConfig.fromEnvironment(ConsumerAppEnv.of(role, true));

    assertThat(plain.sessions()).isEmpty();
    assertThat(sessions.sessions()).isPresent();
    assertThat(sessions.sessions().get().maxConcurrentSessions()).isEqualTo(8);
    assertThat(sessions.consumerRole()).map(CustomerConsumers.Role::roleName).contains(role);
  }

  @Test
  void consumerAppEnvironmentWithTheQueueToo_isRefused() {
    Map<String, String> env = new HashMap<>(ConsumerAppEnv.of("loyalty"));
    env.put("SERVICEBUS_QUEUE_NAME", "orders");

    assertThatThrownBy(() -> WorkerConfig.fromEnvironment(env))
        .hasMessageContaining("SERVICEBUS_QUEUE_NAME, SERVICEBUS_TOPIC_NAME: set one, not both");
  }

  @Test
  void templateWithoutTheSubscriptionVariable_givesAnEnvironmentTheWorkerRefuses()
      throws IOException {
    String template = Files.readString(Path.of("infra", "modules", "consumer-app.bicep"));
    String broken =
        template.replace(
            "            {\n              name: 'SERVICEBUS_SUBSCRIPTION_NAME'\n"
                + "              value: subscriptionName\n            }\n",
            "");
    assertThat(broken).isNotEqualTo(template);
    Map<String, String> env = ConsumerAppEnv.of("loyalty", broken);

    assertThatThrownBy(() -> WorkerConfig.fromEnvironment(env))
        .hasMessageContaining("SERVICEBUS_TOPIC_NAME, SERVICEBUS_SUBSCRIPTION_NAME: set both");
  }
}
