package com.example.shipments.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.core.credential.TokenCredential;
import com.azure.spring.cloud.autoconfigure.implementation.context.AzureGlobalPropertiesAutoConfiguration;
import com.azure.spring.cloud.autoconfigure.implementation.context.AzureTokenCredentialAutoConfiguration;
import io.idemworker.servicebus.ServiceBusConnection;
import io.idemworker.spring.boot.IdemworkerAutoConfiguration;
import io.idemworker.spring.boot.IdemworkerProperties;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * With a namespace and no connection string, the starter reaches Service Bus with Spring Cloud
 * Azure's credential chain (its {@code springCloudAzureDefaultCredential} bean, the one {@code
 * TokenCredential} of an application with Spring Cloud Azure). The emulator takes connection
 * strings only, so this checks the connection the starter builds rather than a delivery.
 */
class SpringCloudAzureCredentialTest {
  private final ApplicationContextRunner springCloudAzure =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  AzureGlobalPropertiesAutoConfiguration.class,
                  AzureTokenCredentialAutoConfiguration.class));

  @Test
  void aNamespace_isReachedWithSpringCloudAzuresCredential() {
    springCloudAzure
        .withPropertyValues("spring.cloud.azure.servicebus.namespace=sb-shipments")
        .run(
            context -> {
              ServiceBusConnection connection =
                  new IdemworkerAutoConfiguration()
                      .idemworkerServiceBusConnection(
                          new IdemworkerProperties(),
                          context.getEnvironment(),
                          context.getBeanProvider(TokenCredential.class));

              TokenCredential springCloudAzures =
                  context.getBean("springCloudAzureDefaultCredential", TokenCredential.class);
              assertThat(connection)
                  .isEqualTo(
                      new ServiceBusConnection.Namespace(
                          "sb-shipments.servicebus.windows.net", springCloudAzures));
            });
  }

  @Test
  void aNamespace_takesSpringCloudAzuresDomainName() {
    springCloudAzure
        .withPropertyValues(
            "spring.cloud.azure.servicebus.namespace=sb-shipments",
            "spring.cloud.azure.servicebus.domain-name=servicebus.chinacloudapi.cn")
        .run(
            context ->
                assertThat(
                        new IdemworkerAutoConfiguration()
                            .idemworkerServiceBusConnection(
                                new IdemworkerProperties(),
                                context.getEnvironment(),
                                context.getBeanProvider(TokenCredential.class)))
                    .isInstanceOfSatisfying(
                        ServiceBusConnection.Namespace.class,
                        n ->
                            assertThat(n.fullyQualifiedNamespace())
                                .isEqualTo("sb-shipments.servicebus.chinacloudapi.cn")));
  }
}
