package io.idemworker.servicebus.processor;

import static io.idemworker.testing.RecordingObserver.is;
import static org.assertj.core.api.Assertions.assertThat;

import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosException;
import com.azure.cosmos.models.PartitionKey;
import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.app.OrderMessages;
import io.idemworker.core.DeadLetterReason;
import io.idemworker.core.EffectStore;
import io.idemworker.core.ForwardingEffectStore;
import io.idemworker.core.Outcome;
import io.idemworker.core.StoreFaults;
import io.idemworker.core.TestFlow;
import io.idemworker.core.WriteSet;
import io.idemworker.cosmos.CosmosEffectStore;
import io.idemworker.emulator.cosmos.Fault;
import io.idemworker.emulator.cosmos.Operation;
import io.idemworker.emulator.junit.AzureEmulators;
import io.idemworker.emulator.junit.Emulators;
import io.idemworker.orders.OrderDecoder;
import io.idemworker.orders.OrderDocumentIds;
import io.idemworker.orders.Orders;
import io.idemworker.servicebus.ProcessorSettings;
import io.idemworker.servicebus.ServiceBusConnection;
import io.idemworker.servicebus.SessionRequirementCheck;
import io.idemworker.servicebus.WorkerStatus;
import io.idemworker.testing.EmulatorClients;
import io.idemworker.testing.RecordingObserver;
import io.idemworker.testing.RecordingObserver.Finished;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The worker end to end: the real Service Bus processor and Cosmos DB clients against the
 * in-process emulators, with faults injected where the issue asks for them.
 */
@AzureEmulators
class ServiceBusWorkerTest {
  static Emulators azure; // injected by @AzureEmulators
  private static final Duration WAIT = Duration.ofSeconds(60);

  private final CosmosContainer container = EmulatorClients.orders(azure);
  private final List<ServiceBusWorker> workers = new ArrayList<>();
  private final Map<String, AtomicInteger> roundTrips = new ConcurrentHashMap<>();
  private final RecordingObserver observer = new RecordingObserver();
  private String queue;
  private ServiceBusSenderClient sender;

  @BeforeEach
  void createQueue() {
    queue = azure.newQueue("q", "maxDeliveryCount=10");
    sender = EmulatorClients.sender(azure, queue);
  }

  @AfterEach
  void stopEverything() {
    azure.cosmos().faults().clear();
    azure.serviceBus().faults().clear();
    workers.forEach(worker -> worker.shutdown(Duration.ofSeconds(10)));
    sender.close();
  }

  /**
   * Switches the test to a queue whose locks last 5 s. Locks outlive a closed link or connection,
   * as on the service, so messages held by a dropped connection or a paused processor come back
   * only when their lock ends: with the default minute the redelivery would come after the test's
   * wait.
   */
  private void useQueueWithShortLock() {
    sender.close();
    queue = azure.newQueue("q", "maxDeliveryCount=10 lockDuration=5s");
    sender = EmulatorClients.sender(azure, queue);
  }

  private CosmosEffectStore cosmosStore() {
    return new CosmosEffectStore(
        container,
        (operation, status, charge, latency) ->
            roundTrips.computeIfAbsent(operation, k -> new AtomicInteger()).incrementAndGet(),
        OrderDocumentIds.PARTITION_KEY_PATH);
  }

  private ServiceBusWorker startWorker(EffectStore store, CosmosEffectStore probe) {
    ServiceBusWorker worker =
        new ServiceBusWorker(
            new ServiceBusConnection.ConnectionString(azure.serviceBus().connectionString()),
            ProcessorSettings.defaults(queue)
                .withMaxConcurrentCalls(4)
                .withMaxRetryBackoff(Duration.ofMillis(50))
                .withProbeInterval(Duration.ofMillis(200)),
            TestFlow.of(new OrderDecoder(true), store).build(),
            probe,
            observer,
            Clock.systemUTC());
    workers.add(worker);
    worker.start();
    return worker;
  }

  /** A Cosmos store whose first successful commit is followed by {@code crash}. */
  private EffectStore crashingAfterFirstCommit(
      CosmosEffectStore cosmos, AtomicBoolean crashed, Runnable crash) {
    return StoreFaults.afterFirstCommit(
        cosmos,
        () -> {
          crashed.set(true);
          crash.run();
        });
  }

  private ServiceBusWorker startWorker() {
    CosmosEffectStore store = cosmosStore();
    return startWorker(store, store);
  }

  private static String newOrderId() {
    return "ord-" + UUID.randomUUID().toString().substring(0, 13);
  }

  private void send(String orderId) {
    sender.sendMessage(
        OrderMessages.orderPlaced(orderId, Orders.body(orderId, "cust-42"), "corr-" + orderId));
  }

  /** The order's documents that a message writes besides its outbox event: the order alone. */
  private List<ObjectNode> documentsOf(String orderId) {
    List<ObjectNode> documents = new ArrayList<>();
    readDocument(orderId, orderId).ifPresent(documents::add);
    return documents;
  }

  private java.util.Optional<ObjectNode> readDocument(String orderId, String id) {
    try {
      return java.util.Optional.of(
          container.readItem(id, new PartitionKey(orderId), ObjectNode.class).getItem());
    } catch (CosmosException e) {
      if (e.getStatusCode() == 404) {
        return java.util.Optional.empty();
      }
      throw e;
    }
  }

  /**
   * A start-up probe that answered nothing within its bound (a slow start) leaves the refusal to
   * the processor, which would retry the refused receiver for ever: the worker tells it instead,
   * once, naming the variable, and {@code run} exits 2 on it.
   */
  @Test
  void plainWorkerOnAQueueThatRequiresSessions_tellsTheRefusalOnceNamingTheVariable()
      throws Exception {
    sender.close();
    queue = azure.newQueue("q", "sessions");
    sender = EmulatorClients.sender(azure, queue);
    List<SessionRequirementCheck.Differs> told = new CopyOnWriteArrayList<>();
    CountDownLatch first = new CountDownLatch(1);
    CosmosEffectStore store = cosmosStore();
    ServiceBusWorker worker =
        new ServiceBusWorker(
            new ServiceBusConnection.ConnectionString(azure.serviceBus().connectionString()),
            ProcessorSettings.defaults(queue).withMaxRetryBackoff(Duration.ofMillis(50)),
            TestFlow.of(new OrderDecoder(true), store).maxBodyBytes(1024).build(),
            store,
            observer,
            Clock.systemUTC());
    workers.add(worker);
    worker.onSessionsRefused(
        differs -> {
          told.add(differs);
          first.countDown();
        });

    worker.start();

    assertThat(first.await(60, TimeUnit.SECONDS)).as("the refusal was told").isTrue();
    assertThat(told.get(0).problem())
        .contains("session mode is off, but queue " + queue + " requires sessions");
    worker.shutdown(Duration.ofSeconds(10));
    assertThat(told).hasSize(1);
  }

  @Test
  void newOrder_isWrittenWithItsLinesInOneRoundTripAndCompleted() {
    startWorker();
    String orderId = newOrderId();

    send(orderId);

    List<Finished> done = observer.await(1, is(Outcome.Processed.class), WAIT);
    assertThat(done.get(0).settled()).isTrue();
    assertThat(documentsOf(orderId)).hasSize(1);
    assertThat(readDocument(orderId, orderId).orElseThrow().get("fingerprint").asText())
        .startsWith("sha256:");
    assertThat(readDocument(orderId, orderId).orElseThrow().get("lines")).hasSize(2);
    assertThat(roundTrips.get("batch")).hasValue(1);
    assertThat(roundTrips).doesNotContainKey("read");
  }

  @Test
  void duplicateDeliveredAfterTheFirstWasCompleted_isCompletedWithoutASecondOrder() {
    startWorker();
    String orderId = newOrderId();
    send(orderId);
    observer.await(1, is(Outcome.Processed.class), WAIT);

    send(orderId);

    List<Finished> duplicates = observer.await(1, is(Outcome.Duplicate.class), WAIT);
    assertThat(duplicates.get(0).settled()).isTrue();
    assertThat(documentsOf(orderId)).hasSize(1);
    assertThat(roundTrips.get("batch")).hasValue(2);
    assertThat(roundTrips.get("read")).hasValue(1);
  }

  @Test
  void sameMessageOnTwoCompetingProcessorsAtOnce_createsExactlyOneOrder() throws Exception {
    // Each copy's write waits (bounded) until the other copy's write has started too, so the two
    // copies are provably in flight at once, one on each processor.
    Map<String, java.util.concurrent.CountDownLatch> arrivals = new ConcurrentHashMap<>();
    Map<String, Set<ServiceBusWorkerTest.Side>> sides = new ConcurrentHashMap<>();
    AtomicInteger rendezvous = new AtomicInteger();
    for (Side side : Side.values()) {
      CosmosEffectStore cosmos = cosmosStore();
      EffectStore meeting =
          new ForwardingEffectStore(cosmos) {
            @Override
            public WriteResult apply(WriteSet writeSet) {
              java.util.concurrent.CountDownLatch both =
                  arrivals.computeIfAbsent(
                      writeSet.partitionKey(), k -> new java.util.concurrent.CountDownLatch(2));
              sides
                  .computeIfAbsent(writeSet.partitionKey(), k -> ConcurrentHashMap.newKeySet())
                  .add(side);
              both.countDown();
              try {
                if (both.await(20, java.util.concurrent.TimeUnit.SECONDS)) {
                  rendezvous.incrementAndGet();
                }
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              return super.apply(writeSet);
            }
          };
      startWorker(meeting, cosmos);
    }
    List<String> orderIds = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      orderIds.add(newOrderId());
    }

    for (String orderId : orderIds) {
      send(orderId);
      send(orderId);
    }

    List<Finished> finished =
        observer.await(12, f -> !(f.outcome() instanceof Outcome.Retry), WAIT);
    assertThat(finished).filteredOn(is(Outcome.Processed.class)).hasSize(6);
    assertThat(finished).filteredOn(is(Outcome.Duplicate.class)).hasSize(6);
    assertThat(rendezvous).as("writes that met their copy in flight").hasValue(12);
    for (String orderId : orderIds) {
      assertThat(documentsOf(orderId)).hasSize(1);
    }
  }

  private enum Side {
    FIRST,
    SECOND
  }

  @Test
  void lockLostAfterTheBatchCommitted_redeliveryCompletesAsADuplicate() {
    AtomicBoolean crashed = new AtomicBoolean();
    CosmosEffectStore cosmos = cosmosStore();
    // The process "dies" between commit and completion: its lock is gone.
    EffectStore crashingAfterCommit =
        crashingAfterFirstCommit(
            cosmos, crashed, () -> azure.serviceBus().faults().loseLocks(queue));
    startWorker(crashingAfterCommit, cosmos);
    String orderId = newOrderId();

    send(orderId);

    List<Finished> duplicates = observer.await(1, is(Outcome.Duplicate.class), WAIT);
    List<Finished> processed = observer.await(1, is(Outcome.Processed.class), WAIT);
    assertThat(processed.get(0).settled()).as("completion after the lock was lost").isFalse();
    assertThat(duplicates.get(0).settled()).isTrue();
    assertThat(duplicates.get(0).message().deliveryCount()).isGreaterThanOrEqualTo(1);
    assertThat(documentsOf(orderId)).hasSize(1);
  }

  @Test
  void connectionDroppedAndLockRunOutAfterTheBatchCommitted_redeliveryCompletesAsADuplicate() {
    AtomicBoolean crashed = new AtomicBoolean();
    CosmosEffectStore cosmos = cosmosStore();
    // The process's connection dies between commit and completion and stays dead until its lock
    // runs out. Locks outlive a dropped connection, as on the service, so the lock's end is what
    // brings the message back; loseLocks stands for that minute passing. (A connection that
    // recovers within the lock may still complete by lock token; see the emulator's tests.)
    EffectStore crashingAfterCommit =
        crashingAfterFirstCommit(
            cosmos,
            crashed,
            () -> {
              azure.serviceBus().faults().dropConnections();
              azure.serviceBus().faults().loseLocks(queue);
            });
    startWorker(crashingAfterCommit, cosmos);
    String orderId = newOrderId();

    send(orderId);

    List<Finished> duplicates = observer.await(1, is(Outcome.Duplicate.class), WAIT);
    assertThat(duplicates.get(0).settled()).isTrue();
    assertThat(crashed).as("the first delivery committed before the drop").isTrue();
    // The first delivery's own completion may still be waiting out the SDK's retries on the
    // dropped link; whenever it ends, it cannot have created a second order.
    assertThat(observer.finished()).filteredOn(is(Outcome.Processed.class)).hasSizeLessThan(2);
    assertThat(documentsOf(orderId)).hasSize(1);
  }

  @Test
  void keyReusedWithOtherContent_isDeadLetteredAndTheOriginalStaysUntouched() {
    startWorker();
    String orderId = newOrderId();
    send(orderId);
    observer.await(1, is(Outcome.Processed.class), WAIT);

    sender.sendMessage(
        OrderMessages.orderPlaced(orderId, Orders.body(orderId, "cust-99"), "corr-x"));

    observer.await(1, is(Outcome.DeadLettered.class), WAIT);
    List<ServiceBusReceivedMessage> deadLetters =
        EmulatorClients.deadLetters(azure, queue, 1, WAIT);
    assertThat(deadLetters).hasSize(1);
    assertThat(deadLetters.get(0).getDeadLetterReason()).isEqualTo("IdempotencyConflict");
    assertThat(deadLetters.get(0).getDeadLetterErrorDescription())
        .contains("customerId")
        .doesNotContain("cust-99");
    assertThat(readDocument(orderId, orderId).orElseThrow().get("customerId").asText())
        .isEqualTo("cust-42");
  }

  @Test
  void throttlingThatTheSdkRetries_isProcessedOnce() {
    startWorker();
    azure.cosmos().faults().inject(Operation.BATCH, Fault.status(429).times(3));
    String orderId = newOrderId();

    send(orderId);

    observer.await(1, is(Outcome.Processed.class), WAIT);
    assertThat(observer.finished()).hasSize(1);
    assertThat(documentsOf(orderId)).hasSize(1);
  }

  @Test
  void serviceUnavailable_isAbandonedAfterABackoffInsideTheLockAndProcessedOnce() {
    List<Duration> waits = new java.util.concurrent.CopyOnWriteArrayList<>();
    CosmosEffectStore store = cosmosStore();
    ServiceBusWorker worker =
        new ServiceBusWorker(
            new ServiceBusConnection.ConnectionString(azure.serviceBus().connectionString()),
            ProcessorSettings.defaults(queue).withMaxConcurrentCalls(4),
            TestFlow.of(new OrderDecoder(true), store).maxBodyBytes(4096).build(),
            store,
            observer,
            Clock.systemUTC(),
            java.util.concurrent.Executors.newSingleThreadScheduledExecutor(),
            waits::add);
    workers.add(worker);
    worker.start();
    azure.cosmos().faults().inject(Operation.BATCH, Fault.status(503).times(2));
    String orderId = newOrderId();

    send(orderId);

    List<Finished> processed = observer.await(1, is(Outcome.Processed.class), WAIT);
    // Exponential by delivery count (100 ms, then 200 ms, with jitter down to half), far inside
    // the one-minute lock; recorded instead of slept.
    assertThat(waits).hasSize(2);
    assertThat(waits.get(0)).isBetween(Duration.ofMillis(50), Duration.ofMillis(100));
    assertThat(waits.get(1)).isBetween(Duration.ofMillis(100), Duration.ofMillis(200));
    assertThat(observer.finished()).filteredOn(is(Outcome.Retry.class)).hasSize(2);
    assertThat(processed.get(0).message().deliveryCount()).isEqualTo(2);
    assertThat(documentsOf(orderId)).hasSize(1);
    assertThat(EmulatorClients.deadLetters(azure, queue, 1, Duration.ofSeconds(1))).isEmpty();
  }

  @Test
  void forbiddenFromCosmos_pausesTheWorkerWithoutDeadLetteringAndItRecovers() {
    useQueueWithShortLock();
    ServiceBusWorker worker = startWorker();
    // Reads still work (a read-only key or role): the probe must not be fooled by them.
    azure.cosmos().faults().inject(Operation.BATCH, Fault.status(403));
    String orderId = newOrderId();

    send(orderId);

    List<Finished> retried = observer.await(1, is(Outcome.Retry.class), WAIT);
    assertThat(((Outcome.Retry) retried.get(0).outcome()).cause())
        .isEqualTo(Outcome.RetryCause.MISCONFIGURATION);
    assertThat(worker.status().state()).isEqualTo(WorkerStatus.State.PAUSED);
    assertThat(worker.status().reason()).hasValueSatisfying(r -> assertThat(r).contains("403"));

    azure.cosmos().faults().clear();

    observer.await(1, is(Outcome.Processed.class), WAIT);
    assertThat(worker.status().ready()).isTrue();
    assertThat(observer.finished()).filteredOn(is(Outcome.DeadLettered.class)).isEmpty();
    assertThat(documentsOf(orderId)).hasSize(1);
  }

  @Test
  void poisonMessages_areDeadLetteredAtOnceWithReasonCodesNamingTheField() {
    startWorker();
    String noId = newOrderId();
    ServiceBusMessage withoutMessageId =
        new ServiceBusMessage(Orders.body(noId, "c")).setContentType("application/json");
    ServiceBusMessage unreadable = OrderMessages.orderPlaced("ord-bad-json", "{not json", "corr");
    ServiceBusMessage negativeQuantity =
        OrderMessages.orderPlaced(
            "ord-neg",
            Orders.body("ord-neg", "c").replace("\"quantity\":2", "\"quantity\":-2"),
            "c");

    sender.sendMessage(withoutMessageId);
    sender.sendMessage(unreadable);
    sender.sendMessage(negativeQuantity);

    List<ServiceBusReceivedMessage> deadLetters =
        EmulatorClients.deadLetters(azure, queue, 3, WAIT);
    assertThat(deadLetters)
        .extracting(ServiceBusReceivedMessage::getDeadLetterReason)
        .containsExactlyInAnyOrder(
            // The broker gives a message without MessageId an id of its own, which cannot match.
            DeadLetterReason.MESSAGE_ID_MISMATCH.code(),
            DeadLetterReason.UNREADABLE_BODY.code(),
            DeadLetterReason.SCHEMA_VIOLATION.code());
    assertThat(deadLetters)
        .filteredOn(m -> m.getDeadLetterReason().equals("SchemaViolation"))
        .first()
        .satisfies(
            m -> assertThat(m.getDeadLetterErrorDescription()).contains("lines[0].quantity"));
    assertThat(deadLetters).allSatisfy(m -> assertThat(m.getDeliveryCount()).isZero());
  }

  @Test
  void longStoreOutage_pausesTheWorkerInsteadOfBurningDeliveryCounts() {
    useQueueWithShortLock();
    CosmosEffectStore store = cosmosStore();
    ServiceBusWorker worker =
        new ServiceBusWorker(
            new ServiceBusConnection.ConnectionString(azure.serviceBus().connectionString()),
            ProcessorSettings.defaults(queue)
                .withMaxConcurrentCalls(2)
                .withMaxRetryBackoff(Duration.ofMillis(20))
                .withProbeInterval(Duration.ofMillis(200))
                .withTransientFailuresBeforePause(3),
            TestFlow.of(new OrderDecoder(true), store).maxBodyBytes(4096).build(),
            store,
            observer,
            Clock.systemUTC());
    workers.add(worker);
    worker.start();
    azure.cosmos().faults().inject(Operation.BATCH, Fault.status(503));
    String orderId = newOrderId();

    send(orderId);

    observer.await(3, is(Outcome.Retry.class), WAIT);
    awaitState(worker, WorkerStatus.State.PAUSED);
    assertThat(worker.status().reason())
        .hasValueSatisfying(r -> assertThat(r).contains("in a row"));
    azure.cosmos().faults().clear();
    List<Finished> processed = observer.await(1, is(Outcome.Processed.class), WAIT);
    assertThat(processed.get(0).message().deliveryCount()).isLessThan(8);
    awaitState(worker, WorkerStatus.State.RUNNING);
    assertThat(documentsOf(orderId)).hasSize(1);
  }

  @Test
  void applicationPropertyWithANullValue_isProcessedNormally() {
    startWorker();
    String orderId = newOrderId();
    ServiceBusMessage message =
        OrderMessages.orderPlaced(orderId, Orders.body(orderId, "c"), "corr");
    message.getApplicationProperties().put("empty", null);

    sender.sendMessage(message);

    assertThat(
            observer.await(1, is(Outcome.Processed.class), WAIT).get(0).message().deliveryCount())
        .isZero();
  }

  private static void awaitState(ServiceBusWorker worker, WorkerStatus.State state) {
    long deadline = System.nanoTime() + WAIT.toNanos();
    Object poll = new Object();
    while (worker.status().state() != state) {
      assertThat(System.nanoTime()).as("state " + state + " within " + WAIT).isLessThan(deadline);
      synchronized (poll) {
        try {
          poll.wait(20);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new AssertionError("interrupted", e);
        }
      }
    }
  }
}
