package com.example.shipments.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.models.CosmosQueryRequestOptions;
import com.azure.cosmos.models.PartitionKey;
import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusReceiverClient;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import com.azure.messaging.servicebus.models.ServiceBusReceiveMode;
import com.azure.messaging.servicebus.models.SubQueue;
import com.fasterxml.jackson.databind.JsonNode;
import io.idemworker.core.DeliveryObserver;
import io.idemworker.core.DuplicateSource;
import io.idemworker.core.IncomingMessage;
import io.idemworker.core.Outcome;
import io.idemworker.emulator.junit.AzureEmulators;
import io.idemworker.emulator.junit.Emulators;
import io.idemworker.spring.boot.IdemworkerHealthIndicator;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The application as it runs, on the real SDKs against the emulators: the starter's worker
 * processes a shipment once, completes its duplicate, dead-letters a poison message with its
 * reason, reports its health and counts duplicates by source.
 */
@AzureEmulators(queues = "shipments")
@SpringBootTest(classes = {ShipmentsApplication.class, ShipmentsApplicationTest.Observed.class})
class ShipmentsApplicationTest {
  private static final Duration WAIT = Duration.ofSeconds(60);

  /** Injected by the emulators' kit before the Spring context reads the properties below. */
  static Emulators azure;

  @DynamicPropertySource
  static void emulators(DynamicPropertyRegistry registry) {
    registry.add("idemworker.servicebus.connection-string", () -> azure.serviceBusConnectionString());
    registry.add("idemworker.cosmos.endpoint", () -> azure.cosmosEndpoint());
    registry.add("idemworker.cosmos.key", () -> azure.cosmosKey());
    registry.add("idemworker.cosmos.gateway-mode", () -> "true");
    registry.add("idemworker.cosmos.create-if-missing", () -> "true");
  }

  /** Hears every outcome, as any DeliveryObserver bean of the application does. */
  @TestConfiguration
  static class Observed {
    @Bean
    Recorder recorder() {
      return new Recorder();
    }
  }

  @Autowired Recorder outcomes;
  @Autowired CosmosContainer shipments;
  @Autowired IdemworkerHealthIndicator health;
  @Autowired MeterRegistry meters;

  private ServiceBusClientBuilder bus;
  private ServiceBusSenderClient sender;

  @BeforeEach
  void connect() {
    bus = new ServiceBusClientBuilder().connectionString(azure.serviceBusConnectionString());
    sender = bus.sender().queueName("shipments").buildClient();
    outcomes.clear();
  }

  @AfterEach
  void close() {
    sender.close();
  }

  @Test
  void aShipment_isCreatedOnce_andItsDuplicateIsCompleted() {
    String id = azure.uniqueName("shp");

    send("ShipmentCreated", id, ShipmentMessages.createdBody(id));
    send("ShipmentCreated", id, ShipmentMessages.createdBody(id));

    List<Outcome> finished = outcomes.await(2);
    assertThat(finished)
        .extracting(o -> o.getClass().getSimpleName())
        .containsExactlyInAnyOrder("Processed", "Duplicate");
    assertThat(documents(id))
        .filteredOn(d -> d.path("type").asText().equals("shipment"))
        .singleElement()
        .satisfies(s -> assertThat(s.path("origin").asText()).isEqualTo("Rotterdam"));
    // the duplicate was completed, not left on the queue or dead-lettered
    assertThat(azure.serviceBus().messageCount("shipments")).isZero();
    // and counted by where it came from (a second send of the same id: a resend)
    DuplicateSource source =
        finished.stream()
            .filter(Outcome.Duplicate.class::isInstance)
            .map(o -> ((Outcome.Duplicate) o).source())
            .findFirst()
            .orElseThrow();
    assertThat(meters.counter("idemworker.duplicates", "source", source.label()).count())
        .isGreaterThanOrEqualTo(1);
  }

  @Test
  void scans_areAppendedOnceEach() {
    String id = azure.uniqueName("shp");
    send("ShipmentCreated", id, ShipmentMessages.createdBody(id));
    outcomes.await(1);

    send("ShipmentScanned", id + "-s1", scanned(id, id + "-s1"));
    send("ShipmentScanned", id + "-s1", scanned(id, id + "-s1"));

    assertThat(outcomes.await(2))
        .extracting(o -> o.getClass().getSimpleName())
        .containsExactlyInAnyOrder("Processed", "Duplicate");
    assertThat(shipment(id).path("scanCount").asLong()).isEqualTo(1);
  }

  @Test
  void aPoisonMessage_isDeadLettered_withItsReason() {
    String id = azure.uniqueName("poison");

    send("ShipmentCreated", id, "{\"shipmentId\": \"" + id + "\", \"origin\": 42");

    Outcome outcome = outcomes.await(1).get(0);
    assertThat(outcome).isInstanceOf(Outcome.DeadLettered.class);
    String code = ((Outcome.DeadLettered) outcome).reason().code();
    assertThat(code).isEqualTo("UnreadableBody");
    ServiceBusReceivedMessage dead = deadLettered(id);
    assertThat(dead.getDeadLetterReason()).isEqualTo(code);
    assertThat(meters.counter("idemworker.dead.letters", "reason", code).count())
        .isGreaterThanOrEqualTo(1);
  }

  @Test
  void theWorkerIsUp_whileItTakesMessages() {
    // one message through proves it runs; the indicator then says so
    String id = azure.uniqueName("shp");
    send("ShipmentCreated", id, ShipmentMessages.createdBody(id));
    outcomes.await(1);

    assertThat(health.health().getStatus()).isEqualTo(Status.UP);
    assertThat(health.health().getDetails()).containsEntry("state", "RUNNING");
  }

  private void send(String subject, String messageId, String body) {
    sender.sendMessage(
        new ServiceBusMessage(body)
            .setMessageId(messageId)
            .setSubject(subject)
            .setContentType("application/json"));
  }

  private static String scanned(String id, String scanId) {
    return "{\"shipmentId\":\""
        + id
        + "\",\"scanId\":\""
        + scanId
        + "\",\"location\":\"Antwerp\",\"scannedAt\":\"2026-12-01T08:00:00Z\"}";
  }

  private JsonNode shipment(String id) {
    return shipments.readItem(id, new PartitionKey(id), JsonNode.class).getItem();
  }

  private List<JsonNode> documents(String id) {
    return shipments
        .queryItems(
            "SELECT * FROM c",
            new CosmosQueryRequestOptions().setPartitionKey(new PartitionKey(id)),
            JsonNode.class)
        .stream()
        .toList();
  }

  /** The dead-lettered copy of one message, received within a bound (others are left there). */
  private ServiceBusReceivedMessage deadLettered(String messageId) {
    try (ServiceBusReceiverClient dlq =
        bus.receiver()
            .queueName("shipments")
            .subQueue(SubQueue.DEAD_LETTER_QUEUE)
            .receiveMode(ServiceBusReceiveMode.PEEK_LOCK)
            .buildClient()) {
      long deadline = System.nanoTime() + WAIT.toNanos();
      while (System.nanoTime() < deadline) {
        for (ServiceBusReceivedMessage m : dlq.receiveMessages(10, Duration.ofSeconds(2))) {
          if (m.getMessageId().equals(messageId)) {
            dlq.complete(m);
            return m;
          }
          dlq.abandon(m);
        }
      }
      throw new AssertionError("no dead-lettered " + messageId + " within " + WAIT);
    }
  }

  /** Records outcomes in the order they finish; tests wait on them with a bound. */
  static final class Recorder implements DeliveryObserver {
    private final BlockingQueue<Outcome> finished = new LinkedBlockingQueue<>();

    @Override
    public Observation start(IncomingMessage message) {
      return (outcome, elapsed, settled) -> finished.add(outcome);
    }

    void clear() {
      finished.clear();
    }

    List<Outcome> await(int count) {
      List<Outcome> got = new ArrayList<>();
      long deadline = System.nanoTime() + WAIT.toNanos();
      try {
        while (got.size() < count) {
          Outcome next =
              finished.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
          assertThat(next).as("outcome %d of %d within %s", got.size() + 1, count, WAIT).isNotNull();
          got.add(next);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
      return got;
    }
  }
}
