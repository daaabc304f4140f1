package com.example.shipments.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosClientBuilder;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.models.CosmosQueryRequestOptions;
import com.azure.cosmos.models.PartitionKey;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import com.azure.spring.cloud.core.customizer.AzureServiceClientBuilderCustomizer;
import com.fasterxml.jackson.databind.JsonNode;
import io.idemworker.azure.IdempotentWorker;
import io.idemworker.emulator.junit.AzureEmulators;
import io.idemworker.emulator.junit.Emulators;
import io.idemworker.servicebus.ServiceBusConnection;
import io.idemworker.servicebus.WorkerStatus;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The same application configured the Spring Cloud Azure way: only {@code spring.cloud.azure.*}
 * says where Service Bus and Cosmos DB are (the queue and the database included), with Spring
 * Cloud Azure's auto-configuration on the class path. The starter's worker runs on Spring Cloud
 * Azure's Cosmos DB client (built by its {@code CosmosClientBuilder}, through the application's
 * customizers) and its Service Bus connection string, and processes a shipment once; the test sends
 * with Spring Cloud Azure's own sender bean.
 */
@AzureEmulators(queues = "shipments-sca")
@SpringBootTest(
    classes = {
      ShipmentsApplication.class,
      ShipmentsApplicationTest.Observed.class,
      ShipmentsSpringCloudAzureTest.Customized.class
    })
class ShipmentsSpringCloudAzureTest {

  /** Injected by the emulators' kit before the Spring context reads the properties below. */
  static Emulators azure;

  @DynamicPropertySource
  static void springCloudAzure(DynamicPropertyRegistry registry) {
    registry.add(
        "spring.cloud.azure.servicebus.connection-string",
        () -> azure.serviceBusConnectionString());
    registry.add("spring.cloud.azure.servicebus.entity-name", () -> "shipments-sca");
    registry.add("spring.cloud.azure.servicebus.entity-type", () -> "queue");
    registry.add("spring.cloud.azure.cosmos.endpoint", () -> azure.cosmosEndpoint());
    registry.add("spring.cloud.azure.cosmos.key", () -> azure.cosmosKey());
    registry.add("spring.cloud.azure.cosmos.database", () -> "shipping-sca");
    registry.add("spring.cloud.azure.cosmos.connection-mode", () -> "gateway");
    // application.properties names a queue and a database; blank, they fall back to Spring
    // Cloud Azure's entity-name and database
    registry.add("idemworker.queue", () -> "");
    registry.add("idemworker.cosmos.database", () -> "");
    registry.add("idemworker.cosmos.create-if-missing", () -> "true");
  }

  /** A customizer of Spring Cloud Azure's, as an application declares one to tune the client. */
  @TestConfiguration
  static class Customized {
    final List<CosmosClientBuilder> customized = new CopyOnWriteArrayList<>();

    @Bean
    AzureServiceClientBuilderCustomizer<CosmosClientBuilder> recordingCosmosCustomizer() {
      return customized::add;
    }
  }

  @Autowired ApplicationContext context;
  @Autowired ShipmentsApplicationTest.Recorder outcomes;
  @Autowired Customized customizer;
  @Autowired CosmosContainer shipments;
  @Autowired ServiceBusSenderClient springCloudAzureSender;

  @Test
  void theWorker_runsOnSpringCloudAzuresClients() {
    // one Cosmos DB client, Spring Cloud Azure's, built from its builder bean after the
    // application's customizer ran on it; the starter's own client backed off
    assertThat(context.getBeanNamesForType(CosmosClient.class))
        .containsExactly("azureCosmosClient");
    assertThat(customizer.customized)
        .singleElement()
        .isSameAs(context.getBean(CosmosClientBuilder.class));
    // the database from spring.cloud.azure.cosmos.database, the container created there
    assertThat(shipments.getId()).isEqualTo("shipments");
    assertThat(
            context
                .getBean(CosmosClient.class)
                .getDatabase("shipping-sca")
                .getContainer("shipments")
                .read()
                .getProperties()
                .getPartitionKeyDefinition()
                .getPaths())
        .containsExactly("/shipmentId");
    // the namespace from spring.cloud.azure.servicebus.connection-string
    assertThat(context.getBean(ServiceBusConnection.class))
        .isEqualTo(new ServiceBusConnection.ConnectionString(azure.serviceBusConnectionString()));
    assertThat(context.getBean(IdempotentWorker.class).status().state())
        .isEqualTo(WorkerStatus.State.RUNNING);
  }

  @Test
  void aShipment_isCreatedOnce_andItsDuplicateIsCompleted() {
    outcomes.clear();
    String id = azure.uniqueName("shp");

    send(id);
    send(id);

    assertThat(outcomes.await(2))
        .extracting(o -> o.getClass().getSimpleName())
        .containsExactlyInAnyOrder("Processed", "Duplicate");
    List<JsonNode> documents =
        shipments
            .queryItems(
                "SELECT * FROM c",
                new CosmosQueryRequestOptions().setPartitionKey(new PartitionKey(id)),
                JsonNode.class)
            .stream()
            .toList();
    assertThat(documents)
        .filteredOn(d -> d.path("type").asText().equals("shipment"))
        .singleElement()
        .satisfies(s -> assertThat(s.path("origin").asText()).isEqualTo("Rotterdam"));
    assertThat(azure.serviceBus().messageCount("shipments-sca")).isZero();
  }

  private void send(String id) {
    springCloudAzureSender.sendMessage(ShipmentMessages.created(id));
  }
}
