package io.idemworker.azure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosException;
import com.azure.cosmos.models.PartitionKey;
import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.core.DeadLetterReason;
import io.idemworker.core.DeliveryObserver;
import io.idemworker.core.DocumentPatch;
import io.idemworker.core.IncomingMessage;
import io.idemworker.core.MessageDecoder;
import io.idemworker.core.Outcome;
import io.idemworker.cosmos.CosmosContainers;
import io.idemworker.emulator.junit.AzureEmulators;
import io.idemworker.emulator.junit.Emulators;
import io.idemworker.servicebus.ServiceBusConnection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Registering {@link MessageType}s on {@link IdempotentWorker.Builder}: what a registration must
 * say (refused at once, or by {@code build()}, naming the subject and what is missing), and that a
 * running worker routes each delivery by its {@code Subject} to its type, through the real SDKs
 * against the emulators.
 */
@AzureEmulators
class MessageTypeRegistrationTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final String DATABASE = "library";

  Emulators azure;
  private CosmosClient cosmos;
  private CosmosContainer things;
  private String queue;
  private ServiceBusSenderClient sender;
  private IdempotentWorker worker;
  private final BlockingQueue<Outcome> outcomes = new LinkedBlockingQueue<>();

  record Thing(String thingId, String name) {}

  record Renamed(String thingId, String name, long version) {}

  record Note(String noteId, String thingId, String text) {}

  @BeforeEach
  void connect() {
    cosmos = AzureTestClients.cosmos(azure);
    things =
        CosmosContainers.ensureExists(cosmos, DATABASE, azure.uniqueName("things"), "/thingId");
    queue = azure.newQueue("things");
    sender =
        new ServiceBusClientBuilder()
            .connectionString(azure.serviceBusConnectionString())
            .sender()
            .queueName(queue)
            .buildClient();
  }

  @AfterEach
  void close() {
    if (worker != null) {
      worker.close();
    }
    sender.close();
    cosmos.close();
  }

  private static MessageType<Thing> created() {
    return MessageType.of("ThingCreated", Thing.class)
        .fields(f -> f.id("thingId").text("name", 1, 64))
        .entity(Thing::thingId)
        .key("thingId", Thing::thingId)
        .creates(
            t -> {
              ObjectNode document = JSON.createObjectNode().put("name", t.name());
              document.set("notes", JSON.createArrayNode());
              return document;
            });
  }

  private static MessageType<Note> noted() {
    return MessageType.of("ThingNoted", Note.class)
        .fields(f -> f.id("noteId").id("thingId").text("text", 1, 200))
        .entity(Note::thingId)
        .key("noteId", Note::noteId)
        .changesOnce(
            n ->
                List.of(
                    new DocumentPatch.AppendToArray(
                        "notes", JSON.getNodeFactory().textNode(n.text()))));
  }

  private static MessageType<Renamed> renamed() {
    return MessageType.of("ThingRenamed", Renamed.class)
        .fields(f -> f.id("thingId").text("name", 1, 64).integer("version", 1, 1_000_000))
        .entity(Renamed::thingId)
        .versioned(
            "version",
            Renamed::version,
            r -> Map.<String, JsonNode>of("name", JSON.getNodeFactory().textNode(r.name())));
  }

  private IdempotentWorker.Builder builder() {
    return IdempotentWorker.builder()
        .connection(new ServiceBusConnection.ConnectionString(azure.serviceBusConnectionString()))
        .queue(queue)
        .container(things)
        .observer(recorder());
  }

  private DeliveryObserver recorder() {
    return new DeliveryObserver() {
      @Override
      public Observation start(IncomingMessage message) {
        return (outcome, elapsed, settled) -> outcomes.add(outcome);
      }
    };
  }

  @Test
  void aSubjectRegisteredTwice_isRefusedAtOnce_whicheverWayItIsRegistered() {
    IdempotentWorker.Builder builder = builder().register(created());
    MessageDecoder own =
        message ->
            new MessageDecoder.Invalid(DeadLetterReason.SCHEMA_VIOLATION, "x", Optional.empty());

    assertThatThrownBy(() -> builder.register(created()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("subject ThingCreated is registered already");
    assertThatThrownBy(() -> builder.register("ThingCreated", own))
        .hasMessage("subject ThingCreated is registered already");
    builder.register("ThingDeleted", own);
    assertThatThrownBy(() -> builder.register(MessageType.of("ThingDeleted", Thing.class)))
        .hasMessage("subject ThingDeleted is registered already");
  }

  @Test
  void aSubjectOutsideTheAlphabet_isRefusedAtOnce() {
    assertThatThrownBy(() -> MessageType.of("Thing Created", Thing.class))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("subject must be 1-64 letters, digits or _.-, was Thing Created");
    assertThatThrownBy(() -> created().emits("Thing/Registered", t -> JSON.createObjectNode()))
        .hasMessage("eventType must be 1-64 letters, digits or _.-, was Thing/Registered");
  }

  @Test
  void aTypeWithTwoProtections_isRefusedAtOnce() {
    assertThatThrownBy(() -> created().creates(t -> JSON.createObjectNode()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("ThingCreated has a protection already");
  }

  @Test
  void anIncompleteType_isRefusedByBuild_namingTheSubjectAndWhatItLacks() {
    MessageType<Thing> noEntity =
        MessageType.of("ThingCreated", Thing.class)
            .creates(t -> JSON.createObjectNode().put("name", t.name()));
    MessageType<Thing> noProtection =
        MessageType.of("ThingCreated", Thing.class).entity(Thing::thingId);
    MessageType<Renamed> versionedWithEvents =
        renamed().emits("ThingRenamedEvent", r -> JSON.createObjectNode());

    assertThatThrownBy(() -> builder().register(noEntity).build())
        .isExactlyInstanceOf(IllegalStateException.class)
        .hasMessage("ThingCreated needs entity(...): the entity it changes");
    assertThatThrownBy(() -> builder().register(noProtection).build())
        .hasMessage("ThingCreated needs a protection: creates, changesOnce or versioned");
    assertThatThrownBy(() -> builder().register(versionedWithEvents).build())
        .hasMessage("ThingRenamed: a versioned change cannot emit events (its write is a patch)");
  }

  @Test
  void eachDelivery_goesToTheTypeItsSubjectNames_andOthersAreDeadLettered() {
    worker = builder().register(created()).register(renamed()).build();
    worker.start();
    String id = azure.uniqueName("thing");

    send("ThingCreated", id, JSON.createObjectNode().put("thingId", id).put("name", "first"));
    assertThat(next()).isInstanceOf(Outcome.Processed.class);
    send("ThingCreated", id, JSON.createObjectNode().put("thingId", id).put("name", "first"));
    assertThat(next()).isInstanceOf(Outcome.Duplicate.class);
    send(
        "ThingRenamed",
        id + ":v2",
        JSON.createObjectNode().put("thingId", id).put("name", "second").put("version", 2));
    assertThat(next()).isInstanceOf(Outcome.Processed.class);
    send("ThingDeleted", id + ":gone", JSON.createObjectNode().put("thingId", id));

    assertThat(next())
        .isInstanceOfSatisfying(
            Outcome.DeadLettered.class,
            d -> {
              assertThat(d.reason()).isEqualTo(DeadLetterReason.UNSUPPORTED_MESSAGE);
              assertThat(d.description()).contains("ThingCreated, ThingRenamed");
            });
    ObjectNode stored = read(id);
    assertThat(stored.get("name").asText()).isEqualTo("second");
    assertThat(stored.get("version").asLong()).isEqualTo(2);
    assertThat(stored.get("thingId").asText()).isEqualTo(id);
  }

  @Test
  void aTypesRules_areItsOwn_aBreachIsDeadLetteredNamingTheField() {
    worker = builder().register(created()).build();
    worker.start();
    String id = azure.uniqueName("thing");

    send("ThingCreated", id, JSON.createObjectNode().put("thingId", id).put("name", ""));
    Outcome schema = next();
    send(
        "ThingCreated", "another-key", JSON.createObjectNode().put("thingId", id).put("name", "x"));
    Outcome mismatch = next();

    assertThat(schema)
        .isInstanceOfSatisfying(
            Outcome.DeadLettered.class,
            d -> {
              assertThat(d.reason()).isEqualTo(DeadLetterReason.SCHEMA_VIOLATION);
              assertThat(d.description()).contains("name");
            });
    assertThat(mismatch)
        .isInstanceOfSatisfying(
            Outcome.DeadLettered.class,
            d -> {
              assertThat(d.reason()).isEqualTo(DeadLetterReason.MESSAGE_ID_MISMATCH);
              assertThat(d.description()).contains("thingId");
            });
    assertThat(exists(id)).as("no document from a refused message").isFalse();
  }

  @Test
  void aNoteAppliesOnce_behindAMarkerNamedByTheQueue_byDefault() {
    worker = builder().register(created()).register(noted()).build();
    worker.start();
    String id = azure.uniqueName("thing");
    String noteId = id + ":n1";

    send("ThingCreated", id, JSON.createObjectNode().put("thingId", id).put("name", "first"));
    assertThat(next()).isInstanceOf(Outcome.Processed.class);
    ObjectNode note =
        JSON.createObjectNode().put("noteId", noteId).put("thingId", id).put("text", "fragile");
    send("ThingNoted", noteId, note);
    assertThat(next()).isInstanceOf(Outcome.Processed.class);
    send("ThingNoted", noteId, note);
    assertThat(next()).isInstanceOf(Outcome.Duplicate.class);

    assertThat(read(id).get("notes")).containsExactly(JSON.getNodeFactory().textNode("fragile"));
    assertThat(exists("inbox:" + queue + ":" + noteId, id)).isTrue();
  }

  @Test
  void aConsumerNameOfItsOwn_namesTheMarkers() {
    worker = builder().consumerName("billing").register(created()).register(noted()).build();
    worker.start();
    String id = azure.uniqueName("thing");
    String noteId = id + ":n1";

    send("ThingCreated", id, JSON.createObjectNode().put("thingId", id).put("name", "first"));
    assertThat(next()).isInstanceOf(Outcome.Processed.class);
    send(
        "ThingNoted",
        noteId,
        JSON.createObjectNode().put("noteId", noteId).put("thingId", id).put("text", "fragile"));
    assertThat(next()).isInstanceOf(Outcome.Processed.class);

    assertThat(exists("inbox:billing:" + noteId, id)).isTrue();
    assertThat(exists("inbox:" + queue + ":" + noteId, id)).isFalse();
  }

  private void send(String subject, String messageId, ObjectNode body) {
    sender.sendMessage(
        new ServiceBusMessage(body.toString())
            .setMessageId(messageId)
            .setSubject(subject)
            .setContentType("application/json"));
  }

  private Outcome next() {
    try {
      Outcome outcome = outcomes.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
      assertThat(outcome).as("an outcome within %s", WAIT).isNotNull();
      return outcome;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  private ObjectNode read(String id) {
    return read(id, id);
  }

  private ObjectNode read(String id, String partition) {
    return things.readItem(id, new PartitionKey(partition), ObjectNode.class).getItem();
  }

  private boolean exists(String id) {
    return exists(id, id);
  }

  private boolean exists(String id, String partition) {
    try {
      read(id, partition);
      return true;
    } catch (CosmosException e) {
      if (e.getStatusCode() == 404) {
        return false;
      }
      throw e;
    }
  }
}
