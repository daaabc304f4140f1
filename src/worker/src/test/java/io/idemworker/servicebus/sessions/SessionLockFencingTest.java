package io.idemworker.servicebus.sessions;

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
import io.idemworker.emulator.payments.PaymentProviderEmulator;
import io.idemworker.emulator.servicebus.QueueSettings;
import io.idemworker.emulator.servicebus.ServiceBusEmulator;
import io.idemworker.orders.InboxMarkers;
import io.idemworker.orders.OrderDocumentIds;
import io.idemworker.orders.OrderMessageTypes;
import io.idemworker.orders.Orders;
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
 * Fencing by the session lock in session mode, through the real Service Bus session receiver and
 * Cosmos DB client and the provider over HTTP: the emulator refuses the worker's renewal of the
 * session lock while the handler of a payment is at work, and the handler stops before its provider
 * call with {@code LOCK_LOST}, settling nothing; the session is released, and when it is accepted
 * again the redelivery takes the claim over (its lease ended with the lost lock) and captures once.
 */
class SessionLockFencingTest {
  private static final Duration WAIT = Duration.ofSeconds(90);

  /**
   * Short, so the worker renews early (at half of it) and the refused renewal comes soon; longer
   * than the provider call's timeout plus the 2 s margin, so a healthy delivery may call.
   */
  private static final Duration LOCK = Duration.ofSeconds(6);

  private static final Duration CALL_TIMEOUT = Duration.ofSeconds(1);
  private static final String QUEUE = "orders-by-session";

  /** A session queue whose lock outlasts any pause a loaded machine makes: for the lease test. */
  private static final String LONG_LOCK_QUEUE = "orders-by-session-long-lock";

  private final CosmosContainer container = Emulators.orders();
  private final RecordingObserver observer = new RecordingObserver();
  private final SessionEvents events = new SessionEvents();
  private ServiceBusEmulator serviceBus;
  private PaymentProviderEmulator provider;
  private SessionWorker worker;
  private ServiceBusSenderClient sender;

  @BeforeEach
  void start() {
    serviceBus =
        ServiceBusEmulator.builder()
            .port(0)
            .queue(
                QueueSettings.defaults(QUEUE)
                    .withRequiresSession(true)
                    .withMaxDeliveryCount(10)
                    .withLockDuration(LOCK))
            .queue(
                QueueSettings.defaults(LONG_LOCK_QUEUE)
                    .withRequiresSession(true)
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

  private void startWorker(EffectStore store) {
    startWorker(QUEUE, store, Duration.ofSeconds(30));
  }

  private void startWorker(String queue, EffectStore store, Duration leaseCeiling) {
    MessageDecoder decoder =
        OrderMessageTypes.decoder(
            true,
            new InboxMarkers("orders", Optional.of(Duration.ofDays(14))),
            Optional.of(
                new OrderMessageTypes.Payments(
                    new HttpPaymentProvider(provider.baseUrl(), provider.apiKey(), CALL_TIMEOUT),
                    leaseCeiling,
                    CALL_TIMEOUT)));
    CosmosEffectStore cosmos =
        new CosmosEffectStore(container, (o, s, c, l) -> {}, OrderDocumentIds.PARTITION_KEY_PATH);
    worker =
        new SessionWorker(
            new ServiceBusConnection.ConnectionString(serviceBus.connectionString()),
            ProcessorSettings.defaults(queue)
                .withMaxRetryBackoff(Duration.ofMillis(50))
                .withProbeInterval(Duration.ofMillis(200)),
            SessionSettings.defaults().withMaxConcurrentSessions(1),
            TestFlow.of(decoder, store).build(),
            decoder,
            cosmos,
            cosmos,
            observer,
            events,
            Clock.systemUTC());
    worker.start();
  }

  private static ServiceBusMessage inSession(IncomingMessage message, String sessionId) {
    ServiceBusMessage out =
        new ServiceBusMessage(message.body())
            .setMessageId(message.messageId().orElseThrow())
            .setContentType("application/json")
            .setSessionId(sessionId);
    message.subject().ifPresent(out::setSubject);
    return out;
  }

  private void awaitRefusedSessionRenewal() throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (serviceBus.faults().refusedSessionLockRenewals() == 0 && System.nanoTime() < deadline) {
      // A bounded wait for the worker's own renewal, which it schedules by the lock's end.
      TimeUnit.MILLISECONDS.sleep(20);
    }
    assertThat(serviceBus.faults().refusedSessionLockRenewals())
        .as("session renewals refused")
        .isEqualTo(1);
  }

  @Test
  void sessionRenewalRefusedMidHandler_noProviderCall_outcomeLockLost_thenCapturedOnce()
      throws Exception {
    // given an order, a payment request for it in the order's session, and a handler stalled at
    // its first write (the claim)
    String orderId = FencingFixtures.placedOrder(container);
    CountDownLatch atFirstWrite = new CountDownLatch(1);
    CountDownLatch goOn = new CountDownLatch(1);
    startWorker(
        FencingFixtures.stallingAtFirstWrite(
            new CosmosEffectStore(
                container, (o, s, c, l) -> {}, OrderDocumentIds.PARTITION_KEY_PATH),
            atFirstWrite,
            goOn,
            WAIT));
    sender.sendMessage(
        inSession(Orders.payment(orderId, "pr-" + orderId, "10.00", "EUR"), orderId));
    assertThat(atFirstWrite.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();

    // when the worker's next renewal of the session lock is refused while the handler is held
    serviceBus.faults().refuseSessionLockRenewals(QUEUE, 1);
    awaitRefusedSessionRenewal();
    goOn.countDown();

    // then the handler stops before the provider call, settles nothing, and says why
    Finished lost = observer.await(1, f -> FencingFixtures.isLockLost(f.outcome()), WAIT).get(0);
    assertThat(lost.settled()).isFalse();
    assertThat(lost.message().deliveryCount()).isZero();
    assertThat(((Outcome.Retry) lost.outcome()).description()).contains("before the call");
    assertThat(provider.stats().requests()).isZero();
    assertThat(events.locksLostCount()).isEqualTo(1);

    // and the session, accepted again, redelivers it: it takes the claim over and captures once
    Finished done = observer.await(1, is(Outcome.Processed.class), WAIT).get(0);
    assertThat(done.message().deliveryCount()).isPositive();
    assertThat(provider.stats().requests()).isEqualTo(1);
    ObjectNode record =
        container
            .readItem("payment:pr-" + orderId, new PartitionKey(orderId), ObjectNode.class)
            .getItem();
    assertThat(record.path("status").asText()).isEqualTo("Completed");
    assertThat(record.path("attempt").asLong()).isGreaterThanOrEqualTo(2);
    assertThat(events.locksLostCount()).isEqualTo(1);
  }

  @Test
  void leaseHeldElsewhere_isWaitedOutAndHandledAgainInTheSameSessionDelivery() {
    // given an order whose payment request another attempt claimed, and left with 4 s of lease
    String orderId = FencingFixtures.placedOrder(container);
    String requestId = "pr-" + orderId;
    CosmosEffectStore cosmos =
        new CosmosEffectStore(container, (o, s, c, l) -> {}, OrderDocumentIds.PARTITION_KEY_PATH);
    Duration ceiling = Duration.ofSeconds(4);
    Outcome stalled =
        TestFlow.of(
                OrderMessageTypes.decoder(
                    true,
                    new InboxMarkers("orders", Optional.of(Duration.ofDays(14))),
                    Optional.of(
                        new OrderMessageTypes.Payments(
                            (key, order, amount, currency) -> {
                              throw new IllegalStateException("this attempt dies in its call");
                            },
                            ceiling,
                            CALL_TIMEOUT))),
                cosmos)
            .build()
            .handle(Orders.payment(orderId, requestId, "10.00", "EUR"));
    assertThat(stalled).isInstanceOf(Outcome.Retry.class);

    // when the same request arrives in the order's session
    startWorker(LONG_LOCK_QUEUE, cosmos, ceiling);
    try (ServiceBusSenderClient longLock =
        new ServiceBusClientBuilder()
            .connectionString(serviceBus.connectionString())
            .sender()
            .queueName(LONG_LOCK_QUEUE)
            .buildClient()) {
      longLock.sendMessage(inSession(Orders.payment(orderId, requestId, "10.00", "EUR"), orderId));
    }

    // then its one delivery waits the lease out under the renewed session lock, takes over and
    // captures: no delivery is spent
    Finished done = observer.await(1, is(Outcome.Processed.class), WAIT).get(0);
    assertThat(done.message().deliveryCount()).isZero();
    assertThat(observer.finished()).hasSize(1);
    assertThat(provider.stats().requests()).isEqualTo(1);
  }
}
