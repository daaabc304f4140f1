package com.example.shipments;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosClientBuilder;
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
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.azure.EventIds;
import io.idemworker.azure.IdempotentWorker;
import io.idemworker.core.DeliveryObserver;
import io.idemworker.core.DuplicateSource;
import io.idemworker.core.IdempotencyKey;
import io.idemworker.core.Outcome;
import io.idemworker.cosmos.CosmosContainers;
import io.idemworker.emulator.junit.AzureEmulators;
import io.idemworker.emulator.junit.Emulators;
import io.idemworker.servicebus.ServiceBusConnection;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The shipments consumer on the library, through the real SDKs against the emulators: duplicates,
 * a reused key, a crash between the write and the settlement, a lost lock, scans appended once, a
 * stale delivery, and the relayed event.
 */
@AzureEmulators(topics = "shipment-events/audit")
class ShipmentsTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final ObjectMapper JSON = new ObjectMapper();

  Emulators azure;
  private String queue;
  private CosmosClient cosmos;
  private CosmosContainer shipments;
  private ServiceBusClientBuilder bus;
  private ServiceBusSenderClient sender;
  private final Recorder outcomes = new Recorder();
  private final ShiftableClock clock = new ShiftableClock();
  private IdempotentWorker worker;

  @BeforeEach
  void connect() {
    queue = azure.newQueue("shipments");
    cosmos =
        new CosmosClientBuilder()
            .endpoint(azure.cosmosEndpoint())
            .key(azure.cosmosKey())
            .gatewayMode()
            .buildClient();
    // Created by the library's helper: TTL on, as markers and events need.
    shipments =
        CosmosContainers.ensureExists(
            cosmos, "shipping", azure.uniqueName("shipments"), "/shipmentId");
    bus = new ServiceBusClientBuilder().connectionString(azure.serviceBusConnectionString());
    sender = bus.sender().queueName(queue).buildClient();
  }

  @AfterEach
  void close() {
    if (worker != null) {
      worker.close();
    }
    sender.close();
    cosmos.close();
  }

  private void startWorker(java.util.function.Consumer<IdempotentWorker.Builder> more) {
    IdempotentWorker.Builder builder =
        Shipments.worker(
                new ServiceBusConnection.ConnectionString(azure.serviceBusConnectionString()),
                queue,
                shipments,
                "shipment-events")
            .observer(outcomes)
            .clock(clock);
    more.accept(builder);
    worker = builder.build();
    worker.start();
  }

  private void startWorker() {
    startWorker(builder -> {});
  }

  @Test
  void theSameShipmentSentTwice_isCreatedOnce_andAnnouncedOnce() {
    startWorker();
    String id = azure.uniqueName("shp");

    send("ShipmentCreated", id, created(id, "Rotterdam"));
    send("ShipmentCreated", id, created(id, "Rotterdam"));

    List<Finished> finished = outcomes.await(2);
    assertThat(finished).extracting(f -> f.outcome().getClass().getSimpleName())
        .containsExactlyInAnyOrder("Processed", "Duplicate");
    assertThat(documents(id)).filteredOn(d -> d.path("type").asText().equals("shipment"))
        .singleElement()
        .satisfies(s -> assertThat(s.path("origin").asText()).isEqualTo("Rotterdam"));
    // and the relay publishes its event once, under an id derived from the key
    List<ServiceBusReceivedMessage> events = receiveEvents(id, 1);
    assertThat(events).singleElement().satisfies(e -> {
      assertThat(e.getMessageId())
          .isEqualTo(EventIds.of(Shipments.REGISTERED, new IdempotencyKey(id)));
      assertThat(e.getSubject()).isEqualTo(Shipments.REGISTERED);
      assertThat(e.getApplicationProperties()).containsEntry("shipmentId", id);
    });
  }

  @Test
  void aReusedKey_isDeadLetteredAsAConflict_andChangesNothing() {
    startWorker();
    String id = azure.uniqueName("shp");
    send("ShipmentCreated", id, created(id, "Rotterdam"));
    outcomes.await(1);

    send("ShipmentCreated", id, created(id, "Hamburg"));

    Finished conflict = outcomes.await(1).get(0);
    assertThat(conflict.outcome()).isInstanceOfSatisfying(
        Outcome.DeadLettered.class,
        d -> assertThat(d.reason().code()).isEqualTo("IdempotencyConflict"));
    assertThat(deadLetterReasons(1)).containsExactly("IdempotencyConflict");
    assertThat(shipment(id).path("origin").asText()).isEqualTo("Rotterdam");
  }

  @Test
  void scans_areAppendedOnceEach_throughRedeliveredCopies() {
    startWorker();
    String id = azure.uniqueName("shp");
    send("ShipmentCreated", id, created(id, "Rotterdam"));
    outcomes.await(1);

    send("ShipmentScanned", id + "-s1", scanned(id, id + "-s1", "Antwerp"));
    send("ShipmentScanned", id + "-s2", scanned(id, id + "-s2", "Lille"));
    send("ShipmentScanned", id + "-s1", scanned(id, id + "-s1", "Antwerp"));

    assertThat(outcomes.await(3)).extracting(f -> f.outcome().getClass().getSimpleName())
        .containsExactlyInAnyOrder("Processed", "Processed", "Duplicate");
    JsonNode shipment = shipment(id);
    assertThat(shipment.path("scanCount").asLong()).isEqualTo(2);
    assertThat(shipment.path("scans")).extracting(s -> s.path("location").asText())
        .containsExactlyInAnyOrder("Antwerp", "Lille");
  }

  @Test
  void anOlderDelivery_afterANewerOne_isStale() {
    startWorker();
    String id = azure.uniqueName("shp");
    send("ShipmentCreated", id, created(id, "Rotterdam"));
    outcomes.await(1);

    send("ShipmentDelivered", id + ":delivery:2", delivered(id, 2, "J. Doe"));
    outcomes.await(1);
    send("ShipmentDelivered", id + ":delivery:1", delivered(id, 1, "someone else"));

    assertThat(outcomes.await(1).get(0).outcome()).isInstanceOf(Outcome.Stale.class);
    JsonNode shipment = shipment(id);
    assertThat(shipment.path("signedBy").asText()).isEqualTo("J. Doe");
    assertThat(shipment.path("deliveryVersion").asLong()).isEqualTo(2);
  }

  @Test
  void aCrashBetweenTheWriteAndTheSettlement_leavesOneShipment_andTheCopyIsADuplicate() {
    // given a worker whose lock is gone right after its write committed, as after a crash there:
    // the settlement is refused and the broker delivers the message again
    AtomicBoolean crashed = new AtomicBoolean();
    startWorker(
        builder ->
            builder.storeListener(
                (operation, status, charge, latency) -> {
                  if (operation.equals("batch") && status == 200 && crashed.compareAndSet(false, true)) {
                    azure.serviceBus().faults().loseLocks(queue);
                  }
                }));
    String id = azure.uniqueName("shp");

    send("ShipmentCreated", id, created(id, "Rotterdam"));

    // then the first attempt wrote and could not settle; the redelivery is a duplicate
    List<Finished> finished = outcomes.await(2);
    assertThat(finished.get(0).outcome()).isInstanceOf(Outcome.Processed.class);
    assertThat(finished.get(0).settled()).isFalse();
    assertThat(finished.get(1).outcome()).isInstanceOfSatisfying(
        Outcome.Duplicate.class,
        d -> assertThat(d.source()).isEqualTo(DuplicateSource.REDELIVERY));
    assertThat(finished.get(1).settled()).isTrue();
    assertThat(documents(id)).filteredOn(d -> d.path("type").asText().equals("shipment"))
        .hasSize(1);
    assertThat(azure.serviceBus().messageCount(queue)).isZero();
  }

  @Test
  void aLockLostBeforeTheWrite_stopsTheAttempt_andTheRedeliveryAppliesTheScanOnce() {
    String id = azure.uniqueName("shp");
    // given the worker's clock jumping past the lock's end (and the lock gone) as the first scan
    // arrives: its lock fence must stop it before it writes
    AtomicBoolean lost = new AtomicBoolean();
    outcomes.onStart(
        message -> {
          if (message.subject().orElse("").equals("ShipmentScanned") && lost.compareAndSet(false, true)) {
            clock.shift(Duration.ofMinutes(10));
            azure.serviceBus().faults().loseLocks(queue);
          }
        });
    outcomes.onFinish(finished -> clock.shift(Duration.ZERO));
    // one call at a time: a redelivery handled while the clock is still moved would meet a lock it
    // only seems to have lost, leave it unsettled, and wait out the whole lock duration
    startWorker(builder -> builder.maxConcurrentCalls(1));
    send("ShipmentCreated", id, created(id, "Rotterdam"));
    outcomes.await(1);

    send("ShipmentScanned", id + "-s1", scanned(id, id + "-s1", "Antwerp"));

    // then the fenced attempt ends LOCK_LOST, every attempt before the one that applies it too
    // (a redelivery may meet the lost lock again), and the scan is applied exactly once
    List<Finished> finished =
        outcomes.awaitUntil(f -> f.outcome() instanceof Outcome.Processed);
    assertThat(finished).hasSizeGreaterThanOrEqualTo(2);
    assertThat(finished.subList(0, finished.size() - 1))
        .allSatisfy(
            f ->
                assertThat(f.outcome())
                    .isInstanceOfSatisfying(
                        Outcome.Retry.class,
                        r -> assertThat(r.cause()).isEqualTo(Outcome.RetryCause.LOCK_LOST)));
    assertThat(shipment(id).path("scanCount").asLong()).isEqualTo(1);
  }

  @Test
  void aContainerWithoutTtl_isRefusedAtStartUp_namingTheFix() {
    CosmosContainer noTtl = cosmos.getDatabase("shipping").getContainer(azure.uniqueName("nottl"));
    cosmos
        .getDatabase("shipping")
        .createContainerIfNotExists(noTtl.getId(), "/shipmentId");

    IdempotentWorker.Builder builder =
        Shipments.worker(
            new ServiceBusConnection.ConnectionString(azure.serviceBusConnectionString()),
            queue,
            noTtl,
            "shipment-events");

    assertThat(org.assertj.core.api.Assertions.catchThrowable(builder::build))
        .isInstanceOfSatisfying(
            IdempotentWorker.StartupRefused.class,
            refused -> assertThat(refused.problems()).singleElement()
                .satisfies(p -> assertThat(p).contains("TTL off", "defaultTtl -1")));
  }

  @Test
  void aQueueThatRequiresSessions_underAPlainWorker_isReportedNotReady() throws Exception {
    String sessionQueue = azure.uniqueName("shipments-sessions");
    azure
        .serviceBus()
        .createQueue(
            io.idemworker.emulator.servicebus.QueueSettings.defaults(sessionQueue)
                .withRequiresSession(true));
    worker =
        Shipments.worker(
                new ServiceBusConnection.ConnectionString(azure.serviceBusConnectionString()),
                sessionQueue,
                shipments,
                "shipment-events")
            .build();

    worker.start();

    // the processor's first receive is refused; the worker says so instead of running on quietly
    // (polled as a readiness probe would poll it, within a bound)
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (worker.status().ready() && System.nanoTime() < deadline) {
      java.util.concurrent.locks.LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
    }
    assertThat(worker.status().ready()).isFalse();
    assertThat(worker.status().reason())
        .hasValueSatisfying(r -> assertThat(r).contains(sessionQueue, "requires sessions"));
  }

  private void send(String subject, String messageId, ObjectNode body) {
    sender.sendMessage(
        new ServiceBusMessage(body.toString())
            .setMessageId(messageId)
            .setSubject(subject)
            .setContentType("application/json"));
  }

  private static ObjectNode created(String id, String origin) {
    return JSON.createObjectNode()
        .put("shipmentId", id)
        .put("origin", origin)
        .put("destination", "Lyon")
        .put("createdAt", "2026-11-30T10:00:00Z");
  }

  private static ObjectNode scanned(String id, String scanId, String location) {
    return JSON.createObjectNode()
        .put("shipmentId", id)
        .put("scanId", scanId)
        .put("location", location)
        .put("scannedAt", "2026-12-01T08:00:00Z");
  }

  private static ObjectNode delivered(String id, long version, String signedBy) {
    return JSON.createObjectNode()
        .put("shipmentId", id)
        .put("version", version)
        .put("deliveredAt", "2026-12-02T16:00:00Z")
        .put("signedBy", signedBy);
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

  private List<String> deadLetterReasons(int expected) {
    try (ServiceBusReceiverClient dlq =
        bus.receiver()
            .queueName(queue)
            .subQueue(SubQueue.DEAD_LETTER_QUEUE)
            .receiveMode(ServiceBusReceiveMode.PEEK_LOCK)
            .buildClient()) {
      List<String> reasons = new ArrayList<>();
      dlq.receiveMessages(expected, WAIT)
          .forEach(m -> reasons.add(m.getDeadLetterReason()));
      return reasons;
    }
  }

  /** The subscription's events of one shipment, received until {@code expected} came (bounded). */
  private List<ServiceBusReceivedMessage> receiveEvents(String shipmentId, int expected) {
    try (ServiceBusReceiverClient audit =
        bus.receiver()
            .topicName("shipment-events")
            .subscriptionName("audit")
            .receiveMode(ServiceBusReceiveMode.RECEIVE_AND_DELETE)
            .buildClient()) {
      List<ServiceBusReceivedMessage> mine = new ArrayList<>();
      long deadline = System.nanoTime() + WAIT.toNanos();
      while (mine.size() < expected && System.nanoTime() < deadline) {
        audit.receiveMessages(10, Duration.ofSeconds(2)).stream()
            .filter(m -> shipmentId.equals(m.getApplicationProperties().get("shipmentId")))
            .forEach(mine::add);
      }
      return mine;
    }
  }

  /** One delivery's end, as the worker reported it. */
  record Finished(Outcome outcome, boolean settled) {}

  /** Records outcomes in the order they finish; tests wait on them with a bound. */
  static final class Recorder implements DeliveryObserver {
    private final BlockingQueue<Finished> finished = new LinkedBlockingQueue<>();
    private final AtomicReference<java.util.function.Consumer<io.idemworker.core.IncomingMessage>>
        onStart = new AtomicReference<>(m -> {});
    private final AtomicReference<java.util.function.Consumer<Finished>> onFinish =
        new AtomicReference<>(f -> {});

    void onStart(java.util.function.Consumer<io.idemworker.core.IncomingMessage> hook) {
      onStart.set(hook);
    }

    void onFinish(java.util.function.Consumer<Finished> hook) {
      onFinish.set(hook);
    }

    @Override
    public Observation start(io.idemworker.core.IncomingMessage message) {
      onStart.get().accept(message);
      return (outcome, elapsed, settled) -> {
        Finished done = new Finished(outcome, settled);
        onFinish.get().accept(done);
        finished.add(done);
      };
    }

    /** The outcomes up to and including the first that {@code last} accepts, within the bound. */
    List<Finished> awaitUntil(java.util.function.Predicate<Finished> last) {
      List<Finished> got = new ArrayList<>();
      long deadline = System.nanoTime() + WAIT.toNanos();
      try {
        while (got.isEmpty() || !last.test(got.get(got.size() - 1))) {
          Finished next =
              finished.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
          assertThat(next).as("outcome %d within %s", got.size() + 1, WAIT).isNotNull();
          got.add(next);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
      return got;
    }

    List<Finished> await(int count) {
      List<Finished> got = new ArrayList<>();
      long deadline = System.nanoTime() + WAIT.toNanos();
      try {
        while (got.size() < count) {
          Finished next =
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

  /** The system clock, shifted when a test says so: a lock's end passes without waiting for it. */
  static final class ShiftableClock extends Clock {
    private volatile Duration shift = Duration.ZERO;

    void shift(Duration by) {
      this.shift = by;
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return Instant.now().plus(shift);
    }
  }
}
