package com.example.shipments.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosClientBuilder;
import io.idemworker.azure.IdempotentWorker;
import io.idemworker.emulator.junit.AzureEmulators;
import io.idemworker.emulator.junit.Emulators;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;

/**
 * A worker the library refuses to build fails the application's start, with the library's words:
 * here a container with TTL off, so markers would never expire.
 */
@AzureEmulators(queues = "shipments-startup")
class ShipmentsStartupTest {

  @Test
  void aContainerWithoutTtl_failsTheApplicationsStart_namingTheFix(Emulators azure) {
    String container = azure.uniqueName("nottl");
    try (CosmosClient cosmos =
        new CosmosClientBuilder()
            .endpoint(azure.cosmosEndpoint())
            .key(azure.cosmosKey())
            .gatewayMode()
            .buildClient()) {
      cosmos.createDatabaseIfNotExists("shipping");
      cosmos.getDatabase("shipping").createContainerIfNotExists(container, "/shipmentId");
    }

    Throwable failure =
        catchThrowable(
            () ->
                new SpringApplicationBuilder(ShipmentsApplication.class)
                    .run(
                        "--idemworker.queue=shipments-startup",
                        "--idemworker.servicebus.connection-string="
                            + azure.serviceBusConnectionString(),
                        "--idemworker.cosmos.endpoint=" + azure.cosmosEndpoint(),
                        "--idemworker.cosmos.key=" + azure.cosmosKey(),
                        "--idemworker.cosmos.gateway-mode=true",
                        "--idemworker.cosmos.container=" + container));

    assertThat(failure)
        .rootCause()
        .isInstanceOfSatisfying(
            IdempotentWorker.StartupRefused.class,
            refused ->
                assertThat(refused.problems())
                    .singleElement()
                    .satisfies(p -> assertThat(p).contains("TTL off", "defaultTtl -1")));
  }
}
