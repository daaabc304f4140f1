package io.idemworker.servicebus;

import static io.idemworker.testing.RecordingObserver.is;
import static org.assertj.core.api.Assertions.assertThat;

import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.models.PartitionKey;
import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.core.EffectStore;
import io.idemworker.core.IncomingMessage;
import io.idemworker.core.MessageDecoder;
import io.idemworker.core.Outcome;
import io.idemworker.core.TestFlow;
import io.idemworker.cosmos.CosmosEffectStore;
import io.idemworker.emulator.junit.AzureEmulators;
import io.idemworker.emulator.junit.Emulators;
import io.idemworker.emulator.payments.PaymentProviderEmulator;
import io.idemworker.emulator.payments.PaymentStats;
import io.idemworker.emulator.servicebus.QueueSettings;
import io.idemworker.emulator.servicebus.ServiceBusEmulator;
import io.idemworker.orders.OrderDocumentIds;
import io.idemworker.orders.Orders;
import io.idemworker.orders.PaymentProvider;
import io.idemworker.payments.HttpPaymentProvider;
import io.idemworker.testing.EmulatorClients;
import io.idemworker.testing.FencingFixtures;
import io.idemworker.testing.OrderFlows;
import io.idemworker.testing.RecordingObserver;
import io.idemworker.testing.RecordingObserver.Finished;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What both worker modes promise, run against each (as {@code EffectStoreContract} is against each
 * store): through the real Service Bus and Cosmos DB clients and the payment provider over HTTP, a
 * message and its copy take effect once; a lock lost while the handler is at work (the broker
 * refuses its renewal) stops the handler before its provider call with {@code LOCK_LOST}, settling
 * nothing, and the redelivery captures once; a lease another attempt holds is waited out within the
 * same delivery. Each mode says how it is started, addresses a message, and counts a lost lock.
 */
@AzureEmulators(serviceBus = false)
public abstract class WorkerModeContract {
  static Emulators azure; // injected by @AzureEmulators
  protected static final Duration WAIT = Duration.ofSeconds(90);

  /**
   * Short, so the lock is renewed early (at half of it) and a refused renewal's lock ends soon;
   * longer than the provider call's timeout plus the 2 s margin, so a healthy delivery may call.
   */
  private static final Duration LOCK = Duration.ofSeconds(6);

  private static final Duration CALL_TIMEOUT = Duration.ofSeconds(1);
  private static final String QUEUE = "orders-contract";

  /** A queue whose lock outlasts any pause a loaded machine makes: for the lease test. */
  private static final String LONG_LOCK_QUEUE = "orders-contract-long-lock";

  protected final CosmosContainer container = EmulatorClients.orders(azure);
  protected final RecordingObserver observer = new RecordingObserver();
  private ServiceBusEmulator serviceBus;
  private PaymentProviderEmulator provider;
  private Running worker;

  /** A started worker of the mode under test. */
  protected interface Running {
    /** Stops it, waiting up to {@code timeout} for deliveries in flight. */
    void shutdown(Duration timeout);
  }

  /** The queue as the mode needs it (with or without sessions). */
  protected abstract QueueSettings queue(String name);

  /**
   * Starts a worker of the mode on {@code queue}, handling with {@code store} (perhaps wrapped) and
   * settling state with {@code cosmos}, one delivery or session at a time.
   */
  protected abstract Running start(
      ServiceBusConnection connection,
      String queue,
      MessageDecoder decoder,
      EffectStore store,
      CosmosEffectStore cosmos,
      RecordingObserver observer);

  /** The message as the mode's queue takes it (in session mode, in the order's session). */
  protected abstract ServiceBusMessage address(ServiceBusMessage message, String orderId);

  /** Makes the broker refuse the next renewal of the lock the mode holds (message or session). */
  protected abstract void refuseNextRenewal(ServiceBusEmulator serviceBus, String queue);

  /** How many renewals of that kind the broker refused. */
  protected abstract long refusedRenewals(ServiceBusEmulator serviceBus);

  /** The locks the mode counted as lost, when it counts them. */
  protected abstract OptionalLong locksLostCounted();

  @BeforeEach
  void startEmulators() {
    serviceBus =
        ServiceBusEmulator.builder()
            .port(0)
            .queue(queue(QUEUE).withMaxDeliveryCount(10).withLockDuration(LOCK))
            .queue(
                queue(LONG_LOCK_QUEUE)
                    .withMaxDeliveryCount(10)
                    .withLockDuration(Duration.ofSeconds(60)))
            .start();
    provider = PaymentProviderEmulator.builder().port(0).start();
  }

  @AfterEach
  void stopAll() {
    if (worker != null) {
      worker.shutdown(Duration.ofSeconds(10));
    }
    provider.close();
    serviceBus.close();
  }

  private MessageDecoder decoder(PaymentProvider payments, Duration leaseCeiling) {
    return OrderFlows.withPayments(payments, leaseCeiling, CALL_TIMEOUT);
  }

  private CosmosEffectStore cosmos() {
    return new CosmosEffectStore(
        container, (o, s, c, l) -> {}, OrderDocumentIds.PARTITION_KEY_PATH);
  }

  private void startWorker(String queue, EffectStore store, Duration leaseCeiling) {
    worker =
        start(
            new ServiceBusConnection.ConnectionString(serviceBus.connectionString()),
            queue,
            decoder(
                new HttpPaymentProvider(provider.baseUrl(), provider.apiKey(), CALL_TIMEOUT),
                leaseCeiling),
            store,
            cosmos(),
            observer);
  }

  private void send(String queue, IncomingMessage message, String orderId) {
    ServiceBusMessage out =
        new ServiceBusMessage(message.body())
            .setMessageId(message.messageId().orElseThrow())
            .setContentType("application/json");
    message.subject().ifPresent(out::setSubject);
    try (ServiceBusSenderClient sender =
        new ServiceBusClientBuilder()
            .connectionString(serviceBus.connectionString())
            .sender()
            .queueName(queue)
            .buildClient()) {
      sender.sendMessage(address(out, orderId));
    }
  }

  /**
   * The provider executed one capture, and every other request it had was a replay of it (a call
   * whose answer came after the call's timeout on a loaded machine is asked again, under the same
   * key, and costs a replay, never a second capture).
   */
  private void assertCapturedOnce() {
    PaymentStats stats = provider.stats();
    assertThat(stats.executed()).as("captures executed").isEqualTo(1);
    assertThat(stats.requests())
        .as("requests: the capture and replays")
        .isEqualTo(1 + stats.replays());
  }

  private ObjectNode paymentRecord(String orderId) {
    return container
        .readItem("payment:pr-" + orderId, new PartitionKey(orderId), ObjectNode.class)
        .getItem();
  }

  @Test
  void aPaymentAndItsCopy_captureOnce_andTheCopyIsCompletedAsADuplicate() {
    String orderId = FencingFixtures.placedOrder(container);
    startWorker(QUEUE, cosmos(), Duration.ofSeconds(30));

    send(QUEUE, Orders.payment(orderId, "pr-" + orderId, "10.00", "EUR"), orderId);
    observer.await(1, is(Outcome.Processed.class), WAIT);
    send(QUEUE, Orders.payment(orderId, "pr-" + orderId, "10.00", "EUR"), orderId);

    Finished copy = observer.await(1, is(Outcome.Duplicate.class), WAIT).get(0);
    assertThat(copy.settled()).isTrue();
    assertCapturedOnce();
    assertThat(paymentRecord(orderId).path("status").asText()).isEqualTo("Completed");
    assertThat(serviceBus.messageCount(QUEUE)).isZero();
  }

  @Test
  void renewalRefusedMidHandler_noProviderCallAfterIt_outcomeLockLost_thenCapturedOnce()
      throws Exception {
    // given an order, a payment request for it, and a handler stalled at its first write (the
    // claim)
    String orderId = FencingFixtures.placedOrder(container);
    CountDownLatch atFirstWrite = new CountDownLatch(1);
    CountDownLatch goOn = new CountDownLatch(1);
    startWorker(
        QUEUE,
        FencingFixtures.stallingAtFirstWrite(cosmos(), atFirstWrite, goOn, WAIT),
        Duration.ofSeconds(30));
    send(QUEUE, Orders.payment(orderId, "pr-" + orderId, "10.00", "EUR"), orderId);
    assertThat(atFirstWrite.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();

    // when the next renewal of the lock is refused while the handler is held
    refuseNextRenewal(serviceBus, QUEUE);
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (refusedRenewals(serviceBus) == 0 && System.nanoTime() < deadline) {
      // A bounded wait for the worker's own renewal, which it schedules by the lock's end.
      TimeUnit.MILLISECONDS.sleep(20);
    }
    assertThat(refusedRenewals(serviceBus)).as("renewals refused").isEqualTo(1);
    goOn.countDown();

    // then the handler stops before the provider call, settles nothing, and says why
    Finished lost = observer.await(1, f -> FencingFixtures.isLockLost(f.outcome()), WAIT).get(0);
    assertThat(lost.settled()).isFalse();
    assertThat(lost.message().deliveryCount())
        .as(() -> "the first attempt's; every attempt: " + observer.finished())
        .isZero();
    assertThat(((Outcome.Retry) lost.outcome()).description()).contains("before the call");
    assertThat(provider.stats().requests()).isZero();
    locksLostCounted().ifPresent(n -> assertThat(n).as("locks counted as lost").isEqualTo(1));

    // and the redelivery (its lease ended with the lost lock) takes over and captures once
    Finished done = observer.await(1, is(Outcome.Processed.class), WAIT).get(0);
    assertThat(done.message().deliveryCount()).isPositive();
    assertCapturedOnce();
    ObjectNode record = paymentRecord(orderId);
    assertThat(record.path("status").asText()).isEqualTo("Completed");
    assertThat(record.path("attempt").asLong()).isGreaterThanOrEqualTo(2);
    locksLostCounted().ifPresent(n -> assertThat(n).as("locks counted as lost").isEqualTo(1));
  }

  @Test
  void leaseHeldElsewhere_isWaitedOutAndHandledAgainInTheSameDelivery() {
    // given an order whose payment request another attempt claimed, and left with 4 s of lease
    String orderId = FencingFixtures.placedOrder(container);
    String requestId = "pr-" + orderId;
    CosmosEffectStore cosmos = cosmos();
    Duration ceiling = Duration.ofSeconds(4);
    Outcome stalled =
        TestFlow.of(
                decoder(
                    (key, order, amount, currency) -> {
                      throw new IllegalStateException("this attempt dies in its call");
                    },
                    ceiling),
                cosmos)
            .build()
            .handle(Orders.payment(orderId, requestId, "10.00", "EUR"));
    assertThat(stalled).isInstanceOf(Outcome.Retry.class);

    // when the same request arrives through Service Bus
    startWorker(LONG_LOCK_QUEUE, cosmos, ceiling);
    send(LONG_LOCK_QUEUE, Orders.payment(orderId, requestId, "10.00", "EUR"), orderId);

    // then its one delivery waits the lease out under the renewed lock, takes over and captures:
    // no delivery is spent
    Finished done = observer.await(1, is(Outcome.Processed.class), WAIT).get(0);
    assertThat(done.message().deliveryCount()).isZero();
    assertThat(observer.finished()).hasSize(1);
    assertCapturedOnce();
  }
}
