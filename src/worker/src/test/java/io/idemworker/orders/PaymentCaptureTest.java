package io.idemworker.orders;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.core.DeadLetterReason;
import io.idemworker.core.DocumentPatch;
import io.idemworker.core.EffectStore;
import io.idemworker.core.ForwardingEffectStore;
import io.idemworker.core.IdempotentConsumer;
import io.idemworker.core.InMemoryEffectStore;
import io.idemworker.core.IncomingMessage;
import io.idemworker.core.Outcome;
import io.idemworker.core.StoreFailure;
import io.idemworker.core.TestFlow;
import io.idemworker.core.WriteSet;
import io.idemworker.emulator.payments.PaymentFaults;
import io.idemworker.emulator.payments.PaymentProviderEmulator;
import io.idemworker.testing.MutableClock;
import io.idemworker.testing.OrderFlows;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The two-phase payment capture through the real flow, the in-memory store and a real HTTP
 * connection to the provider double: one capture per payment request at the provider's ledger,
 * whatever crashes, ambiguous answers and concurrent copies do.
 */
class PaymentCaptureTest {
  private static final Duration LEASE = Duration.ofSeconds(30);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static PaymentProviderEmulator provider;

  private final MutableClock clock = new MutableClock(Instant.parse("2026-11-30T12:00:00Z"));
  private final InMemoryEffectStore store = new InMemoryEffectStore();
  private final AtomicBoolean failNextCompletion = new AtomicBoolean();
  private final AtomicBoolean crashAfterNextCall = new AtomicBoolean();
  private final AtomicBoolean dead = new AtomicBoolean();

  @BeforeAll
  static void startProvider() {
    provider = PaymentProviderEmulator.builder().port(0).start();
  }

  @AfterAll
  static void stopProvider() {
    provider.close();
  }

  @AfterEach
  void clearFaults() {
    provider.faults().clear();
  }

  private IdempotentConsumer consumer() {
    EffectStore crashing =
        new ForwardingEffectStore(store) {
          @Override
          public WriteResult apply(WriteSet writeSet) {
            boolean completion = writeSet.anchor().path("type").asText().equals("outbox");
            if (completion && crashAfterNextCall.compareAndSet(true, false)) {
              // The process dies after the provider call: nothing it would do next reaches the
              // store, its lease included.
              dead.set(true);
              return new Failed(new StoreFailure(StoreFailure.Kind.TRANSIENT, 0, "crash"));
            }
            if (completion && failNextCompletion.compareAndSet(true, false)) {
              return new Failed(new StoreFailure(StoreFailure.Kind.TRANSIENT, 503, "unavailable"));
            }
            return super.apply(writeSet);
          }

          @Override
          public UpdateResult update(String partitionKey, DocumentPatch patch) {
            if (dead.compareAndSet(true, false)) {
              return new Failed(new StoreFailure(StoreFailure.Kind.TRANSIENT, 0, "dead"));
            }
            return super.update(partitionKey, patch);
          }
        };
    return TestFlow.of(OrderFlows.withPayments(OrderFlows.http(provider), LEASE), crashing)
        .clock(clock)
        .build();
  }

  private String placed(String orderId) {
    assertThat(consumer().handle(Orders.order(orderId))).isInstanceOf(Outcome.Processed.class);
    return orderId;
  }

  private static JsonNode ledger(String orderId) throws Exception {
    HttpResponse<String> response =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(
                        URI.create(provider.baseUrl() + "/v1/captures?orderId=" + orderId))
                    .header("Authorization", "Bearer " + provider.apiKey())
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    JsonNode body = JSON.readTree(response.body());
    return body.isArray() ? body : body.path("data");
  }

  private ObjectNode document(String orderId, String id) {
    return store.document(orderId, id).orElseThrow();
  }

  @Test
  void newCapture_claimsCallsAndCompletesInTwoRoundTrips_andChargesOnce() throws Exception {
    String id = placed("pay-1");
    long before = store.roundTrips();

    Outcome outcome = consumer().handle(Orders.payment(id, "pr-1", "19.99", "EUR"));

    assertThat(outcome).isInstanceOf(Outcome.Processed.class);
    assertThat(store.roundTrips() - before).isEqualTo(2);
    ObjectNode record = document(id, "payment:pr-1");
    assertThat(record.get("status").asText()).isEqualTo("Completed");
    assertThat(record.at("/result/result").asText()).isEqualTo("captured");
    assertThat(document(id, id).get("amountPaidUnits").asLong()).isEqualTo(199_900);
    assertThat(document(id, id).get("paymentStatus").asText()).isEqualTo("captured");
    assertThat(ledger(id)).hasSize(1);
    assertThat(store.partition(id))
        .filteredOn(d -> d.path("eventType").asText().equals("PaymentCaptured"))
        .hasSize(1);
  }

  @Test
  void duplicateAfterCompletion_isTwoRoundTripsAndNeverCallsTheProvider() throws Exception {
    String id = placed("pay-2");
    consumer().handle(Orders.payment(id, "pr-2", "5", "EUR"));
    long requests = provider.stats().requests();
    long before = store.roundTrips();

    Outcome again = consumer().handle(Orders.payment(id, "pr-2", "5", "EUR"));

    assertThat(again).isInstanceOf(Outcome.Duplicate.class);
    assertThat(store.roundTrips() - before).isEqualTo(2);
    assertThat(provider.stats().requests()).isEqualTo(requests);
    assertThat(ledger(id)).hasSize(1);
  }

  @Test
  void crashBetweenCallAndCompletion_isTakenOverAfterTheLease_andTheProviderReplays()
      throws Exception {
    String id = placed("pay-3");
    crashAfterNextCall.set(true);
    IncomingMessage message = Orders.payment(id, "pr-3", "7.5", "EUR");

    Outcome crashed = consumer().handle(message);
    Outcome whileLeased = consumer().handle(message);
    clock.advance(LEASE.plusSeconds(1));
    long replaysBefore = provider.stats().replays();
    Outcome takenOver = consumer().handle(message);

    assertThat(crashed).isInstanceOf(Outcome.Retry.class);
    assertThat(whileLeased).isInstanceOf(Outcome.Retry.class);
    assertThat(((Outcome.Retry) whileLeased).description()).contains("holds the lease");
    assertThat(((Outcome.Retry) whileLeased).retryAfter()).contains(LEASE);
    assertThat(takenOver).isInstanceOf(Outcome.Processed.class);
    assertThat(provider.stats().replays()).isEqualTo(replaysBefore + 1);
    assertThat(document(id, "payment:pr-3").get("attempt").asLong()).isEqualTo(2);
    assertThat(document(id, id).get("amountPaidUnits").asLong()).isEqualTo(75_000);
    assertThat(ledger(id)).hasSize(1);
  }

  @Test
  void completionRefusedByTheStore_releasesTheLease_soTheRedeliveryTakesOverAtOnce()
      throws Exception {
    String id = placed("pay-3b");
    failNextCompletion.set(true);
    IncomingMessage message = Orders.payment(id, "pr-3b", "4", "EUR");

    Outcome failed = consumer().handle(message);
    Outcome retried = consumer().handle(message);

    assertThat(((Outcome.Retry) failed).cause()).isEqualTo(Outcome.RetryCause.TRANSIENT);
    assertThat(retried).isInstanceOf(Outcome.Processed.class);
    assertThat(document(id, "payment:pr-3b").get("attempt").asLong()).isEqualTo(2);
    assertThat(ledger(id)).hasSize(1);
  }

  @Test
  void ambiguousDrop_releasesTheLease_andTheRetryCompletesWithTheSameCapture() throws Exception {
    String id = placed("pay-4");
    provider.faults().applyThenDropConnection(PaymentFaults.Trigger.next(1));
    IncomingMessage message = Orders.payment(id, "pr-4", "3", "EUR");

    Outcome dropped = consumer().handle(message);
    Outcome retried = consumer().handle(message);

    assertThat(dropped).isInstanceOf(Outcome.Retry.class);
    assertThat(((Outcome.Retry) dropped).cause()).isEqualTo(Outcome.RetryCause.TRANSIENT);
    assertThat(retried).isInstanceOf(Outcome.Processed.class);
    assertThat(ledger(id)).hasSize(1);
    assertThat(document(id, id).get("amountPaidUnits").asLong()).isEqualTo(30_000);
  }

  @Test
  void failureBeforeTheProviderApplied_isRetriedAndChargesOnce() throws Exception {
    String id = placed("pay-5");
    provider.faults().failBeforeApply(PaymentFaults.Trigger.next(1));
    IncomingMessage message = Orders.payment(id, "pr-5", "3", "EUR");

    assertThat(consumer().handle(message)).isInstanceOf(Outcome.Retry.class);
    assertThat(consumer().handle(message)).isInstanceOf(Outcome.Processed.class);
    assertThat(ledger(id)).hasSize(1);
  }

  private static IncomingMessage tracedPayment(
      String orderId, String requestId, String amount, Map<String, Object> properties) {
    IncomingMessage plain = Orders.payment(orderId, requestId, amount, "EUR");
    return new IncomingMessage(
        plain.messageId(),
        Optional.of("corr-" + requestId),
        plain.subject(),
        plain.contentType(),
        properties,
        plain.body(),
        0);
  }

  private ObjectNode event(String orderId, String eventType) {
    return store.partition(orderId).stream()
        .filter(d -> d.path("eventType").asText().equals(eventType))
        .findFirst()
        .orElseThrow();
  }

  @Test
  void capturedAndDeclinedEvents_carryTheTraceContextAndCorrelationOfTheRequestThatCausedThem() {
    // given two payment requests sent inside traces, one captured and one declined
    String captured = placed("pay-trace-1");
    String declined = placed("pay-trace-2");
    String parentA = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    String parentB = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00";

    // when they are processed
    assertThat(
            consumer()
                .handle(
                    tracedPayment(
                        captured,
                        "pr-t1",
                        "12.00",
                        Map.of("traceparent", parentA, "tracestate", "vendor=abc,other=x1"))))
        .isInstanceOf(Outcome.Processed.class);
    assertThat(
            consumer()
                .handle(tracedPayment(declined, "pr-t2", "10.13", Map.of("traceparent", parentB))))
        .isInstanceOf(Outcome.Processed.class);

    // then each completion event carries its request's traceparent, tracestate and CorrelationId
    ObjectNode capturedEvent = event(captured, "PaymentCaptured");
    assertThat(capturedEvent.get("traceparent").asText()).isEqualTo(parentA);
    assertThat(capturedEvent.get("tracestate").asText()).isEqualTo("vendor=abc,other=x1");
    assertThat(capturedEvent.get("correlationId").asText()).isEqualTo("corr-pr-t1");
    ObjectNode declinedEvent = event(declined, "PaymentDeclined");
    assertThat(declinedEvent.get("traceparent").asText()).isEqualTo(parentB);
    assertThat(declinedEvent.has("tracestate")).isFalse();
    assertThat(declinedEvent.get("correlationId").asText()).isEqualTo("corr-pr-t2");
  }

  @Test
  void paymentRequestWithTheContextOnlyInDiagnosticId_orWithJunk_carriesTheValidContextOnly() {
    // given one request whose trace is only in Diagnostic-Id, one with a malformed traceparent
    String fromDiagnosticId = placed("pay-trace-3");
    String junk = placed("pay-trace-4");
    String parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    // when they are processed
    consumer()
        .handle(tracedPayment(fromDiagnosticId, "pr-t3", "3", Map.of("Diagnostic-Id", parent)));
    consumer()
        .handle(
            tracedPayment(
                junk, "pr-t4", "3", Map.of("traceparent", "not-a-trace", "tracestate", "a=b")));

    // then the first event joins the producer's trace, the second carries no trace context
    assertThat(event(fromDiagnosticId, "PaymentCaptured").get("traceparent").asText())
        .isEqualTo(parent);
    ObjectNode junkEvent = event(junk, "PaymentCaptured");
    assertThat(junkEvent.has("traceparent")).isFalse();
    assertThat(junkEvent.has("tracestate")).isFalse();
  }

  @Test
  void decline_isABusinessResult_completedNotDeadLettered() throws Exception {
    String id = placed("pay-6");

    Outcome outcome = consumer().handle(Orders.payment(id, "pr-6", "10.13", "EUR"));

    assertThat(outcome).isInstanceOf(Outcome.Processed.class);
    assertThat(document(id, "payment:pr-6").at("/result/result").asText()).isEqualTo("declined");
    assertThat(document(id, id).get("paymentStatus").asText()).isEqualTo("declined");
    assertThat(document(id, id).has("amountPaidUnits")).isFalse();
    assertThat(store.partition(id))
        .filteredOn(d -> d.path("eventType").asText().equals("PaymentDeclined"))
        .hasSize(1);
    assertThat(ledger(id))
        .singleElement()
        .satisfies(entry -> assertThat(entry.get("status").asText()).isEqualTo("declined"));
  }

  @Test
  void requestIdReusedForAnotherAmount_isAnIdempotencyConflictBeforeAnyCall() throws Exception {
    String id = placed("pay-7");
    consumer().handle(Orders.payment(id, "pr-7", "5", "EUR"));
    long requests = provider.stats().requests();

    Outcome reused = consumer().handle(Orders.payment(id, "pr-7", "6", "EUR"));

    assertThat(((Outcome.DeadLettered) reused).reason())
        .isEqualTo(DeadLetterReason.IDEMPOTENCY_CONFLICT);
    assertThat(((Outcome.DeadLettered) reused).description()).contains("amount");
    assertThat(provider.stats().requests()).isEqualTo(requests);
    assertThat(ledger(id)).hasSize(1);
  }

  @Test
  void paymentForAMissingOrderOrInAnotherCurrency_chargesNothing() throws Exception {
    String id = placed("pay-8");

    Outcome missing = consumer().handle(Orders.payment("pay-none", "pr-8a", "5", "EUR"));
    Outcome otherCurrency = consumer().handle(Orders.payment(id, "pr-8b", "5", "USD"));

    assertThat(((Outcome.Retry) missing).cause()).isEqualTo(Outcome.RetryCause.NOT_YET);
    assertThat(((Outcome.DeadLettered) otherCurrency).reason())
        .isEqualTo(OrderReasons.CURRENCY_MISMATCH);
    assertThat(ledger("pay-none")).isEmpty();
    assertThat(ledger(id)).isEmpty();
  }

  @Test
  void concurrentCopies_chargeExactlyOnce_andEveryCopyEndsOnceRetried() throws Exception {
    String id = placed("pay-9");
    IdempotentConsumer consumer = consumer();
    int copies = 6;
    ExecutorService pool = Executors.newFixedThreadPool(copies);
    CountDownLatch start = new CountDownLatch(1);
    try {
      List<Future<Outcome>> futures = new ArrayList<>();
      for (int i = 0; i < copies; i++) {
        futures.add(
            pool.submit(
                () -> {
                  start.await();
                  return consumer.handle(Orders.payment(id, "pr-9", "1.25", "EUR"));
                }));
      }
      start.countDown();
      List<Outcome> outcomes = new ArrayList<>();
      for (Future<Outcome> future : futures) {
        outcomes.add(future.get(60, TimeUnit.SECONDS));
      }

      assertThat(outcomes).filteredOn(Outcome.Processed.class::isInstance).hasSize(1);
      assertThat(outcomes)
          .allMatch(
              o ->
                  o instanceof Outcome.Processed
                      || o instanceof Outcome.Duplicate
                      || o instanceof Outcome.Retry);
      assertThat(consumer.handle(Orders.payment(id, "pr-9", "1.25", "EUR")))
          .isInstanceOf(Outcome.Duplicate.class);
      assertThat(ledger(id)).hasSize(1);
      assertThat(document(id, id).get("amountPaidUnits").asLong()).isEqualTo(12_500);
    } finally {
      pool.shutdownNow();
    }
  }
}
