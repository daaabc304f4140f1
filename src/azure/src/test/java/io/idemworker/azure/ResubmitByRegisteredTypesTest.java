package io.idemworker.azure;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusReceiverClient;
import com.azure.messaging.servicebus.models.SubQueue;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.idemworker.core.DocumentPatch;
import io.idemworker.emulator.junit.AzureEmulators;
import io.idemworker.emulator.junit.Emulators;
import io.idemworker.servicebus.ServiceBusConnection;
import io.idemworker.servicebus.deadletter.DeadLetterResubmitter;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The registered types tell the dead-letter tools which subjects an expiring inbox marker protects
 * ({@link MessageType#markerHorizon}), through the real SDK against the emulator: an old copy of a
 * marker-protected type is refused, a create goes back.
 */
@AzureEmulators
class ResubmitByRegisteredTypesTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration WAIT = Duration.ofSeconds(3);

  // Each run asks for as many messages as the test dead-lettered, so that it ends when it has them
  // instead of waiting out WAIT for more that cannot come; what is left in the dead-letter queue
  // afterwards is read back, so a message too many would still be seen.

  Emulators azure;

  record Thing(String thingId, String name) {}

  record Note(String noteId, String thingId, String text) {}

  record Renamed(String thingId, String name, long version) {}

  private static MessageType<Thing> created() {
    return MessageType.of("ThingCreated", Thing.class)
        .entity(Thing::thingId)
        .creates(t -> JSON.createObjectNode().put("name", t.name()));
  }

  private static MessageType<Note> noted() {
    return MessageType.of("ThingNoted", Note.class)
        .entity(Note::thingId)
        .changesOnce(
            n ->
                List.of(
                    new DocumentPatch.AppendToArray(
                        "notes", JSON.getNodeFactory().textNode(n.text()))));
  }

  private static MessageType<Renamed> renamed() {
    return MessageType.of("ThingRenamed", Renamed.class)
        .entity(Renamed::thingId)
        .versioned(
            "version",
            Renamed::version,
            r -> Map.<String, JsonNode>of("name", JSON.getNodeFactory().textNode(r.name())));
  }

  @Test
  void onlyChangesOnce_isProtectedByAMarker() {
    assertThat(noted().protectedByMarker()).isTrue();
    assertThat(created().protectedByMarker()).isFalse();
    assertThat(renamed().protectedByMarker()).isFalse();
    assertThat(MessageType.of("ThingLost", Thing.class).protectedByMarker())
        .as("no protection yet")
        .isFalse();
  }

  @Test
  void anOldCopyOfAMarkedType_isRefused_whileACreateGoesBack() {
    String queue = azure.newQueue("resubmit");
    deadLetter(queue, "ThingCreated", "thing-1");
    deadLetter(queue, "ThingNoted", "note-1");
    deadLetter(queue, "ThingRenamed", "thing-1:v2");
    // Two days on, against markers that live one.
    Clock later = Clock.offset(Clock.systemUTC(), Duration.ofDays(2));

    List<DeadLetterResubmitter.Entry> entries =
        new DeadLetterResubmitter(
                connection(),
                queue,
                MessageType.markerHorizon(
                    List.of(created(), noted(), renamed()),
                    Optional.of(Duration.ofDays(1)),
                    later,
                    false))
            .resubmit(Set.of(), 3, false, WAIT);

    assertThat(entries).hasSize(3);
    assertThat(entries)
        .filteredOn(DeadLetterResubmitter.Entry::resubmitted)
        .extracting(DeadLetterResubmitter.Entry::messageId)
        .containsExactlyInAnyOrder("thing-1", "thing-1:v2");
    assertThat(entries)
        .filteredOn(e -> e.messageId().equals("note-1"))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.resubmitted()).isFalse();
              assertThat(e.refusal())
                  .hasValueSatisfying(
                      r -> assertThat(r).contains("older than the inbox marker TTL PT24H"));
            });
    assertThat(subjectsIn(queue)).containsExactlyInAnyOrder("ThingCreated", "ThingRenamed");
    assertThat(deadLetteredIds(queue))
        .as("the refused copy, back in the queue")
        .containsExactly("note-1");
  }

  @Test
  void markersThatNeverExpire_refuseNothing() {
    String queue = azure.newQueue("resubmit");
    deadLetter(queue, "ThingNoted", "note-2");

    List<DeadLetterResubmitter.Entry> entries =
        new DeadLetterResubmitter(
                connection(),
                queue,
                MessageType.markerHorizon(
                    List.of(noted()),
                    Optional.empty(),
                    Clock.offset(Clock.systemUTC(), Duration.ofDays(3650)),
                    false))
            .resubmit(Set.of(), 1, false, WAIT);

    assertThat(entries).singleElement().satisfies(e -> assertThat(e.resubmitted()).isTrue());
    assertThat(subjectsIn(queue)).containsExactly("ThingNoted");
    assertThat(deadLetteredIds(queue)).isEmpty();
  }

  private ServiceBusConnection connection() {
    return new ServiceBusConnection.ConnectionString(azure.serviceBusConnectionString());
  }

  private ServiceBusClientBuilder bus() {
    return new ServiceBusClientBuilder().connectionString(azure.serviceBusConnectionString());
  }

  /** Sends a message and dead-letters it at once, as a worker that gave up on it would. */
  private void deadLetter(String queue, String subject, String messageId) {
    AzureTestClients.sendAndDeadLetter(
        azure,
        queue,
        new ServiceBusMessage("{}")
            .setMessageId(messageId)
            .setSubject(subject)
            .setContentType("application/json"),
        "test");
  }

  private List<String> deadLetteredIds(String queue) {
    try (ServiceBusReceiverClient receiver =
        bus().receiver().queueName(queue).subQueue(SubQueue.DEAD_LETTER_QUEUE).buildClient()) {
      List<String> ids = new ArrayList<>();
      receiver.peekMessages(10).forEach(m -> ids.add(m.getMessageId()));
      return ids;
    }
  }

  private List<String> subjectsIn(String queue) {
    try (ServiceBusReceiverClient receiver = bus().receiver().queueName(queue).buildClient()) {
      List<String> subjects = new ArrayList<>();
      receiver.peekMessages(10).forEach(m -> subjects.add(m.getSubject()));
      return subjects;
    }
  }
}
