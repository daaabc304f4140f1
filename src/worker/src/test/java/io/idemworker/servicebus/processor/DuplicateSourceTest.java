package io.idemworker.servicebus.processor;

import static io.idemworker.testing.RecordingObserver.is;
import static org.assertj.core.api.Assertions.assertThat;

import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.models.PartitionKey;
import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusReceiverClient;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import com.azure.messaging.servicebus.models.DeadLetterOptions;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.app.OrderMessages;
import io.idemworker.core.Change;
import io.idemworker.core.DuplicateSource;
import io.idemworker.core.EffectStore;
import io.idemworker.core.Fingerprint;
import io.idemworker.core.IdempotencyKey;
import io.idemworker.core.MessageDecoder;
import io.idemworker.core.Outcome;
import io.idemworker.core.StoreFaults;
import io.idemworker.core.TestFlow;
import io.idemworker.cosmos.CosmosEffectStore;
import io.idemworker.emulator.junit.AzureEmulators;
import io.idemworker.emulator.junit.Emulators;
import io.idemworker.emulator.servicebus.QueueSettings;
import io.idemworker.emulator.servicebus.ServiceBusEmulator;
import io.idemworker.orders.OrderDecoder;
import io.idemworker.orders.OrderDocumentIds;
import io.idemworker.orders.Orders;
import io.idemworker.servicebus.ProcessorSettings;
import io.idemworker.servicebus.ServiceBusConnection;
import io.idemworker.servicebus.deadletter.DeadLetterResubmitter;
import io.idemworker.testing.EmulatorClients;
import io.idemworker.testing.MutableClock;
import io.idemworker.testing.RecordingObserver;
import io.idemworker.testing.RecordingObserver.Finished;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Each way a copy of an order can come back, through the real Service Bus and Cosmos DB clients
 * against the emulators: the duplicate's outcome names its source, told from the stamp the first
 * delivery left on the order ({@code writtenBy}). The relay's re-publish is in {@code
 * TopicConsumersTest}.
 */
@AzureEmulators(serviceBus = false)
class DuplicateSourceTest {
  static Emulators azure; // injected by @AzureEmulators
  private static final Duration WAIT = Duration.ofSeconds(60);

  private static final Duration LOCK = Duration.ofSeconds(30);
  private static final String QUEUE = "orders";

  /** The broker's clock: a resend is a copy enqueued after the writer's lock ended. */
  private final MutableClock brokerClock = new MutableClock();

  private final CosmosContainer container = EmulatorClients.orders(azure);
  private final List<ServiceBusWorker> workers = new ArrayList<>();
  private final RecordingObserver observer = new RecordingObserver();
  private ServiceBusEmulator serviceBus;
  private ServiceBusSenderClient sender;

  @BeforeEach
  void startBroker() {
    serviceBus =
        ServiceBusEmulator.builder()
            .port(0)
            .clock(brokerClock)
            .queue(QueueSettings.defaults(QUEUE).withMaxDeliveryCount(10).withLockDuration(LOCK))
            .start();
    sender = client().sender().queueName(QUEUE).buildClient();
  }

  @AfterEach
  void stopEverything() {
    workers.forEach(worker -> worker.shutdown(Duration.ofSeconds(10)));
    sender.close();
    serviceBus.close();
  }

  private ServiceBusClientBuilder client() {
    return new ServiceBusClientBuilder().connectionString(serviceBus.connectionString());
  }

  private void startWorker(EffectStore store) {
    startWorker(store, new OrderDecoder(true));
  }

  private void startWorker(EffectStore store, MessageDecoder decoder) {
    startWorker(store, decoder, Clock.systemUTC());
  }

  private void startWorker(EffectStore store, MessageDecoder decoder, Clock handlerClock) {
    CosmosEffectStore probe =
        new CosmosEffectStore(container, (o, s, c, l) -> {}, OrderDocumentIds.PARTITION_KEY_PATH);
    ServiceBusWorker worker =
        new ServiceBusWorker(
            new ServiceBusConnection.ConnectionString(serviceBus.connectionString()),
            ProcessorSettings.defaults(QUEUE)
                .withMaxConcurrentCalls(4)
                .withMaxRetryBackoff(Duration.ofMillis(50))
                .withProbeInterval(Duration.ofMillis(200)),
            TestFlow.of(decoder, store).clock(handlerClock).build(),
            probe,
            observer,
            Clock.systemUTC());
    workers.add(worker);
    worker.start();
  }

  private void startWorker() {
    startWorker(
        new CosmosEffectStore(container, (o, s, c, l) -> {}, OrderDocumentIds.PARTITION_KEY_PATH));
  }

  private static String newOrderId() {
    return "ord-" + UUID.randomUUID().toString().substring(0, 13);
  }

  private void send(String orderId) {
    sender.sendMessage(
        OrderMessages.orderPlaced(orderId, Orders.body(orderId, "cust-42"), "corr-" + orderId));
  }

  private DuplicateSource sourceOfTheDuplicate() {
    List<Finished> duplicates = observer.await(1, is(Outcome.Duplicate.class), WAIT);
    assertThat(duplicates.get(0).settled()).isTrue();
    return ((Outcome.Duplicate) duplicates.get(0).outcome()).source();
  }

  private JsonNode writtenBy(String orderId) {
    return container
        .readItem(orderId, new PartitionKey(orderId), ObjectNode.class)
        .getItem()
        .get("writtenBy");
  }

  @Test
  void copySentAfterTheOrderWasWritten_isAResend() {
    startWorker();
    String orderId = newOrderId();
    send(orderId);
    observer.await(1, is(Outcome.Processed.class), WAIT);
    brokerClock.advance(LOCK.plusSeconds(1));

    send(orderId);

    assertThat(sourceOfTheDuplicate()).isEqualTo(DuplicateSource.RESEND);
    JsonNode stamp = writtenBy(orderId);
    assertThat(stamp.path("dc").asLong()).isZero();
    assertThat(stamp.path("seq").canConvertToLong()).isTrue();
    assertThat(stamp.has("via")).as("an ordinary send is not named").isFalse();
  }

  /** How long each concurrent copy's handler works (on its clock) before it plans its write. */
  private static final Duration WORK = Duration.ofMillis(200);

  @Test
  void twoCopiesBothReceivedBeforeEitherWrote_areConcurrent() {
    // Each copy's handler, once it has started, waits (bounded) for the other's before it plans
    // its write, so both were received before the order existed.
    CountDownLatch bothHandling = new CountDownLatch(2);
    MutableClock handlerClock = new MutableClock();
    MessageDecoder orders = new OrderDecoder(true);
    MessageDecoder meeting =
        message -> {
          MessageDecoder.Decoding decoding = orders.decode(message);
          if (!(decoding instanceof MessageDecoder.Valid valid)) {
            return decoding;
          }
          MessageDecoder.ValidMessage inner = valid.message();
          return new MessageDecoder.Valid(
              new MessageDecoder.ValidMessage() {
                @Override
                public String entityId() {
                  return inner.entityId();
                }

                @Override
                public ObjectNode immutableFields() {
                  return inner.immutableFields();
                }

                @Override
                public Change change(
                    IdempotencyKey key, Fingerprint fingerprint, Instant acceptedAt) {
                  bothHandling.countDown();
                  try {
                    bothHandling.await(30, TimeUnit.SECONDS);
                    // The handler's work, after both copies are in, on the handlers' own clock:
                    // the write then follows the second receipt by far more than the few
                    // milliseconds a delivery can wait in the client before its handler starts,
                    // which the writer's stamp does not count (docs/operations.md, duplicates by
                    // source).
                    handlerClock.advance(WORK);
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                  return inner.change(key, fingerprint, acceptedAt);
                }
              });
        };
    startWorker(
        new CosmosEffectStore(container, (o, s, c, l) -> {}, OrderDocumentIds.PARTITION_KEY_PATH),
        meeting,
        handlerClock);
    String orderId = newOrderId();

    send(orderId);
    send(orderId);

    assertThat(sourceOfTheDuplicate()).isEqualTo(DuplicateSource.CONCURRENT);
    assertThat(bothHandling.getCount()).isZero();
    assertThat(observer.await(1, is(Outcome.Processed.class), WAIT)).hasSize(1);
  }

  @Test
  void lockLostAfterTheCommit_redeliveryIsARedelivery() {
    CosmosEffectStore cosmos =
        new CosmosEffectStore(container, (o, s, c, l) -> {}, OrderDocumentIds.PARTITION_KEY_PATH);
    startWorker(StoreFaults.afterFirstCommit(cosmos, () -> serviceBus.faults().loseLocks(QUEUE)));
    String orderId = newOrderId();

    send(orderId);

    assertThat(sourceOfTheDuplicate()).isEqualTo(DuplicateSource.REDELIVERY);
  }

  @Test
  void copyResubmittedFromTheDeadLetterQueue_isAResubmission() {
    // given a copy dead-lettered by hand, and the order processed from another copy
    String orderId = newOrderId();
    send(orderId);
    try (ServiceBusReceiverClient receiver = client().receiver().queueName(QUEUE).buildClient()) {
      ServiceBusReceivedMessage copy = receiver.receiveMessages(1, WAIT).iterator().next();
      receiver.deadLetter(
          copy,
          new DeadLetterOptions()
              .setDeadLetterReason("ParkedByOperator")
              .setDeadLetterErrorDescription("parked for the test"));
    }
    startWorker();
    send(orderId);
    observer.await(1, is(Outcome.Processed.class), WAIT);

    // when an operator resubmits it
    List<DeadLetterResubmitter.Entry> entries =
        new DeadLetterResubmitter(
                new ServiceBusConnection.ConnectionString(serviceBus.connectionString()), QUEUE)
            .resubmit(Set.of("ParkedByOperator"), 10, false, Duration.ofSeconds(3));

    // then it is completed as a duplicate that names the resubmission
    assertThat(entries).filteredOn(DeadLetterResubmitter.Entry::resubmitted).hasSize(1);
    assertThat(sourceOfTheDuplicate()).isEqualTo(DuplicateSource.RESUBMIT);
  }
}
