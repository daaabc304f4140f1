package io.idemworker.relay;

import static io.idemworker.relay.RelayFixture.LEASE;
import static io.idemworker.relay.RelayFixture.freshContainer;
import static io.idemworker.relay.RelayFixture.read;
import static io.idemworker.relay.RelayFixture.receive;
import static io.idemworker.relay.RelayFixture.relay;
import static io.idemworker.relay.RelayFixture.writeEvent;
import static io.idemworker.relay.RelayFixture.writeOrder;
import static org.assertj.core.api.Assertions.assertThat;

import com.azure.cosmos.CosmosContainer;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.idemworker.core.IdempotencyKey;
import io.idemworker.core.IdempotentConsumer;
import io.idemworker.core.IncomingMessage;
import io.idemworker.core.Outcome;
import io.idemworker.core.TestFlow;
import io.idemworker.cosmos.CosmosEffectStore;
import io.idemworker.emulator.cosmos.Fault;
import io.idemworker.emulator.cosmos.Operation;
import io.idemworker.orders.InboxMarkers;
import io.idemworker.orders.OrderDocumentIds;
import io.idemworker.orders.OrderMessageTypes;
import io.idemworker.orders.Orders;
import io.idemworker.servicebus.sending.ProducerStamps;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;

/**
 * The relay on the real SDKs against both emulators: what it sends, a crash between send and
 * checkpoint, restarts from the checkpoint, two replicas, a replica that lost its lease, and the
 * lag alarm.
 */
class OutboxRelayTest extends RelayEmulatorTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private OutboxRelay newRelay(
      CosmosContainer container, String topic, String owner, RelayListener listener) {
    OutboxRelay relay = relay(container, serviceBus, topic, owner, listener, clock);
    relays.add(relay);
    return relay;
  }

  private static String orderId() {
    return "ord-" + UUID.randomUUID().toString().substring(0, 8);
  }

  @Test
  void events_arePublishedWithTheirIdsTypeCorrelationAndTrace_theCheckpointTheirOnlyProgress()
      throws Exception {
    // given an order document and three events as the worker writes them (with their TTL)
    CosmosContainer container = freshContainer(client);
    String topic = RelayFixture.newTopic(azure.serviceBus());
    String orderId = orderId();
    writeOrder(container, orderId);
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      ids.add(writeEvent(container, orderId, clock));
    }
    RelayFixture.Counts counts = new RelayFixture.Counts();
    OutboxRelay relay = newRelay(container, topic, "relay-a", counts);
    assertThat(RelayProgress.read(container, topic, 100).of(read(container, orderId, ids.get(0))))
        .isEqualTo(RelayProgress.State.PENDING);
    cosmos.stats().reset();

    // when one cycle runs
    OutboxRelay.Cycle cycle = relay.runOnce();

    // then each event is on the topic once, in order, with the carried-over properties
    assertThat(cycle).isEqualTo(OutboxRelay.Cycle.DRAINED);
    List<ServiceBusReceivedMessage> received =
        receive(serviceBus, topic, 3, Duration.ofSeconds(30), Duration.ofMillis(500));
    assertThat(received)
        .extracting(ServiceBusReceivedMessage::getMessageId)
        .containsExactlyElementsOf(ids);
    ServiceBusReceivedMessage first = received.get(0);
    assertThat(first.getSubject()).isEqualTo("OrderAccepted");
    assertThat(first.getCorrelationId()).isEqualTo("corr-" + orderId);
    assertThat(first.getContentType()).isEqualTo("application/json");
    assertThat(first.getSessionId()).isEqualTo(orderId);
    assertThat(first.getApplicationProperties())
        .containsEntry("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
        .containsEntry("orderId", orderId)
        .containsEntry(ProducerStamps.ORIGIN, ProducerStamps.RELAY);
    assertThat(JSON.readTree(first.getBody().toString()))
        .isEqualTo(
            JsonNodeFactory.instance.objectNode().put("orderId", orderId).put("total", "12.50"));
    // and no event was written again: the lease's checkpoint alone says they are published
    assertThat(cosmos.stats().count(Operation.PATCH)).isZero();
    RelayProgress progress = RelayProgress.read(container, topic, 100);
    for (String id : ids) {
      JsonNode event = read(container, orderId, id);
      assertThat(event.has("status")).isFalse();
      assertThat(event.get("ttl").asLong()).isEqualTo(Duration.ofDays(7).toSeconds());
      assertThat(progress.of(event)).isEqualTo(RelayProgress.State.PUBLISHED);
    }
    assertThat(counts.published).hasValue(3);
    assertThat(counts.republished).hasValue(0);
    assertThat(relay.lag()).contains(Duration.ZERO);
    assertThat(relay.lagAlarm()).isFalse();
    // and a second cycle finds nothing to send
    assertThat(relay.runOnce()).isEqualTo(OutboxRelay.Cycle.DRAINED);
    assertThat(counts.published).hasValue(3);
  }

  @Test
  void crashBetweenPublishAndCheckpoint_resendsTheSameMessageId_andTheSubscriberSeesOneCopy() {
    // given an event the topic accepted, the checkpoint write after it failing, the relay then gone
    CosmosContainer container = freshContainer(client);
    String topic = RelayFixture.newTopic(azure.serviceBus());
    String orderId = orderId();
    String id = writeEvent(container, orderId, clock);
    RelayFixture.Counts before = new RelayFixture.Counts();
    OutboxRelay crashed =
        relayWhoseCheckpointFailsAfterTheSend(container, topic, "relay-a", before);
    assertThat(crashed.runOnce()).isEqualTo(OutboxRelay.Cycle.FAILED);
    assertThat(before.published).hasValue(1);
    assertThat(RelayProgress.read(container, topic, 100).of(read(container, orderId, id)))
        .isEqualTo(RelayProgress.State.SENDING);

    // when a new replica starts: it stands by while the dead one's lease runs, then takes over
    RelayFixture.Counts after = new RelayFixture.Counts();
    OutboxRelay restarted = newRelay(container, topic, "relay-b", after);
    assertThat(restarted.runOnce()).isEqualTo(OutboxRelay.Cycle.STANDBY);
    clock.advance(LEASE.plusSeconds(1));
    assertThat(restarted.runOnce()).isEqualTo(OutboxRelay.Cycle.DRAINED);

    // then it sent the same MessageId again, counted as a re-publish, and moved the checkpoint
    assertThat(after.published).hasValue(1);
    assertThat(after.republished).hasValue(1);
    assertThat(RelayProgress.read(container, topic, 100).of(read(container, orderId, id)))
        .isEqualTo(RelayProgress.State.PUBLISHED);
    // and the topic's duplicate detection let one copy through
    List<ServiceBusReceivedMessage> received =
        receive(serviceBus, topic, 1, Duration.ofSeconds(30), Duration.ofSeconds(2));
    assertThat(received).extracting(ServiceBusReceivedMessage::getMessageId).containsExactly(id);
  }

  /**
   * A relay whose checkpoint write after a send fails once (503): what a crash between the send and
   * the checkpoint leaves behind.
   */
  private OutboxRelay relayWhoseCheckpointFailsAfterTheSend(
      CosmosContainer container, String topic, String owner, RelayListener listener) {
    EventPublisher sender =
        new ServiceBusEventPublisher(
            serviceBus.sender().topicName(topic).buildClient(),
            () -> "orderId",
            SessionIdRule.partitionKey());
    EventPublisher thenFailTheCheckpoint =
        new EventPublisher() {
          @Override
          public List<Rejected> publish(List<OutboxEvent> events) {
            List<Rejected> rejected = sender.publish(events);
            cosmos.faults().inject(Operation.REPLACE, Fault.status(503).times(1));
            return rejected;
          }

          @Override
          public void close() {
            sender.close();
          }
        };
    RelaySettings settings = RelayFixture.settings(topic, owner);
    OutboxRelay relay =
        new OutboxRelay(
            new CosmosOutbox(container, settings.batchSize()),
            new RelayLease(container, topic, owner, settings.leaseDuration()),
            thenFailTheCheckpoint,
            settings,
            listener,
            clock,
            Executors.newSingleThreadScheduledExecutor());
    relays.add(relay);
    return relay;
  }

  @Test
  void restart_resumesFromTheCheckpoint_neitherSkippingNorResending() throws Exception {
    // given a relay that published three events and stopped (releasing its lease)
    CosmosContainer container = freshContainer(client);
    String topic = RelayFixture.newTopic(azure.serviceBus());
    String orderId = orderId();
    Set<String> ids = new HashSet<>();
    for (int i = 0; i < 3; i++) {
      ids.add(writeEvent(container, orderId, clock));
    }
    OutboxRelay first = newRelay(container, topic, "relay-a", RelayListener.none());
    assertThat(first.runOnce()).isEqualTo(OutboxRelay.Cycle.DRAINED);
    assertThat(first.stop(Duration.ofSeconds(10))).isTrue();
    assertThat(first.status().state().name()).isEqualTo("STOPPED");
    // and more documents written while no relay ran
    String later = orderId();
    writeOrder(container, later);
    ids.add(writeEvent(container, later, clock));
    ids.add(writeEvent(container, later, clock));

    // when another replica starts (no wait: the lease was released)
    RelayFixture.Counts counts = new RelayFixture.Counts();
    OutboxRelay second = newRelay(container, topic, "relay-b", counts);
    OutboxRelay.Cycle cycle = second.runOnce();

    // then it published only the two new events
    assertThat(cycle).isEqualTo(OutboxRelay.Cycle.DRAINED);
    assertThat(second.holdsLease()).isTrue();
    assertThat(counts.published).hasValue(2);
    assertThat(counts.republished).hasValue(0);
    List<ServiceBusReceivedMessage> received =
        receive(serviceBus, topic, 5, Duration.ofSeconds(30), Duration.ofMillis(500));
    assertThat(received)
        .extracting(ServiceBusReceivedMessage::getMessageId)
        .containsExactlyInAnyOrderElementsOf(ids);
  }

  @Test
  void twoReplicasRunning_publishEachEventOnce_fromOneLeaseHolder() throws Exception {
    // given two replicas cycling on their own threads
    CosmosContainer container = freshContainer(client);
    String topic = RelayFixture.newTopic(azure.serviceBus());
    RelayFixture.Counts countsA = new RelayFixture.Counts();
    RelayFixture.Counts countsB = new RelayFixture.Counts();
    OutboxRelay a = newRelay(container, topic, "relay-a", countsA);
    OutboxRelay b = newRelay(container, topic, "relay-b", countsB);
    a.start();
    b.start();

    // when 40 events (and their orders) are written while they run
    Set<String> ids = new HashSet<>();
    for (int i = 0; i < 20; i++) {
      String orderId = orderId();
      writeOrder(container, orderId);
      ids.add(writeEvent(container, orderId, clock));
      ids.add(writeEvent(container, orderId, clock));
    }

    // then every event reaches the subscriber once, sent by one replica, none sent twice
    List<ServiceBusReceivedMessage> received =
        receive(serviceBus, topic, 40, Duration.ofSeconds(60), Duration.ofSeconds(1));
    assertThat(received)
        .extracting(ServiceBusReceivedMessage::getMessageId)
        .containsExactlyInAnyOrderElementsOf(ids);
    OutboxRelay holder = a.holdsLease() ? a : b;
    assertThat(holder.awaitCaughtUp(Duration.ofSeconds(30))).isTrue();
    assertThat(a.holdsLease()).isNotEqualTo(b.holdsLease());
    assertThat(countsA.published.get() + countsB.published.get()).isEqualTo(40);
    assertThat(Math.min(countsA.published.get(), countsB.published.get())).isZero();
    assertThat(countsA.republished.get() + countsB.republished.get()).isZero();
    assertThat(holder.lag()).contains(Duration.ZERO);
    assertThat((a.holdsLease() ? b : a).lag()).isEmpty();
  }

  @Test
  void replicaThatLostItsLease_sendsNothingMore_andTheNewHolderResendsOnlyThePageInFlight() {
    // given a holder whose checkpoint write failed after sending three events, then paused
    CosmosContainer container = freshContainer(client);
    String topic = RelayFixture.newTopic(azure.serviceBus());
    String orderId = orderId();
    Set<String> ids = new HashSet<>();
    for (int i = 0; i < 3; i++) {
      ids.add(writeEvent(container, orderId, clock));
    }
    RelayFixture.Counts countsA = new RelayFixture.Counts();
    OutboxRelay a = relayWhoseCheckpointFailsAfterTheSend(container, topic, "relay-a", countsA);
    assertThat(a.runOnce()).isEqualTo(OutboxRelay.Cycle.FAILED);
    clock.advance(LEASE.plusSeconds(1));

    // when another replica takes over, and then the paused one wakes up with a new event written
    RelayFixture.Counts countsB = new RelayFixture.Counts();
    OutboxRelay b = newRelay(container, topic, "relay-b", countsB);
    assertThat(b.runOnce()).isEqualTo(OutboxRelay.Cycle.DRAINED);
    ids.add(writeEvent(container, orderId, clock));
    OutboxRelay.Cycle zombie = a.runOnce();

    // then the paused replica finds its lease gone and sends nothing
    assertThat(zombie).isEqualTo(OutboxRelay.Cycle.STANDBY);
    assertThat(a.holdsLease()).isFalse();
    assertThat(countsA.published).hasValue(3);
    // and the new holder re-sent exactly the three events in flight, then the new one
    assertThat(b.runOnce()).isEqualTo(OutboxRelay.Cycle.DRAINED);
    assertThat(countsB.published).hasValue(4);
    assertThat(countsB.republished).hasValue(3);
    List<ServiceBusReceivedMessage> received =
        receive(serviceBus, topic, 4, Duration.ofSeconds(30), Duration.ofSeconds(1));
    assertThat(received)
        .extracting(ServiceBusReceivedMessage::getMessageId)
        .containsExactlyInAnyOrderElementsOf(ids);
  }

  @Test
  void lagPastHalfTheEventTtl_raisesTheAlarm_andItClearsOnceDrained() {
    // given an event written long ago while the topic refused everything
    CosmosContainer container = freshContainer(client);
    String topic = "missing-" + UUID.randomUUID().toString().substring(0, 8);
    String orderId = orderId();
    writeEvent(container, orderId, clock);
    OutboxRelay relay = newRelay(container, topic, "relay-a", RelayListener.none());
    assertThat(relay.runOnce()).isEqualTo(OutboxRelay.Cycle.FAILED);
    assertThat(relay.lagAlarm()).isFalse();

    // when more than half the event TTL (7 days) passes without a publish
    clock.advance(Duration.ofDays(3).plusHours(13));
    assertThat(relay.runOnce()).isEqualTo(OutboxRelay.Cycle.FAILED);

    // then the alarm is up, the lag past half the TTL
    assertThat(relay.lag())
        .hasValueSatisfying(l -> assertThat(l).isGreaterThan(Duration.ofDays(3)));
    assertThat(relay.lagAlarm()).isTrue();
  }

  @Test
  void malformedEvent_isMarkedUnpublishable_andTheOthersStillGo() {
    // given a pending outbox document without a payload between two good events
    CosmosContainer container = freshContainer(client);
    String topic = RelayFixture.newTopic(azure.serviceBus());
    String orderId = orderId();
    String good1 = writeEvent(container, orderId, clock);
    container.createItem(
        JsonNodeFactory.instance
            .objectNode()
            .put("id", "bad-event")
            .put("orderId", orderId)
            .put("type", "outbox")
            .put("status", "pending")
            .put("eventType", "OrderAccepted"));
    String good2 = writeEvent(container, orderId, clock);
    RelayFixture.Counts counts = new RelayFixture.Counts();
    OutboxRelay relay = newRelay(container, topic, "relay-a", counts);

    // when a cycle runs
    assertThat(relay.runOnce()).isEqualTo(OutboxRelay.Cycle.DRAINED);

    // then the bad one is marked for a person, counted, and the good ones are published
    JsonNode bad = read(container, orderId, "bad-event");
    assertThat(bad.get("status").asText()).isEqualTo("unpublishable");
    assertThat(bad.get("unpublishableReason").asText()).contains("payload");
    assertThat(counts.failures("unpublishable")).isEqualTo(1);
    assertThat(receive(serviceBus, topic, 2, Duration.ofSeconds(30), Duration.ofMillis(500)))
        .extracting(ServiceBusReceivedMessage::getMessageId)
        .containsExactly(good1, good2);
  }

  @Test
  void anOrderAcceptedByTheWorker_isPublishedUnderTheIdDerivedFromItsMessage_inItsTrace() {
    // given an OrderPlaced processed by the worker's consumer into Cosmos DB
    CosmosContainer container = freshContainer(client);
    String topic = RelayFixture.newTopic(azure.serviceBus());
    IdempotentConsumer consumer =
        TestFlow.of(
                OrderMessageTypes.decoder(
                    true, new InboxMarkers("orders", Optional.of(Duration.ofDays(14)))),
                new CosmosEffectStore(
                    container,
                    (operation, status, charge, latency) -> {},
                    OrderDocumentIds.PARTITION_KEY_PATH))
            .clock(clock)
            .build();
    String orderId = orderId();
    String producerTrace = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    IncomingMessage placed =
        new IncomingMessage(
            Optional.of(orderId),
            Optional.of("corr-7"),
            Optional.of("OrderPlaced"),
            Optional.of("application/json"),
            Map.of("Diagnostic-Id", producerTrace),
            Orders.body(orderId, "cust-7").getBytes(StandardCharsets.UTF_8),
            0);
    assertThat(consumer.handle(placed)).isInstanceOf(Outcome.Processed.class);
    OutboxRelay relay = newRelay(container, topic, "relay-a", RelayListener.none());

    // when the relay runs
    assertThat(relay.runOnce()).isEqualTo(OutboxRelay.Cycle.DRAINED);

    // then the subscriber gets OrderAccepted with the derived id, once
    List<ServiceBusReceivedMessage> received =
        receive(serviceBus, topic, 1, Duration.ofSeconds(30), Duration.ofMillis(500));
    assertThat(received).hasSize(1);
    assertThat(received.get(0).getMessageId())
        .isEqualTo(OrderDocumentIds.outboxEvent(new IdempotencyKey(orderId)));
    assertThat(received.get(0).getSubject()).isEqualTo("OrderAccepted");
    assertThat(received.get(0).getCorrelationId()).isEqualTo("corr-7");
    assertThat(received.get(0).getApplicationProperties())
        .containsEntry("traceparent", producerTrace);
  }
}
