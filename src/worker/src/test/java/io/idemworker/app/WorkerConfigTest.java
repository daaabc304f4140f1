package io.idemworker.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WorkerConfigTest {
  private static final String EMULATOR =
      "Endpoint=sb://localhost:5672;SharedAccessKeyName=RootManageSharedAccessKey;"
          + "SharedAccessKey=SAS_KEY_VALUE;UseDevelopmentEmulator=true;";

  private static Map<String, String> minimal() {
    Map<String, String> env = new HashMap<>();
    env.put("SERVICEBUS_CONNECTION_STRING", EMULATOR);
    env.put("COSMOS_ENDPOINT", "https://localhost:8081/");
    return env;
  }

  @Test
  void minimalEnvironment_takesTheDocumentedDefaults() {
    WorkerConfig config = WorkerConfig.fromEnvironment(minimal());

    assertThat(config.queueName()).isEqualTo("orders");
    assertThat(config.cosmosDatabase()).isEqualTo("idemworker");
    assertThat(config.cosmosContainer()).isEqualTo("orders");
    assertThat(config.maxConcurrentCalls()).isEqualTo(16);
    assertThat(config.prefetchCount()).isZero();
    assertThat(config.maxLockRenewal()).isEqualTo(Duration.ofMinutes(5));
    assertThat(config.keyStrategy()).isEqualTo(WorkerConfig.KeyStrategyName.MESSAGE_ID);
    assertThat(config.maxBodyBytes()).isEqualTo(262_144);
    assertThat(config.shutdownTimeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(config.healthPort()).isEqualTo(8080);
    assertThat(config.cosmosKey()).isEmpty();
  }

  @Test
  void everyBadVariableIsReportedAtOnceWithItsAllowedValues() {
    Map<String, String> env = minimal();
    env.put("WORKER_MAX_CONCURRENT_CALLS", "0");
    env.put("WORKER_KEY_STRATEGY", "sequence-number");
    env.put("WORKER_MAX_LOCK_RENEWAL", "5 minutes");
    env.put("COSMOS_ENDPOINT", "http://localhost:8081/");
    env.put("HEALTH_PORT", "70000");

    assertThatThrownBy(() -> WorkerConfig.fromEnvironment(env))
        .isInstanceOfSatisfying(
            WorkerConfig.ConfigurationException.class,
            e ->
                assertThat(e.problems())
                    .hasSize(5)
                    .anySatisfy(
                        p ->
                            assertThat(p)
                                .startsWith(
                                    "WORKER_MAX_CONCURRENT_CALLS: must be an integer from 1 to 1000"))
                    .anySatisfy(
                        p ->
                            assertThat(p)
                                .contains("WORKER_KEY_STRATEGY: must be message-id | cloudevents"))
                    .anySatisfy(
                        p ->
                            assertThat(p)
                                .contains("WORKER_MAX_LOCK_RENEWAL: must be an ISO 8601 duration"))
                    .anySatisfy(
                        p -> assertThat(p).contains("COSMOS_ENDPOINT: must be an https URL"))
                    .anySatisfy(p -> assertThat(p).contains("HEALTH_PORT")));
  }

  @Test
  void serviceBusNeedsExactlyOneOfConnectionStringAndNamespace() {
    Map<String, String> both = minimal();
    both.put("SERVICEBUS_FULLY_QUALIFIED_NAMESPACE", "sb-x.servicebus.windows.net");
    Map<String, String> neither = minimal();
    neither.remove("SERVICEBUS_CONNECTION_STRING");

    assertThatThrownBy(() -> WorkerConfig.fromEnvironment(both))
        .hasMessageContaining("set exactly one");
    assertThatThrownBy(() -> WorkerConfig.fromEnvironment(neither))
        .hasMessageContaining("set exactly one");
  }

  @Test
  void missingCosmosEndpoint_isNamed() {
    Map<String, String> env = minimal();
    env.remove("COSMOS_ENDPOINT");

    assertThatThrownBy(() -> WorkerConfig.fromEnvironment(env))
        .hasMessageContaining("COSMOS_ENDPOINT: is required");
  }

  @Test
  void secretsNeverAppearInErrors() {
    Map<String, String> env = minimal();
    env.put("SERVICEBUS_CONNECTION_STRING", "SharedAccessKey=topsecret");

    assertThatThrownBy(() -> WorkerConfig.fromEnvironment(env))
        .hasMessageContaining("SERVICEBUS_CONNECTION_STRING")
        .hasMessageNotContaining("topsecret");
  }

  @Test
  void azureStyleConfiguration_isAccepted() {
    Map<String, String> env = new HashMap<>();
    env.put("SERVICEBUS_FULLY_QUALIFIED_NAMESPACE", "sb-orders.servicebus.windows.net");
    env.put("COSMOS_ENDPOINT", "https://cosmos-orders.documents.azure.com:443/");
    env.put("WORKER_KEY_STRATEGY", "CloudEvents");
    env.put("WORKER_CONSUMER_NAME", "billing");
    env.put("COSMOS_CONNECTION_MODE", "direct");

    WorkerConfig config = WorkerConfig.fromEnvironment(env);

    assertThat(config.keyStrategy()).isEqualTo(WorkerConfig.KeyStrategyName.CLOUDEVENTS);
    assertThat(config.consumerName()).contains("billing");
    assertThat(config.cosmosGatewayMode()).isFalse();
  }

  @Test
  void runCommand_exitsWithUsageErrorNamingTheVariable() {
    Map<String, String> env = minimal();
    env.put("WORKER_PREFETCH_COUNT", "-1");

    int exit = new picocli.CommandLine(new RunCommand(env)).execute();

    assertThat(exit).isEqualTo(2);
  }

  @Test
  void defaultRetention_keepsMarkersLongerThanTheRedeliveryHorizon() {
    WorkerConfig config = WorkerConfig.fromEnvironment(minimal());

    assertThat(config.inboxTtl()).contains(Duration.ofDays(14));
    assertThat(config.retention().horizon())
        .isEqualTo(Duration.ofMinutes(10).plus(Duration.ofDays(6)).plus(Duration.ofDays(7)))
        .isLessThan(Duration.ofDays(14));
  }

  @Test
  void markerTtlShorterThanTheHorizon_isRefusedInOneLineNamingTheVariablesHorizonAndTtl() {
    Map<String, String> env = minimal();
    env.put("WORKER_INBOX_TTL", "P7D");
    env.put("SERVICEBUS_MESSAGE_TTL", "P1D");

    assertThatThrownBy(() -> WorkerConfig.fromEnvironment(env))
        .isInstanceOfSatisfying(
            WorkerConfig.ConfigurationException.class,
            e ->
                assertThat(e.problems())
                    .singleElement()
                    .satisfies(
                        p ->
                            assertThat(p)
                                .startsWith("WORKER_INBOX_TTL, SERVICEBUS_LOCK_DURATION")
                                .contains("SERVICEBUS_MESSAGE_TTL")
                                .contains("WORKER_RESUBMIT_WINDOW")
                                .contains("inbox marker TTL PT168H")
                                .contains("horizon PT192H10M")
                                .doesNotContain("\n")));
  }

  @Test
  void markersThatNeverExpire_needNoHorizonCheck() {
    Map<String, String> env = minimal();
    env.put("WORKER_INBOX_TTL", "never");
    env.put("SERVICEBUS_MESSAGE_TTL", "P3650D");

    assertThat(WorkerConfig.fromEnvironment(env).inboxTtl()).isEmpty();
  }

  @Test
  void badRetentionValues_nameTheirVariable() {
    Map<String, String> env = minimal();
    env.put("WORKER_INBOX_TTL", "two weeks");
    env.put("SERVICEBUS_MAX_DELIVERY_COUNT", "0");

    assertThatThrownBy(() -> WorkerConfig.fromEnvironment(env))
        .isInstanceOfSatisfying(
            WorkerConfig.ConfigurationException.class,
            e ->
                assertThat(e.problems())
                    .hasSize(2)
                    .anySatisfy(p -> assertThat(p).startsWith("WORKER_INBOX_TTL: must be"))
                    .anySatisfy(
                        p -> assertThat(p).startsWith("SERVICEBUS_MAX_DELIVERY_COUNT: must be")));
  }

  private static Map<String, String> withPayments(String timeout, String lease, String lock) {
    Map<String, String> env = minimal();
    env.put("PAYMENTS_BASE_URL", "http://127.0.0.1:8089");
    env.put("PAYMENTS_API_KEY", "sk_test_config");
    env.put("PAYMENTS_TIMEOUT", timeout);
    env.put("PAYMENTS_LEASE", lease);
    env.put("SERVICEBUS_LOCK_DURATION", lock);
    return env;
  }

  @Test
  void paymentLease_isACeiling_thatMayOutlastTheLock() {
    // the lease a claim writes is cut at its delivery's lock end, so a longer ceiling is fine
    WorkerConfig config = WorkerConfig.fromEnvironment(withPayments("PT10S", "PT2M", "PT30S"));

    assertThat(config.payments()).isPresent();
  }

  @Test
  void paymentCallThatCannotFitInLeaseOrLock_isRefusedNamingTheVariablesAndTheMargin() {
    for (Map<String, String> env :
        java.util.List.of(
            withPayments("PT10S", "PT11S", "PT1M"), withPayments("PT10S", "PT30S", "PT12S"))) {
      assertThatThrownBy(() -> WorkerConfig.fromEnvironment(env))
          .isInstanceOfSatisfying(
              WorkerConfig.ConfigurationException.class,
              e ->
                  assertThat(e.problems())
                      .singleElement()
                      .satisfies(
                          p ->
                              assertThat(p)
                                  .startsWith(
                                      "PAYMENTS_TIMEOUT, PAYMENTS_LEASE, SERVICEBUS_LOCK_DURATION")
                                  .contains("PT10S + PT2S")));
    }
  }
}
