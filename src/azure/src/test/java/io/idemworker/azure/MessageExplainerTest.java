package io.idemworker.azure;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosContainer;
import com.azure.messaging.servicebus.ServiceBusMessage;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.idemworker.core.DocumentPatch;
import io.idemworker.core.IdempotentConsumer;
import io.idemworker.core.IncomingMessage;
import io.idemworker.core.KeyStrategies;
import io.idemworker.core.MessageDecoder;
import io.idemworker.core.Outcome;
import io.idemworker.core.SubjectRouter;
import io.idemworker.cosmos.CosmosContainers;
import io.idemworker.cosmos.CosmosEffectStore;
import io.idemworker.cosmos.StoreCallListener;
import io.idemworker.emulator.junit.AzureEmulators;
import io.idemworker.emulator.junit.Emulators;
import io.idemworker.relay.RelayProgress;
import io.idemworker.servicebus.ServiceBusConnection;
import io.idemworker.servicebus.deadletter.DeadLetterReader;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link MessageExplainer} on a domain of its own (shipments keyed by {@code /shipmentId}), through
 * the real SDKs against the emulators: documents written by the library's own flow for registered
 * types, a copy dead-lettered by a real receiver.
 */
@AzureEmulators
class MessageExplainerTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern DELIVERY_ID = Pattern.compile("(.+):delivery:(\\d+)");

  Emulators azure;
  private CosmosClient cosmos;
  private CosmosContainer shipments;
  private String queue;
  private String shipmentId;
  private String scanId;
  private String lateScanId;

  record Shipment(String shipmentId, String origin) {}

  /** A scan names its shipment in a field that is not the partition key's name. */
  record Scan(String scanId, String shipment, String place) {}

  private static MessageType<Shipment> created() {
    return MessageType.of("ShipmentCreated", Shipment.class)
        .entity(Shipment::shipmentId)
        .key("shipmentId", Shipment::shipmentId)
        .creates(
            s ->
                JSON.createObjectNode()
                    .put("origin", s.origin())
                    .set("scans", JSON.createArrayNode()));
  }

  private static MessageType<Scan> scanned() {
    return MessageType.of("ShipmentScanned", Scan.class)
        .entity(Scan::shipment)
        .key("scanId", Scan::scanId)
        .changesOnce(
            s ->
                List.of(
                    new DocumentPatch.AppendToArray(
                        "scans", JSON.getNodeFactory().textNode(s.place()))))
        .emits("ScanRecorded", s -> JSON.createObjectNode().put("scanId", s.scanId()));
  }

  @BeforeEach
  void createAShipmentAndAScan_andDeadLetterALateScan() {
    cosmos = AzureTestClients.cosmos(azure);
    shipments =
        CosmosContainers.ensureExists(
            cosmos, "library", azure.uniqueName("shipments"), "/shipmentId");
    queue = azure.newQueue("shipments");
    String unique = UUID.randomUUID().toString().substring(0, 8);
    shipmentId = "shp-" + unique;
    scanId = "scan-" + unique;
    lateScanId = "scan-late-" + unique;

    MessageType.Documents documents =
        new MessageType.Documents("shipmentId", "shipments", Optional.of(86_400L), 86_400L);
    Map<String, MessageDecoder> bySubject = new LinkedHashMap<>();
    bySubject.put("ShipmentCreated", created().decoder(documents));
    bySubject.put("ShipmentScanned", scanned().decoder(documents));
    IdempotentConsumer flow =
        new IdempotentConsumer(
            KeyStrategies.messageId(),
            new SubjectRouter(bySubject),
            new CosmosEffectStore(shipments, StoreCallListener.none(), "/shipmentId"),
            Clock.systemUTC(),
            256 * 1024);
    assertThat(
            flow.handle(
                message(
                    shipmentId,
                    "ShipmentCreated",
                    "{\"shipmentId\":\"" + shipmentId + "\",\"origin\":\"Lyon\"}")))
        .isInstanceOf(Outcome.Processed.class);
    assertThat(flow.handle(message(scanId, "ShipmentScanned", scanBody(scanId, "Paris"))))
        .isInstanceOf(Outcome.Processed.class);
    deadLetter(lateScanId, "ShipmentScanned", scanBody(lateScanId, "Brest"));
  }

  @AfterEach
  void close() {
    cosmos.close();
  }

  private String scanBody(String id, String place) {
    return "{\"scanId\":\""
        + id
        + "\",\"shipment\":\""
        + shipmentId
        + "\",\"place\":\""
        + place
        + "\"}";
  }

  private static IncomingMessage message(String messageId, String subject, String body) {
    return new IncomingMessage(
        Optional.of(messageId),
        Optional.empty(),
        Optional.of(subject),
        Optional.of("application/json"),
        Map.of(),
        body.getBytes(StandardCharsets.UTF_8),
        0);
  }

  private MessageExplainer.Builder explainer() {
    return MessageExplainer.builder()
        .container(shipments)
        .deadLetters(
            new DeadLetterReader(
                new ServiceBusConnection.ConnectionString(azure.serviceBusConnectionString())),
            List.of(new DeadLetterReader.Queue(queue)),
            100)
        .relayTopic("shipment-events");
  }

  private MessageExplainer registered() {
    return explainer().register(created()).register(scanned()).build();
  }

  @Test
  void aScansMessageId_findsItsMarkerTheShipmentItsEvent_andTheDeadLetteredCopy() {
    MessageExplanation found = registered().explain(scanId, Optional.empty());

    assertThat(found.found()).isTrue();
    assertThat(found.partitionKeyPath()).isEqualTo("/shipmentId");
    assertThat(found.entityId()).isEqualTo(shipmentId);
    assertThat(found.resolution())
        .isInstanceOfSatisfying(
            MessageExplanation.ByLookup.class, r -> assertThat(r.requestCharge()).isPositive());
    assertThat(found.lookup())
        .hasValueSatisfying(l -> assertThat(l.entityIds()).containsExactly(shipmentId));
    assertThat(found.markers())
        .singleElement()
        .satisfies(
            m -> {
              assertThat(m.path("id").asText()).isEqualTo("inbox:shipments:" + scanId);
              assertThat(m.path("messageType").asText()).isEqualTo("ShipmentScanned");
              assertThat(found.matches(m)).isTrue();
            });
    assertThat(found.entities())
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.path("id").asText()).isEqualTo(shipmentId);
              assertThat(s.path("scans").toString()).isEqualTo("[\"Paris\"]");
              assertThat(found.matches(s)).as("written by the create, not this scan").isFalse();
            });
    assertThat(found.events())
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.path("eventType").asText()).isEqualTo("ScanRecorded");
              assertThat(found.matches(e)).isTrue();
              assertThat(found.relayState(e))
                  .as("no relay has taken a lease yet")
                  .isEqualTo(RelayProgress.State.PENDING);
            });
    assertThat(found.requestRecords()).isEmpty();
    assertThat(found.deadLetters())
        .as("another message for the same shipment, placed by its registered type")
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.messageId()).contains(lateScanId);
              assertThat(d.reason()).isEqualTo("TargetMissing");
            });
    assertThat(found.queues())
        .singleElement()
        .satisfies(
            q -> {
              assertThat(q.read()).isEqualTo(1);
              assertThat(q.truncated()).isFalse();
              assertThat(q.failure()).isEmpty();
            });
    assertThat(found.problems()).isEmpty();
  }

  @Test
  void aDeadLetteredMessageId_isPlacedByTheTypeRegisteredForItsSubject() {
    MessageExplanation placed = registered().explain(lateScanId, Optional.empty());
    MessageExplanation unregistered = explainer().build().explain(lateScanId, Optional.empty());

    assertThat(placed.resolution())
        .isInstanceOfSatisfying(
            MessageExplanation.FromDeadLetter.class,
            r -> assertThat(r.source()).isEqualTo(new DeadLetterReader.Queue(queue)));
    assertThat(placed.entityId()).isEqualTo(shipmentId);
    assertThat(placed.entities()).hasSize(1);
    assertThat(placed.lookup()).as("placed without the cross-partition query").isEmpty();
    assertThat(placed.deadLetters())
        .singleElement()
        .satisfies(d -> assertThat(d.messageId()).contains(lateScanId));
    // Without the type, the body has no field named like the partition key: the copy is found by
    // its MessageId, but nothing places it.
    assertThat(unregistered.resolution()).isInstanceOf(MessageExplanation.IdItself.class);
    assertThat(unregistered.entityId()).isEqualTo(lateScanId);
    assertThat(unregistered.documents()).isEmpty();
    assertThat(unregistered.deadLetters())
        .singleElement()
        .satisfies(d -> assertThat(d.messageId()).contains(lateScanId));
  }

  @Test
  void anUnknownId_findsNothing_andSaysWhatItAskedAndWhatItCost() {
    String unknown = "nowhere-" + UUID.randomUUID();

    MessageExplanation found = registered().explain(unknown, Optional.empty());

    assertThat(found.found()).isFalse();
    assertThat(found.documents()).isEmpty();
    assertThat(found.deadLetters()).isEmpty();
    assertThat(found.resolution()).isInstanceOf(MessageExplanation.IdItself.class);
    assertThat(found.entityId()).isEqualTo(unknown);
    assertThat(found.lookup())
        .hasValueSatisfying(
            l -> {
              assertThat(l.query())
                  .isEqualTo(
                      "SELECT DISTINCT VALUE c.shipmentId FROM c"
                          + " WHERE c.key = @id OR c.messageId = @id");
              assertThat(l.entityIds()).isEmpty();
              assertThat(l.requestCharge()).isPositive();
            });
    assertThat(found.queues()).singleElement().satisfies(q -> assertThat(q.read()).isEqualTo(1));
    assertThat(found.problems())
        .singleElement()
        .satisfies(
            p ->
                assertThat(p)
                    .matches(
                        "a cross-partition query for documents keyed by "
                            + unknown
                            + " found none \\(\\d+\\.\\d\\d RU\\)"));
  }

  @Test
  void anApplicationsResolver_placesItsOwnIdShape_beforeTheIdItself() {
    MessageExplanation found =
        explainer()
            .register(created())
            .resolver(
                "delivery id",
                id -> {
                  Matcher m = DELIVERY_ID.matcher(id);
                  return m.matches() ? Optional.of(m.group(1)) : Optional.empty();
                })
            .build()
            .explain(shipmentId + ":delivery:3", Optional.empty());

    assertThat(found.resolution()).isEqualTo(new MessageExplanation.ByResolver("delivery id"));
    assertThat(found.entityId()).isEqualTo(shipmentId);
    assertThat(found.entities())
        .singleElement()
        .satisfies(s -> assertThat(s.path("origin").asText()).isEqualTo("Lyon"));
    assertThat(found.lookup()).isEmpty();
  }

  @Test
  void aGivenEntity_isReadAsItIs() {
    MessageExplanation found = registered().explain(scanId, Optional.of(shipmentId));

    assertThat(found.resolution()).isInstanceOf(MessageExplanation.Given.class);
    assertThat(found.documents()).hasSize(3);
    assertThat(found.lookup()).isEmpty();
  }

  @Test
  void deadLetterQueuesReadInPartOrNotAtAll_areProblems_notFailures() {
    deadLetter("scan-later-" + shipmentId, "ShipmentScanned", scanBody("scan-later", "Nantes"));
    DeadLetterReader.Queue missing = new DeadLetterReader.Queue(azure.uniqueName("missing"));

    MessageExplanation found =
        explainer()
            .register(scanned())
            .deadLetters(
                new DeadLetterReader(
                    new ServiceBusConnection.ConnectionString(azure.serviceBusConnectionString())),
                List.of(new DeadLetterReader.Queue(queue), missing),
                1)
            .build()
            .explain(shipmentId, Optional.empty());

    assertThat(found.resolution()).isInstanceOf(MessageExplanation.IdItself.class);
    assertThat(found.documents()).hasSize(3);
    assertThat(found.deadLetters())
        .as("the first copy only: the peek stopped there")
        .singleElement()
        .satisfies(d -> assertThat(d.messageId()).contains(lateScanId));
    assertThat(found.queues()).hasSize(2);
    assertThat(found.queues().get(0).truncated()).isTrue();
    assertThat(found.queues().get(1).failure()).isPresent();
    assertThat(found.problems())
        .containsExactly(
            queue + "/$deadletterqueue: only the first 1 messages were read",
            missing.name()
                + "/$deadletterqueue not read: "
                + found.queues().get(1).failure().get());
  }

  /** Sends a message and dead-letters it at once, as a worker that gave up on it would. */
  private void deadLetter(String messageId, String subject, String body) {
    AzureTestClients.sendAndDeadLetter(
        azure,
        queue,
        new ServiceBusMessage(body)
            .setMessageId(messageId)
            .setSubject(subject)
            .setContentType("application/json"),
        "the shipment was not there yet");
  }
}
