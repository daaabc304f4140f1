package io.idemworker.relay;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.models.PartitionKey;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.cosmos.CosmosContainers;
import io.idemworker.emulator.cosmos.Fault;
import io.idemworker.emulator.cosmos.Operation;
import io.idemworker.servicebus.WorkerStatus;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;

/**
 * The relay keyed by its container's own partition key, through the real SDKs on both emulators: on
 * a container partitioned by {@code /shipmentId} it publishes (its lease document and the events
 * carry that field), sets {@code SessionId} by the rule it is given, and on a container it cannot
 * work with it reports not ready instead of running on quietly.
 */
class RelayPartitionKeyTest extends RelayEmulatorTest {
  private CosmosContainer container(String partitionKeyPath) {
    return CosmosContainers.ensureExists(
        client, "relay", "c-" + UUID.randomUUID().toString().substring(0, 8), partitionKeyPath);
  }

  private OutboxRelay relay(CosmosContainer container, String topic, SessionIdRule sessions) {
    OutboxRelay relay =
        OutboxRelay.create(
            container,
            serviceBus.sender().topicName(topic).buildClient(),
            RelayFixture.settings(topic, "relay-a"),
            sessions,
            RelayListener.none(),
            clock,
            Executors.newSingleThreadScheduledExecutor());
    relays.add(relay);
    return relay;
  }

  private String writeShipmentEvent(CosmosContainer container, String shipmentId, String route) {
    String id = UUID.randomUUID().toString();
    ObjectNode event = JsonNodeFactory.instance.objectNode();
    event.put("id", id);
    event.put("shipmentId", shipmentId);
    event.put("type", "outbox");
    event.put("eventType", "ShipmentDelivered");
    event.put("ttl", Duration.ofDays(7).toSeconds());
    event.put("createdAt", clock.instant().toString());
    event.putObject("payload").put("shipmentId", shipmentId).put("route", route);
    container.createItem(event);
    return id;
  }

  @Test
  void containerPartitionedByAnotherField_isRelayed_keyedAndSessionedByItsOwnRules()
      throws Exception {
    // given a container partitioned by /shipmentId with a shipment and two of its events
    CosmosContainer container = container("/shipmentId");
    String topic = RelayFixture.newTopic(azure.serviceBus());
    container.createItem(
        JsonNodeFactory.instance
            .objectNode()
            .put("id", "shp-1")
            .put("shipmentId", "shp-1")
            .put("type", "shipment"));
    String first = writeShipmentEvent(container, "shp-1", "route-7");
    String second = writeShipmentEvent(container, "shp-1", "route-7");
    OutboxRelay relay = relay(container, topic, SessionIdRule.payloadField("route"));

    // when one cycle runs
    OutboxRelay.Cycle cycle = relay.runOnce();

    // then both events are on the topic, keyed by the container's field, in the rule's session
    assertThat(cycle).isEqualTo(OutboxRelay.Cycle.DRAINED);
    assertThat(relay.status().ready()).isTrue();
    List<ServiceBusReceivedMessage> received =
        RelayFixture.receive(serviceBus, topic, 2, Duration.ofSeconds(30), Duration.ofMillis(500));
    assertThat(received)
        .extracting(ServiceBusReceivedMessage::getMessageId)
        .containsExactly(first, second);
    assertThat(received)
        .extracting(ServiceBusReceivedMessage::getSubject)
        .containsOnly("ShipmentDelivered");
    assertThat(received)
        .extracting(ServiceBusReceivedMessage::getSessionId)
        .containsOnly("route-7");
    assertThat(received.get(0).getApplicationProperties()).containsEntry("shipmentId", "shp-1");
    // and the lease lives in the container under its own partition key field
    JsonNode lease =
        container
            .readItem(
                RelayLease.DOCUMENT_ID,
                new PartitionKey(RelayLease.partition(topic)),
                JsonNode.class)
            .getItem();
    assertThat(lease.path("shipmentId").asText()).isEqualTo(RelayLease.partition(topic));
    assertThat(RelayProgress.read(container, topic, 100).of(readEvent(container, first)))
        .isEqualTo(RelayProgress.State.PUBLISHED);
  }

  @Test
  void defaultSessionRule_isThePartitionKeyValue() throws Exception {
    CosmosContainer container = container("/shipmentId");
    String topic = RelayFixture.newTopic(azure.serviceBus());
    writeShipmentEvent(container, "shp-2", "route-1");
    OutboxRelay relay = relay(container, topic, SessionIdRule.partitionKey());

    assertThat(relay.runOnce()).isEqualTo(OutboxRelay.Cycle.DRAINED);

    List<ServiceBusReceivedMessage> received =
        RelayFixture.receive(serviceBus, topic, 1, Duration.ofSeconds(30), Duration.ofMillis(200));
    assertThat(received)
        .extracting(ServiceBusReceivedMessage::getSessionId)
        .containsExactly("shp-2");
  }

  @Test
  void containerNotPartitionedByOneTopLevelField_reportsNotReady_andPublishesNothing()
      throws Exception {
    // given a container partitioned by a nested path, which the relay cannot key events in
    CosmosContainer container = container("/meta/shipmentId");
    String topic = RelayFixture.newTopic(azure.serviceBus());
    OutboxRelay relay = relay(container, topic, SessionIdRule.partitionKey());

    // when a cycle runs
    OutboxRelay.Cycle cycle = relay.runOnce();

    // then it failed, and says so to the readiness probe with the reason
    assertThat(cycle).isEqualTo(OutboxRelay.Cycle.FAILED);
    WorkerStatus status = relay.status();
    assertThat(status.ready()).isFalse();
    assertThat(status.state()).isEqualTo(WorkerStatus.State.PAUSED);
    assertThat(status.reason()).hasValueSatisfying(r -> assertThat(r).contains("/meta/shipmentId"));
    assertThat(relay.holdsLease()).isFalse();
  }

  @Test
  void leaseCreateRefusedAsBadRequest_reportsNotReady_untilACycleSucceeds() throws Exception {
    // given Cosmos DB refusing the lease document once, as it refuses a document whose partition
    // key field the container does not have (400)
    CosmosContainer container = container("/shipmentId");
    String topic = RelayFixture.newTopic(azure.serviceBus());
    String id = writeShipmentEvent(container, "shp-3", "route-1");
    OutboxRelay relay = relay(container, topic, SessionIdRule.partitionKey());
    cosmos.faults().inject(Operation.CREATE, Fault.status(400).times(1));

    // when a cycle meets it, then the relay is paused and not ready (not running on quietly)
    assertThat(relay.runOnce()).isEqualTo(OutboxRelay.Cycle.FAILED);
    assertThat(relay.status().state()).isEqualTo(WorkerStatus.State.PAUSED);
    assertThat(relay.status().reason())
        .hasValueSatisfying(r -> assertThat(r).contains("relay lease", "400"));

    // and once Cosmos DB takes it, the next cycle publishes and the relay is ready again
    assertThat(relay.runOnce()).isEqualTo(OutboxRelay.Cycle.DRAINED);
    assertThat(relay.status().ready()).isTrue();
    assertThat(
            RelayFixture.receive(
                serviceBus, topic, 1, Duration.ofSeconds(30), Duration.ofMillis(200)))
        .extracting(ServiceBusReceivedMessage::getMessageId)
        .containsExactly(id);
  }

  private static JsonNode readEvent(CosmosContainer container, String id) {
    return container.readItem(id, new PartitionKey("shp-1"), JsonNode.class).getItem();
  }
}
