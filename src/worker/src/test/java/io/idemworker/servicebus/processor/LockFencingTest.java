package io.idemworker.servicebus.processor;

import static io.idemworker.testing.RecordingObserver.is;
import static org.assertj.core.api.Assertions.assertThat;

import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.models.PartitionKey;
import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.core.EffectStore;
import io.idemworker.core.IdempotentConsumer;
import io.idemworker.core.IncomingMessage;
import io.idemworker.core.Outcome;
import io.idemworker.core.TestFlow;
import io.idemworker.cosmos.CosmosEffectStore;
import io.idemworker.emulator.payments.PaymentProviderEmulator;
import io.idemworker.emulator.servicebus.QueueSettings;
import io.idemworker.emulator.servicebus.ServiceBusEmulator;
import io.idemworker.orders.InboxMarkers;
import io.idemworker.orders.OrderDocumentIds;
import io.idemworker.orders.OrderMessageTypes;
import io.idemworker.orders.Orders;
import io.idemworker.orders.PaymentProvider;
import io.idemworker.payments.HttpPaymentProvider;
import io.idemworker.servicebus.ProcessorSettings;
import io.idemworker.servicebus.ServiceBusConnection;
import io.idemworker.testing.Emulators;
import io.idemworker.testing.FencingFixtures;
import io.idemworker.testing.RecordingObserver;
import io.idemworker.testing.RecordingObserver.Finished;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Fencing by the lock, through the real Service Bus and Cosmos DB clients and the provider over
 * HTTP: the Service Bus emulator refuses the processor's lock renewal while the handler is at work,
 * and the handler stops before its provider call with {@code LOCK_LOST}, settling nothing; the
 * redelivery takes the claim over (its lease ended with the lost lock) and captures once.
 */
class LockFencingTest {
  private static final Duration WAIT = Duration.ofSeconds(90);

  /**
   * Short, so the SDK renews early (at half of it) and the refused renewal's lock ends soon; longer
   * than the provider call's timeout plus the 2 s margin, so a healthy delivery may call.
   */
  private static final Duration LOCK = Duration.ofSeconds(6);

  private static final Duration CALL_TIMEOUT = Duration.ofSeconds(1);
  private static final String QUEUE = "orders";

  /** A queue whose lock outlasts any pause a loaded machine makes: for the lease test. */
  private static final String LONG_LOCK_QUEUE = "orders-long-lock";

  private final CosmosContainer container = Emulators.orders();
  private final RecordingObserver observer = new RecordingObserver();
  private ServiceBusEmulator serviceBus;
  private PaymentProviderEmulator provider;
  private ServiceBusWorker worker;
  private ServiceBusSenderClient sender;

  @BeforeEach
  void start() {
    serviceBus =
        ServiceBusEmulator.builder()
            .port(0)
            .queue(QueueSettings.defaults(QUEUE).withMaxDeliveryCount(10).withLockDuration(LOCK))
            .queue(
                QueueSettings.defaults(LONG_LOCK_QUEUE)
                    .withMaxDeliveryCount(10)
                    .withLockDuration(Duration.ofSeconds(60)))
            .start();
    provider = PaymentProviderEmulator.builder().port(0).start();
    sender =
        new ServiceBusClientBuilder()
            .connectionString(serviceBus.connectionString())
            .sender()
            .queueName(QUEUE)
            .buildClient();
  }

  @AfterEach
  void stop() {
    if (worker != null) {
      worker.shutdown(Duration.ofSeconds(10));
    }
    sender.close();
    provider.close();
    serviceBus.close();
  }

  private IdempotentConsumer consumer(
      EffectStore store, PaymentProvider payments, Duration leaseCeiling) {
    return TestFlow.of(
            OrderMessageTypes.decoder(
                true,
                new InboxMarkers("orders", Optional.of(Duration.ofDays(14))),
                Optional.of(new OrderMessageTypes.Payments(payments, leaseCeiling, CALL_TIMEOUT))),
            store)
        .build();
  }

  private PaymentProvider httpProvider() {
    return new HttpPaymentProvider(provider.baseUrl(), provider.apiKey(), CALL_TIMEOUT);
  }

  private void startWorker(EffectStore store) {
    startWorker(QUEUE, store, Duration.ofSeconds(30));
  }

  private void startWorker(String queue, EffectStore store, Duration leaseCeiling) {
    IdempotentConsumer consumer = consumer(store, httpProvider(), leaseCeiling);
    worker =
        new ServiceBusWorker(
            new ServiceBusConnection.ConnectionString(serviceBus.connectionString()),
            ProcessorSettings.defaults(queue)
                .withMaxConcurrentCalls(1)
                .withMaxRetryBackoff(Duration.ofMillis(50))
                .withProbeInterval(Duration.ofMillis(200)),
            consumer,
            new CosmosEffectStore(
                container, (o, s, c, l) -> {}, OrderDocumentIds.PARTITION_KEY_PATH),
            observer,
            Clock.systemUTC());
    worker.start();
  }

  private static ServiceBusMessage toServiceBus(IncomingMessage message) {
    ServiceBusMessage out =
        new ServiceBusMessage(message.body())
            .setMessageId(message.messageId().orElseThrow())
            .setContentType("application/json");
    message.subject().ifPresent(out::setSubject);
    return out;
  }

  private void awaitRefusedRenewal() throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (serviceBus.faults().refusedLockRenewals() == 0 && System.nanoTime() < deadline) {
      // A bounded wait for the processor's own renewal, which the SDK schedules by its clock.
      TimeUnit.MILLISECONDS.sleep(20);
    }
    assertThat(serviceBus.faults().refusedLockRenewals()).as("renewals refused").isEqualTo(1);
  }

  @Test
  void renewalRefusedMidHandler_noProviderCallAfterIt_outcomeLockLost_thenCapturedOnce()
      throws Exception {
    // given an order, a payment request for it, and a handler stalled at its first write
    String orderId = FencingFixtures.placedOrder(container);
    CosmosEffectStore cosmos =
        new CosmosEffectStore(container, (o, s, c, l) -> {}, OrderDocumentIds.PARTITION_KEY_PATH);
    CountDownLatch atFirstWrite = new CountDownLatch(1);
    CountDownLatch goOn = new CountDownLatch(1);
    startWorker(FencingFixtures.stallingAtFirstWrite(cosmos, atFirstWrite, goOn, WAIT));
    serviceBus.faults().refuseLockRenewals(QUEUE, 1);
    sender.sendMessage(toServiceBus(Orders.payment(orderId, "pr-" + orderId, "10.00", "EUR")));
    assertThat(atFirstWrite.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();

    // when the processor's renewal of the lock is refused while the handler is held
    awaitRefusedRenewal();
    goOn.countDown();

    // then the handler stops before the provider call, settles nothing, and says why
    Finished lost = observer.await(1, f -> FencingFixtures.isLockLost(f.outcome()), WAIT).get(0);
    assertThat(lost.settled()).isFalse();
    assertThat(lost.message().deliveryCount()).isZero();
    assertThat(((Outcome.Retry) lost.outcome()).description()).contains("before the call");
    assertThat(provider.stats().requests()).isZero();

    // and the redelivery (its lease ended with the lost lock) takes over and captures once
    observer.await(1, is(Outcome.Processed.class), WAIT);
    assertThat(provider.stats().requests()).isEqualTo(1);
    ObjectNode record =
        container
            .readItem("payment:pr-" + orderId, new PartitionKey(orderId), ObjectNode.class)
            .getItem();
    assertThat(record.path("status").asText()).isEqualTo("Completed");
    assertThat(record.path("attempt").asLong()).isGreaterThanOrEqualTo(2);
  }

  @Test
  void leaseHeldElsewhere_isWaitedOutAndHandledAgainInTheSameDelivery() {
    // given an order whose payment request another attempt claimed, and left with 4 s of lease
    String orderId = FencingFixtures.placedOrder(container);
    String requestId = "pr-" + orderId;
    CosmosEffectStore cosmos =
        new CosmosEffectStore(container, (o, s, c, l) -> {}, OrderDocumentIds.PARTITION_KEY_PATH);
    Duration ceiling = Duration.ofSeconds(4);
    Outcome stalled =
        consumer(
                cosmos,
                (key, order, amount, currency) -> {
                  throw new IllegalStateException("this attempt dies in its call");
                },
                ceiling)
            .handle(Orders.payment(orderId, requestId, "10.00", "EUR"));
    assertThat(stalled).isInstanceOf(Outcome.Retry.class);

    // when the same request arrives through Service Bus
    startWorker(LONG_LOCK_QUEUE, cosmos, ceiling);
    try (ServiceBusSenderClient longLock =
        new ServiceBusClientBuilder()
            .connectionString(serviceBus.connectionString())
            .sender()
            .queueName(LONG_LOCK_QUEUE)
            .buildClient()) {
      longLock.sendMessage(toServiceBus(Orders.payment(orderId, requestId, "10.00", "EUR")));
    }

    // then its one delivery waits the lease out, takes over and captures: no delivery is spent
    Finished done = observer.await(1, is(Outcome.Processed.class), WAIT).get(0);
    assertThat(done.message().deliveryCount()).isZero();
    assertThat(observer.finished()).hasSize(1);
    assertThat(provider.stats().requests()).isEqualTo(1);
  }
}
