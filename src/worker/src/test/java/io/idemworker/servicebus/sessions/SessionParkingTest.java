package io.idemworker.servicebus.sessions;

import static io.idemworker.testing.RecordingObserver.is;
import static org.assertj.core.api.Assertions.assertThat;

import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.models.PartitionKey;
import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusReceiverClient;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import com.azure.messaging.servicebus.ServiceBusSessionReceiverClient;
import com.azure.messaging.servicebus.models.DeadLetterOptions;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.core.DocumentPatch;
import io.idemworker.core.EffectStore;
import io.idemworker.core.ForwardingEffectStore;
import io.idemworker.core.IncomingMessage;
import io.idemworker.core.MessageDecoder;
import io.idemworker.core.Outcome;
import io.idemworker.core.StoreFailure;
import io.idemworker.core.TestFlow;
import io.idemworker.core.WriteSet;
import io.idemworker.cosmos.CosmosEffectStore;
import io.idemworker.emulator.junit.AzureEmulators;
import io.idemworker.emulator.junit.Emulators;
import io.idemworker.orders.InboxMarkers;
import io.idemworker.orders.OrderDocumentIds;
import io.idemworker.orders.OrderMessageTypes;
import io.idemworker.orders.Orders;
import io.idemworker.servicebus.ProcessorSettings;
import io.idemworker.servicebus.ServiceBusConnection;
import io.idemworker.testing.EmulatorClients;
import io.idemworker.testing.RecordingObserver;
import io.idemworker.testing.RecordingObserver.Finished;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Sequenced parking end to end: a dead-lettered message parks the rest of its order until an
 * operator releases or discards it, through the real SDK against the emulators.
 */
@AzureEmulators
class SessionParkingTest {
  static Emulators azure; // injected by @AzureEmulators
  private static final Duration WAIT = Duration.ofSeconds(60);

  private final CosmosContainer container = EmulatorClients.orders(azure);
  private final List<SessionWorker> workers = new ArrayList<>();
  private final RecordingObserver observer = new RecordingObserver();
  private final ParkingEvents events = new ParkingEvents();
  private final MessageDecoder decoder =
      OrderMessageTypes.decoder(true, new InboxMarkers("orders", Optional.of(Duration.ofDays(14))));
  private final String orderId = "ord-" + UUID.randomUUID().toString().substring(0, 13);
  private final String poison = "cr-" + UUID.randomUUID().toString().substring(0, 8);
  private final AtomicBoolean rejectedOnce = new AtomicBoolean();
  private String queue;
  private ServiceBusSenderClient sender;
  private ParkedSessions operator;

  @BeforeEach
  void createQueue() {
    queue = azure.newQueue("q", "sessions maxDeliveryCount=10");
    sender = EmulatorClients.sender(azure, queue);
    operator =
        new ParkedSessions(
            new ServiceBusConnection.ConnectionString(azure.serviceBus().connectionString()),
            queue);
  }

  @AfterEach
  void stopEverything() {
    workers.forEach(worker -> worker.shutdown(Duration.ofSeconds(5)));
    operator.close();
    sender.close();
  }

  /** Counts parkings and releases so a test can wait for them with a bound. */
  static final class ParkingEvents extends SessionEvents {
    final Semaphore parkedBehind = new Semaphore(0);

    @Override
    void parkedBehind(String sessionId, String messageId) {
      super.parkedBehind(sessionId, messageId);
      parkedBehind.release();
    }
  }

  /** The store refuses the poison credit's first write for good, as a 400 would. */
  private EffectStore store() {
    CosmosEffectStore cosmos =
        new CosmosEffectStore(
            container, (op, status, charge, l) -> {}, OrderDocumentIds.PARTITION_KEY_PATH);
    return new ForwardingEffectStore(cosmos) {
      @Override
      public WriteResult apply(WriteSet writeSet) {
        if (writeSet.toString().contains(poison) && rejectedOnce.compareAndSet(false, true)) {
          return new Failed(
              new StoreFailure(StoreFailure.Kind.PERMANENT, 400, "refused by the test"));
        }
        return super.apply(writeSet);
      }

      @Override
      public UpdateResult update(String partitionKey, DocumentPatch patch) {
        if (patch.toString().contains(poison) && rejectedOnce.compareAndSet(false, true)) {
          return new Failed(
              new StoreFailure(StoreFailure.Kind.PERMANENT, 400, "refused by the test"));
        }
        return super.update(partitionKey, patch);
      }
    };
  }

  private SessionWorker startWorker(SessionSettings sessions) {
    EffectStore store = store();
    SessionWorker worker =
        new SessionWorker(
            new ServiceBusConnection.ConnectionString(azure.serviceBus().connectionString()),
            ProcessorSettings.defaults(queue).withMaxRetryBackoff(Duration.ofMillis(50)),
            sessions,
            TestFlow.of(decoder, store).build(),
            decoder,
            store,
            new CosmosEffectStore(
                container, (op, status, charge, l) -> {}, OrderDocumentIds.PARTITION_KEY_PATH),
            observer,
            events,
            Clock.systemUTC());
    workers.add(worker);
    worker.start();
    return worker;
  }

  private void send(IncomingMessage message) {
    send(message, orderId);
  }

  private void send(IncomingMessage message, String sessionId) {
    ServiceBusMessage out = new ServiceBusMessage(message.body());
    out.setMessageId(message.messageId().orElseThrow());
    out.setSubject(message.subject().orElseThrow());
    out.setContentType("application/json");
    out.setSessionId(sessionId);
    sender.sendMessage(out);
  }

  /** Order placed, status 1, the poison credit, then status 2, a good credit and status 3. */
  private void sendSequenceWithPoisonInTheMiddle() {
    send(Orders.typed("OrderPlaced", orderId, Orders.body(orderId, "cust-42"), 0));
    send(Orders.status(orderId, "Confirmed", 1));
    send(Orders.credit(orderId, poison, "1.5", "EUR"));
    send(Orders.status(orderId, "Packed", 2));
    send(Orders.credit(orderId, "cr-good-" + orderId, "2", "EUR"));
    send(Orders.status(orderId, "Shipped", 3));
  }

  private ObjectNode order() {
    return container.readItem(orderId, new PartitionKey(orderId), ObjectNode.class).getItem();
  }

  private void awaitParked(int messages) throws InterruptedException {
    assertThat(events.parkedBehind.tryAcquire(messages, WAIT.toSeconds(), TimeUnit.SECONDS))
        .as("%d messages parked within %s", messages, WAIT)
        .isTrue();
  }

  private ParkedSessions.Parking lookWhenFree() {
    return parkingWhenFree().orElseThrow();
  }

  /** The order's parking, looked at while no worker holds its session (a worker may take it). */
  private Optional<ParkedSessions.Parking> parkingWhenFree() {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (true) {
      try {
        return operator.look(orderId);
      } catch (ParkedSessions.SessionBusy busy) {
        assertThat(System.nanoTime()).as("session free within %s", WAIT).isLessThan(deadline);
      }
    }
  }

  @Test
  void deadLetteredMessage_parksTheRestOfItsOrder_untilReleased_thenAllApplyInOrder()
      throws Exception {
    startWorker(SessionSettings.defaults());
    sendSequenceWithPoisonInTheMiddle();
    awaitParked(3);

    assertThat(order().get("statusVersion").asLong()).isEqualTo(1);
    assertThat(order().path("creditedUnits").asLong()).isZero();
    ParkedSessions.Parking parking = lookWhenFree();
    assertThat(parking.reason()).isEqualTo("StoreRejected");
    assertThat(parking.messageId()).isEqualTo(poison);
    assertThat(parking.behind()).hasSize(3);

    ParkedSessions.Released released = releaseWhenFree();

    assertThat(released.resubmitted()).map(ParkedSessions.Moved::messageId).contains(poison);
    observer.await(1, f -> f.message().messageId().orElse("").endsWith(":status:3"), WAIT);
    assertThat(order().get("statusVersion").asLong()).isEqualTo(3);
    assertThat(order().get("creditedUnits").asLong()).isEqualTo(35_000);
    assertThat(events.releasedCount()).isEqualTo(1);
    assertThat(observer.finished()).filteredOn(is(Outcome.Processed.class)).hasSize(6);
  }

  /**
   * The proof through the real SDK: several orders' messages shuffled across orders but in
   * order per session, a version missing and arriving late, duplicates, and a poison message in the
   * middle of one order's sequence. Every other order ends at its highest version with its credit
   * once while the poisoned order stays parked; after {@code dlq release} it completes in order.
   */
  @Test
  void shuffledOrders_lateVersionsAndDuplicates_onlyThePoisonedOrderParks_untilReleased()
      throws Exception {
    startWorker(SessionSettings.defaults());
    List<String> others = new ArrayList<>();
    List<java.util.ArrayDeque<IncomingMessage>> sequences = new ArrayList<>();
    List<String> sessions = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      String other = orderId + "-" + i;
      others.add(other);
      sessions.add(other);
      sequences.add(
          new java.util.ArrayDeque<>(
              List.of(
                  Orders.typed("OrderPlaced", other, Orders.body(other, "cust-7"), 0),
                  Orders.status(other, "Confirmed", 1),
                  Orders.status(other, "Shipped", 3),
                  Orders.credit(other, "cr-" + other, "2", "EUR"),
                  Orders.status(other, "Packed", 2),
                  Orders.credit(other, "cr-" + other, "2", "EUR"),
                  Orders.status(other, "Shipped", 3))));
    }
    sessions.add(orderId);
    sequences.add(
        new java.util.ArrayDeque<>(
            List.of(
                Orders.typed("OrderPlaced", orderId, Orders.body(orderId, "cust-42"), 0),
                Orders.status(orderId, "Confirmed", 1),
                Orders.credit(orderId, poison, "1.5", "EUR"),
                Orders.status(orderId, "Shipped", 3),
                Orders.credit(orderId, "cr-good-" + orderId, "2", "EUR"),
                Orders.status(orderId, "Packed", 2))));
    java.util.Random random = new java.util.Random(29);
    while (!sequences.isEmpty()) {
      int i = random.nextInt(sequences.size());
      IncomingMessage next = sequences.get(i).poll();
      send(next, sessions.get(i));
      if (sequences.get(i).isEmpty()) {
        sequences.remove(i);
        sessions.remove(i);
      }
    }

    awaitParked(3);
    for (String other : others) {
      // One wait per order: each sends version 3 twice, so a count over all orders could be met
      // by one order's two copies while another's has not applied yet.
      observer.await(
          1,
          f ->
              f.message().messageId().orElse("").equals(OrderMessageTypes.statusMessageId(other, 3))
                  && f.outcome() instanceof Outcome.Processed
                  && f.settled(),
          WAIT);
    }
    for (String other : others) {
      ObjectNode done =
          container.readItem(other, new PartitionKey(other), ObjectNode.class).getItem();
      assertThat(done.get("statusVersion").asLong()).as(other).isEqualTo(3);
      assertThat(done.get("creditCount").asLong()).as(other).isEqualTo(1);
      assertThat(done.get("creditedUnits").asLong()).as(other).isEqualTo(20_000);
    }
    assertThat(order().get("statusVersion").asLong()).isEqualTo(1);
    assertThat(lookWhenFree().behind()).hasSize(3);

    releaseWhenFree();

    observer.await(
        1,
        f ->
            f.message().messageId().orElse("").equals(OrderMessageTypes.statusMessageId(orderId, 3))
                && f.outcome() instanceof Outcome.Processed,
        WAIT);
    assertThat(order().get("statusVersion").asLong()).isEqualTo(3);
    assertThat(order().get("status").asText()).isEqualTo("Shipped");
    assertThat(order().get("creditedUnits").asLong()).isEqualTo(35_000);
    // In order: version 2 applied (not refused as stale), so it ran before version 3.
    assertThat(observer.finished())
        .filteredOn(
            f ->
                f.message()
                    .messageId()
                    .orElse("")
                    .equals(OrderMessageTypes.statusMessageId(orderId, 2)))
        .extracting(f -> f.outcome().getClass().getSimpleName())
        .contains("Processed");
  }

  /**
   * Parked orders released one after the other: each finds its dead-lettered message. Before, a
   * release stopped reading at its own message, leaving the ones received after it (or arriving
   * after its batch ended) locked, so the next release answered "not in the dead-letter queue"
   * until the locks expired; and the others, abandoned on the still open link, came straight back
   * to it and stayed locked. Found by {@code chaos --sessions}.
   */
  @Test
  void releasingOrdersOneAfterTheOther_eachFindsItsDeadLetteredMessage() {
    String other = "ord-" + UUID.randomUUID().toString().substring(0, 13);
    String third = "ord-" + UUID.randomUUID().toString().substring(0, 13);
    String fourth = "ord-" + UUID.randomUUID().toString().substring(0, 13);
    parkByHand(orderId, "m-first-" + orderId);
    parkByHand(third, "m-third-" + third);
    parkByHand(other, "m-second-" + other);
    parkByHand(fourth, "m-fourth-" + fourth);

    ParkedSessions.Released first = operator.release(orderId, Duration.ofSeconds(1)).orElseThrow();
    ParkedSessions.Released second = operator.release(other, Duration.ofSeconds(1)).orElseThrow();
    ParkedSessions.Released last = operator.release(fourth, Duration.ofSeconds(1)).orElseThrow();

    assertThat(first.resubmitted())
        .map(ParkedSessions.Moved::messageId)
        .contains("m-first-" + orderId);
    assertThat(second.resubmitted())
        .map(ParkedSessions.Moved::messageId)
        .contains("m-second-" + other);
    assertThat(last.resubmitted())
        .map(ParkedSessions.Moved::messageId)
        .contains("m-fourth-" + fourth);
  }

  /** Dead-letters one message of {@code order} and marks the order parked behind it. */
  private void parkByHand(String order, String messageId) {
    ServiceBusMessage message = new ServiceBusMessage("{}");
    message.setMessageId(messageId);
    message.setSessionId(order);
    message.setSubject("OrderCredited");
    sender.sendMessage(message);
    try (ServiceBusSessionReceiverClient sessions =
            new ServiceBusConnection.ConnectionString(azure.serviceBus().connectionString())
                .builder()
                .sessionReceiver()
                .queueName(queue)
                .disableAutoComplete()
                .buildClient();
        ServiceBusReceiverClient session = sessions.acceptSession(order)) {
      ServiceBusReceivedMessage received =
          session.receiveMessages(1, Duration.ofSeconds(10)).iterator().next();
      session.setSessionState(
          SessionState.EMPTY
              .withParked(
                  Optional.of(
                      new SessionState.Parked(
                          "StoreRejected", messageId, Instant.now(), List.of())))
              .write());
      session.deadLetter(received, new DeadLetterOptions().setDeadLetterReason("StoreRejected"));
    }
  }

  @Test
  void discard_dropsWhatIsParked_withARecord_andTheOrderRunsOn() throws Exception {
    startWorker(SessionSettings.defaults());
    sendSequenceWithPoisonInTheMiddle();
    awaitParked(3);

    List<ParkedSessions.Moved> dropped = discardWhenFree();

    assertThat(dropped)
        .extracting(ParkedSessions.Moved::messageId)
        .containsExactly(orderId + ":status:2", "cr-good-" + orderId, orderId + ":status:3");
    assertThat(parkingWhenFree()).isEmpty();
    send(Orders.status(orderId, "Delivered", 2));
    observer.await(1, f -> f.message().messageId().orElse("").endsWith(":status:2"), WAIT);
    assertThat(order().get("statusVersion").asLong()).isEqualTo(2);
    assertThat(order().path("creditedUnits").asLong()).isZero();
  }

  @Test
  void moreParkedThanTheBound_areDeadLetteredWithTheirOwnReason() throws Exception {
    startWorker(SessionSettings.defaults().withParkingBounds(2, Duration.ofDays(1)));
    sendSequenceWithPoisonInTheMiddle();
    awaitParked(2);

    Finished bounded =
        observer
            .await(
                1,
                f ->
                    f.outcome() instanceof Outcome.DeadLettered dl
                        && dl.reason().code().equals("ParkingBoundExceeded"),
                WAIT)
            .get(0);
    assertThat(bounded.message().messageId()).contains(orderId + ":status:3");
    List<ServiceBusReceivedMessage> letters = EmulatorClients.deadLetters(azure, queue, 2, WAIT);
    assertThat(letters)
        .extracting(ServiceBusReceivedMessage::getDeadLetterReason)
        .containsExactlyInAnyOrder("StoreRejected", "ParkingBoundExceeded");
    assertThat(
            letters.stream()
                .filter(m -> m.getDeadLetterReason().equals("ParkingBoundExceeded"))
                .findFirst()
                .orElseThrow()
                .getDeadLetterErrorDescription())
        .contains("maxWaiting", poison);
  }

  private ParkedSessions.Released releaseWhenFree() {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (true) {
      try {
        return operator.release(orderId, Duration.ofSeconds(2)).orElseThrow();
      } catch (ParkedSessions.SessionBusy busy) {
        assertThat(System.nanoTime()).as("session free within %s", WAIT).isLessThan(deadline);
      }
    }
  }

  private List<ParkedSessions.Moved> discardWhenFree() {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (true) {
      try {
        return operator.discard(orderId);
      } catch (ParkedSessions.SessionBusy busy) {
        assertThat(System.nanoTime()).as("session free within %s", WAIT).isLessThan(deadline);
      }
    }
  }
}
