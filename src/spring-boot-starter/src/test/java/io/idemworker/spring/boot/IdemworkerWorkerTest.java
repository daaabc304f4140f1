package io.idemworker.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.models.CosmosQueryRequestOptions;
import com.azure.cosmos.models.PartitionKey;
import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.idemworker.azure.IdempotentWorker;
import io.idemworker.azure.MessageType;
import io.idemworker.core.DeliveryObserver;
import io.idemworker.core.Outcome;
import io.idemworker.emulator.junit.AzureEmulators;
import io.idemworker.emulator.junit.Emulators;
import io.idemworker.servicebus.WorkerStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.ClassUtils;

/**
 * The auto-configuration alone, on the emulators: a MessageType bean and the idemworker.*
 * properties give a worker that starts with the context, processes a parcel once, completes its
 * duplicate, and stops with the context. The build runs it on Spring Boot 4 and again on Spring
 * Boot 3.5 (the spring-boot-3.5 test run of this module's POM), where the health indicator stays
 * out because Boot 3.5 has no spring-boot-health.
 */
@AzureEmulators(queues = "parcels")
class IdemworkerWorkerTest {
  private static final Duration WAIT = Duration.ofSeconds(60);

  /** A parcel registered at a depot. */
  record ParcelRegistered(String parcelId, String depot) {}

  @Configuration(proxyBeanMethods = false)
  static class Parcels {
    @Bean
    MessageType<ParcelRegistered> parcelRegistered() {
      return MessageType.of("ParcelRegistered", ParcelRegistered.class)
          .fields(f -> f.id("parcelId").text("depot", 1, 64))
          .entity(ParcelRegistered::parcelId)
          .key("parcelId", ParcelRegistered::parcelId)
          .documentType("parcel")
          .creates(p -> JsonNodeFactory.instance.objectNode().put("depot", p.depot()));
    }

    @Bean
    Recorder recorder() {
      return new Recorder();
    }
  }

  /**
   * The auto-configuration alone with {@code configuration}, on the kit's emulators: {@code queue}
   * into the {@code parcels} container (by {@code /parcelId}) of a fresh database.
   */
  static ApplicationContextRunner parcelsRunner(
      Emulators azure, String queue, Class<?> configuration) {
    return new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(IdemworkerAutoConfiguration.class))
        .withUserConfiguration(configuration)
        .withPropertyValues(
            "idemworker.queue=" + queue,
            "idemworker.servicebus.connection-string=" + azure.serviceBusConnectionString(),
            "idemworker.cosmos.endpoint=" + azure.cosmosEndpoint(),
            "idemworker.cosmos.key=" + azure.cosmosKey(),
            "idemworker.cosmos.gateway-mode=true",
            "idemworker.cosmos.create-if-missing=true",
            "idemworker.cosmos.database=" + azure.uniqueName("depots"),
            "idemworker.cosmos.container=parcels",
            "idemworker.cosmos.partition-key-path=/parcelId");
  }

  /** Sends {@code copies} of a {@code ParcelRegistered} for {@code id} with these properties. */
  static void sendParcel(
      Emulators azure, String queue, String id, Map<String, Object> properties, int copies) {
    try (ServiceBusSenderClient sender =
        new ServiceBusClientBuilder()
            .connectionString(azure.serviceBusConnectionString())
            .sender()
            .queueName(queue)
            .buildClient()) {
      for (int copy = 0; copy < copies; copy++) {
        ServiceBusMessage message =
            new ServiceBusMessage("{\"parcelId\":\"" + id + "\",\"depot\":\"Utrecht\"}")
                .setMessageId(id)
                .setSubject("ParcelRegistered")
                .setContentType("application/json");
        message.getApplicationProperties().putAll(properties);
        sender.sendMessage(message);
      }
    }
  }

  @Test
  void aParcel_isRegisteredOnce_andItsDuplicateIsCompleted(Emulators azure) {
    parcelsRunner(azure, "parcels", Parcels.class)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              IdempotentWorker worker = context.getBean(IdempotentWorker.class);
              assertThat(worker.status().state()).isEqualTo(WorkerStatus.State.RUNNING);
              // the indicator exactly when Spring Boot's health is there (Boot 4, not 3.5)
              assertThat(context.containsBean("idemworkerHealthIndicator"))
                  .isEqualTo(
                      ClassUtils.isPresent(
                          "org.springframework.boot.health.contributor.HealthIndicator", null));

              String id = azure.uniqueName("parcel");
              sendParcel(azure, "parcels", id, Map.of(), 2);

              assertThat(context.getBean(Recorder.class).await(2))
                  .extracting(o -> o.getClass().getSimpleName())
                  .containsExactlyInAnyOrder("Processed", "Duplicate");
              List<JsonNode> documents =
                  context
                      .getBean(CosmosContainer.class)
                      .queryItems(
                          "SELECT * FROM c WHERE c.type = 'parcel'",
                          new CosmosQueryRequestOptions().setPartitionKey(new PartitionKey(id)),
                          JsonNode.class)
                      .stream()
                      .toList();
              assertThat(documents)
                  .singleElement()
                  .satisfies(d -> assertThat(d.path("depot").asText()).isEqualTo("Utrecht"));
              assertThat(azure.serviceBus().messageCount("parcels")).isZero();
            });
  }

  /** Records outcomes as they finish; the test waits on them with a bound. */
  static final class Recorder implements DeliveryObserver {
    private final BlockingQueue<Outcome> finished = new LinkedBlockingQueue<>();

    @Override
    public Observation start(io.idemworker.core.IncomingMessage message) {
      return (outcome, elapsed, settled) -> finished.add(outcome);
    }

    List<Outcome> await(int count) throws InterruptedException {
      List<Outcome> got = new ArrayList<>();
      long deadline = System.nanoTime() + WAIT.toNanos();
      while (got.size() < count) {
        Outcome next =
            finished.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        assertThat(next).as("outcome %d of %d within %s", got.size() + 1, count, WAIT).isNotNull();
        got.add(next);
      }
      return got;
    }
  }
}
