package io.idemworker.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.idemworker.azure.IdempotentWorker;
import io.idemworker.servicebus.ServiceBusConnection;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The start-up checks of the properties: a bad value stops the application with a message naming
 * the property and what it allows, before anything is contacted.
 */
class IdemworkerAutoConfigurationTest {
  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(IdemworkerAutoConfiguration.class))
          .withPropertyValues(
              "idemworker.queue=shipments",
              "idemworker.servicebus.connection-string="
                  + "Endpoint=sb://localhost/;SharedAccessKeyName=k;SharedAccessKey=v",
              "idemworker.cosmos.endpoint=https://localhost:1/",
              "idemworker.cosmos.key=a2V5",
              "idemworker.cosmos.database=shipping",
              "idemworker.cosmos.container=shipments");

  @Test
  void anOutOfRangeValue_stopsTheApplication_namingThePropertyAndItsRange() {
    runner
        .withPropertyValues("idemworker.max-concurrent-calls=0")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .isInstanceOf(IdemworkerConfigurationException.class)
                    .hasMessageContaining("idemworker.max-concurrent-calls must be 1-1000, was 0"));
  }

  @Test
  void everyProblem_isNamedAtOnce() {
    runner
        .withPropertyValues(
            "idemworker.prefetch-count=-1",
            "idemworker.topic=shipment-events",
            "idemworker.consumer-name=no spaces",
            "idemworker.cosmos.partition-key-path=/a/b")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .isInstanceOfSatisfying(
                        IdemworkerConfigurationException.class,
                        e ->
                            assertThat(e.problems())
                                .anySatisfy(
                                    p -> assertThat(p).contains("idemworker.prefetch-count"))
                                .anySatisfy(
                                    p -> assertThat(p).contains("idemworker.queue", "not both"))
                                .anySatisfy(p -> assertThat(p).contains("idemworker.consumer-name"))
                                .anySatisfy(
                                    p ->
                                        assertThat(p)
                                            .contains("idemworker.cosmos.partition-key-path"))));
  }

  @Test
  void aNamespaceWithoutACredential_isRefused_namingBothWays() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(IdemworkerAutoConfiguration.class))
        .withPropertyValues("idemworker.servicebus.namespace=my-ns")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("TokenCredential")
                    .hasMessageContaining("idemworker.servicebus.connection-string"));
  }

  @Test
  void disabled_createsNoWorker() {
    runner
        .withPropertyValues("idemworker.enabled=false")
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(IdempotentWorker.class));
  }

  @Test
  void aConnectionOfTheApplications_replacesTheStarters() {
    // no idemworker.servicebus.* at all: the application's connection is taken, and the next
    // missing piece named is the Cosmos DB account
    ServiceBusConnection own =
        new ServiceBusConnection.ConnectionString(
            "Endpoint=sb://own/;SharedAccessKeyName=k;SharedAccessKey=v");
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(IdemworkerAutoConfiguration.class))
        .withBean(ServiceBusConnection.class, () -> own)
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("idemworker.cosmos.endpoint")
                    .hasMessageNotContaining("servicebus"));
  }
}
