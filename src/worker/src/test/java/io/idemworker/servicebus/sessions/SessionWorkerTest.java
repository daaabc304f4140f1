package io.idemworker.servicebus.sessions;

import static io.idemworker.testing.RecordingObserver.is;
import static org.assertj.core.api.Assertions.assertThat;

import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.models.PartitionKey;
import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.core.DocumentPatch;
import io.idemworker.core.EffectStore;
import io.idemworker.core.ForwardingEffectStore;
import io.idemworker.core.IncomingMessage;
import io.idemworker.core.MessageDecoder;
import io.idemworker.core.Outcome;
import io.idemworker.core.TestFlow;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Session mode end to end: the real SDK's session receivers and Cosmos DB client against the
 * in-process emulators, on a queue that requires sessions.
 */
@AzureEmulators
class SessionWorkerTest {
  static Emulators azure; // injected by @AzureEmulators
  private static final Duration WAIT = Duration.ofSeconds(60);

  private final CosmosContainer container = EmulatorClients.orders(azure);
  private final List<SessionWorker> workers = new ArrayList<>();
  private final RecordingObserver observer = new RecordingObserver();
  private final WaitableEvents events = new WaitableEvents();
  private final Map<String, List<Long>> appliedVersions = new ConcurrentHashMap<>();
  private final MessageDecoder decoder =
      OrderMessageTypes.decoder(true, new InboxMarkers("orders", Optional.of(Duration.ofDays(14))));
  private String queue;
  private ServiceBusSenderClient sender;

  @BeforeEach
  void createQueue() {
    queue = azure.newQueue("q", "sessions maxDeliveryCount=10");
    sender = EmulatorClients.sender(azure, queue);
  }

  @AfterEach
  void stopEverything() {
    azure.serviceBus().faults().clear();
    workers.forEach(worker -> worker.shutdown(Duration.ofSeconds(5)));
    sender.close();
  }

  private SessionWorker startWorker(EffectStore store, SessionSettings sessions) {
    CosmosEffectStore probe =
        new CosmosEffectStore(
            container, (op, status, charge, latency) -> {}, OrderDocumentIds.PARTITION_KEY_PATH);
    SessionWorker worker =
        new SessionWorker(
            new ServiceBusConnection.ConnectionString(azure.serviceBus().connectionString()),
            ProcessorSettings.defaults(queue)
                .withMaxRetryBackoff(Duration.ofMillis(50))
                .withProbeInterval(Duration.ofMillis(200)),
            sessions,
            TestFlow.of(decoder, store).build(),
            decoder,
            store,
            probe,
            observer,
            events,
            Clock.systemUTC());
    workers.add(worker);
    worker.start();
    return worker;
  }

  private SessionWorker startWorker(SessionSettings sessions) {
    return startWorker(recording(cosmos()), sessions);
  }

  private CosmosEffectStore cosmos() {
    return new CosmosEffectStore(
        container, (op, status, charge, latency) -> {}, OrderDocumentIds.PARTITION_KEY_PATH);
  }

  /** The store, recording each status version it applied, in commit order, per order. */
  private EffectStore recording(EffectStore store) {
    return new ForwardingEffectStore(store) {
      @Override
      public UpdateResult update(String partitionKey, DocumentPatch patch) {
        UpdateResult result = super.update(partitionKey, patch);
        if (result instanceof Applied
            && patch.condition().orElse(null) instanceof DocumentPatch.AbsentOrBelow below) {
          appliedVersions
              .computeIfAbsent(partitionKey, k -> new CopyOnWriteArrayList<>())
              .add(below.bound());
        }
        return result;
      }
    };
  }

  private List<Long> applied(String orderId) {
    return List.copyOf(appliedVersions.getOrDefault(orderId, List.of()));
  }

  private static String newOrderId() {
    return "ord-" + UUID.randomUUID().toString().substring(0, 13);
  }

  private void send(String sessionId, IncomingMessage message) {
    ServiceBusMessage out = new ServiceBusMessage(message.body());
    out.setMessageId(message.messageId().orElseThrow());
    out.setSubject(message.subject().orElseThrow());
    out.setContentType("application/json");
    out.setSessionId(sessionId);
    sender.sendMessage(out);
  }

  private void place(String orderId) {
    send(orderId, Orders.typed("OrderPlaced", orderId, Orders.body(orderId, "cust-42"), 0));
  }

  private void status(String orderId, long version) {
    send(orderId, Orders.status(orderId, STATUSES[(int) version % STATUSES.length], version));
  }

  private static final String[] STATUSES = {"Confirmed", "Packed", "Shipped", "Delivered"};

  private ObjectNode order(String orderId) {
    return container.readItem(orderId, new PartitionKey(orderId), ObjectNode.class).getItem();
  }

  private static Predicate<Finished> statusOf(String orderId) {
    return f ->
        f.message().messageId().orElse("").startsWith(orderId + ":status:")
            && !(f.outcome() instanceof Outcome.Retry);
  }

  private static long versionOf(Finished f) {
    String id = f.message().messageId().orElseThrow();
    return Long.parseLong(id.substring(id.lastIndexOf(':') + 1));
  }

  @Test
  void ordersRunInParallel_eachOrdersStatusChangesApplyInVersionOrder() {
    startWorker(SessionSettings.defaults().withMaxConcurrentSessions(4));
    List<String> orders = List.of(newOrderId(), newOrderId(), newOrderId(), newOrderId());
    for (String orderId : orders) {
      place(orderId);
    }
    for (long version = 1; version <= 4; version++) {
      for (String orderId : orders) {
        status(orderId, version);
      }
    }

    for (String orderId : orders) {
      List<Finished> finished = observer.await(4, statusOf(orderId), WAIT);
      assertThat(finished).allMatch(is(Outcome.Processed.class));
      assertThat(applied(orderId)).containsExactly(1L, 2L, 3L, 4L);
      assertThat(order(orderId).get("statusVersion").asLong()).isEqualTo(4);
    }
  }

  @Test
  void messageWhoseSessionIdIsNotItsOrder_isDeadLetteredAsSessionIdMismatch() {
    startWorker(SessionSettings.defaults().withSessionKeyName("orderId"));
    String orderId = newOrderId();
    send("someone-else", Orders.typed("OrderPlaced", orderId, Orders.body(orderId, "c-1"), 0));

    Finished dead = observer.await(1, is(Outcome.DeadLettered.class), WAIT).get(0);
    assertThat(((Outcome.DeadLettered) dead.outcome()).reason().code())
        .isEqualTo("SessionIdMismatch");
    List<ServiceBusReceivedMessage> letters = EmulatorClients.deadLetters(azure, queue, 1, WAIT);
    assertThat(letters).hasSize(1);
    assertThat(letters.get(0).getDeadLetterReason()).isEqualTo("SessionIdMismatch");
    assertThat(letters.get(0).getDeadLetterErrorDescription()).contains("SessionId", "orderId");
  }

  @Test
  void missingVersion_isWaitedFor_andTheDeferredOnesApplyInOrderWhenItArrives()
      throws InterruptedException {
    SessionWorker worker = startWorker(SessionSettings.defaults());
    String orderId = newOrderId();
    place(orderId);
    status(orderId, 1);
    status(orderId, 4);
    status(orderId, 3);
    observer.await(1, statusOf(orderId), WAIT);
    awaitDeferred(2);
    assertThat(order(orderId).get("statusVersion").asLong()).isEqualTo(1);

    status(orderId, 2);

    List<Finished> finished = observer.await(4, statusOf(orderId), WAIT);
    assertThat(finished).allMatch(is(Outcome.Processed.class));
    assertThat(applied(orderId)).containsExactly(1L, 2L, 3L, 4L);
    assertThat(order(orderId).get("statusVersion").asLong()).isEqualTo(4);
    assertThat(worker.events().gapsGivenUp()).isZero();
  }

  @Test
  void gapThatOutlastsTheGapTimeout_isGivenUp_andTheWaitingOnesApplyAsWithoutSessions() {
    SessionWorker worker =
        startWorker(SessionSettings.defaults().withGapTimeout(Duration.ofMillis(300)));
    String orderId = newOrderId();
    place(orderId);
    status(orderId, 1);
    status(orderId, 3);

    observer.await(2, statusOf(orderId), WAIT);

    assertThat(applied(orderId)).containsExactly(1L, 3L);
    assertThat(order(orderId).get("statusVersion").asLong()).isEqualTo(3);
    assertThat(worker.events().gapsGivenUp()).isEqualTo(1);
  }

  @Test
  void workerKilledBetweenDeferAndApply_anotherAppliesEverythingOnce() throws Exception {
    CountDownLatch dead = new CountDownLatch(1);
    CountDownLatch never = new CountDownLatch(1);
    String orderId = newOrderId();
    EffectStore cosmos = recording(cosmos());
    // The first worker dies right after the store committed version 3, which it had deferred:
    // before its session state says so and before the broker hears of it.
    EffectStore dying =
        new ForwardingEffectStore(cosmos) {
          @Override
          public UpdateResult update(String partitionKey, DocumentPatch patch) {
            UpdateResult result = super.update(partitionKey, patch);
            if (partitionKey.equals(orderId)
                && patch.condition().orElse(null) instanceof DocumentPatch.AbsentOrBelow below
                && below.bound() == 3) {
              dead.countDown();
              awaitQuietly(never);
            }
            return result;
          }
        };
    SessionWorker first = startWorker(dying, SessionSettings.defaults());
    place(orderId);
    status(orderId, 1);
    status(orderId, 3);
    awaitDeferred(1);
    status(orderId, 2);
    assertThat(dead.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    azure.serviceBus().faults().dropConnections();
    first.shutdown(Duration.ofMillis(200));

    startWorker(SessionSettings.defaults());
    status(orderId, 4);

    observer.await(1, f -> f.message().messageId().orElse("").endsWith(":status:4"), WAIT);
    List<Finished> finished = observer.finished().stream().filter(statusOf(orderId)).toList();
    assertThat(applied(orderId)).containsExactly(1L, 2L, 3L, 4L);
    // The copies the first worker left unsettled come back and change nothing: version 3 as a
    // duplicate, version 2 as a duplicate or, behind the stored 3, as stale.
    assertThat(finished)
        .filteredOn(f -> versionOf(f) == 2 || versionOf(f) == 3)
        .isNotEmpty()
        .allMatch(
            f -> f.outcome() instanceof Outcome.Duplicate || f.outcome() instanceof Outcome.Stale);
    assertThat(order(orderId).get("statusVersion").asLong()).isEqualTo(4);
    never.countDown();
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await(2, TimeUnit.MINUTES);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void awaitDeferred(int count) throws InterruptedException {
    assertThat(events.deferrals.tryAcquire(count, WAIT.toSeconds(), TimeUnit.SECONDS))
        .as("%d deferrals within %s", count, WAIT)
        .isTrue();
  }

  /** Counts deferrals so a test can wait for them with a bound. */
  static final class WaitableEvents extends SessionEvents {
    final Semaphore deferrals = new Semaphore(0);

    @Override
    void deferred(String sessionId, long version, long applied) {
      super.deferred(sessionId, version, applied);
      deferrals.release();
    }
  }
}
