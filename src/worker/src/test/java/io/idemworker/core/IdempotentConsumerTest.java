package io.idemworker.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.idemworker.core.Outcome.RetryCause;
import io.idemworker.orders.OrderDecoder;
import io.idemworker.orders.Orders;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class IdempotentConsumerTest {
  private final Clock clock = Clock.fixed(Instant.parse("2026-11-30T12:00:00Z"), ZoneOffset.UTC);
  private final InMemoryEffectStore store = new InMemoryEffectStore();
  private final IdempotentConsumer consumer = consumerOn(store);

  private IdempotentConsumer consumerOn(EffectStore effectStore) {
    return TestFlow.of(new OrderDecoder(true), effectStore)
        .clock(clock)
        .maxBodyBytes(64 * 1024)
        .build();
  }

  @Test
  void newOrder_isProcessedInOneRoundTrip() {
    Outcome outcome = consumer.handle(Orders.order("ord-1"));

    assertThat(outcome).isEqualTo(new Outcome.Processed(new IdempotencyKey("ord-1"), "ord-1"));
    assertThat(store.roundTrips()).isEqualTo(1);
    assertThat(store.document("ord-1", "ord-1")).isPresent();
  }

  @Test
  void newOrder_writesTheOrderWithItsLinesAndItsOutboxEventTogether() {
    consumer.handle(Orders.order("ord-1"));

    assertThat(store.partition("ord-1"))
        .extracting(document -> document.get("type").asText())
        .containsExactlyInAnyOrder("order", "outbox");
    assertThat(store.document("ord-1", "ord-1").orElseThrow().get("lines")).hasSize(2);
    assertThat(store.document("ord-1", "ord-1").orElseThrow().get("total").decimalValue())
        .isEqualByComparingTo("24.98");
  }

  @Test
  void duplicateWithSameFingerprint_isCompletedWithoutSecondWrite() {
    consumer.handle(Orders.order("ord-1"));
    int documents = store.documentCount();

    Outcome outcome = consumer.handle(Orders.order("ord-1"));

    assertThat(outcome).isEqualTo(new Outcome.Duplicate(new IdempotencyKey("ord-1"), "ord-1"));
    assertThat(store.documentCount()).isEqualTo(documents);
    assertThat(store.roundTrips()).isEqualTo(1 + 2);
  }

  @Test
  void duplicateWithReformattedButEqualContent_isStillADuplicate() {
    consumer.handle(Orders.order("ord-1"));
    String reordered =
        """
        {"lines":[{"unitPrice":9.990,"quantity":2,"sku":"SKU-1"},
                  {"sku":"SKU-2","quantity":1,"unitPrice":5.00}],
         "placedAt":"2026-11-30T11:00:00+01:00","currency":"EUR",
         "customerId":"cust-42","orderId":"ord-1","note":"extra fields are not fingerprinted"}
        """;

    Outcome outcome = consumer.handle(Orders.message("ord-1", reordered));

    assertThat(outcome).isInstanceOf(Outcome.Duplicate.class);
  }

  @Test
  void keyReusedWithOtherContent_isDeadLetteredNamingTheDifferingFieldsOnly() {
    consumer.handle(Orders.order("ord-1"));

    Outcome outcome = consumer.handle(Orders.message("ord-1", Orders.body("ord-1", "cust-99")));

    assertThat(outcome).isInstanceOf(Outcome.DeadLettered.class);
    Outcome.DeadLettered deadLettered = (Outcome.DeadLettered) outcome;
    assertThat(deadLettered.reason()).isEqualTo(DeadLetterReason.IDEMPOTENCY_CONFLICT);
    assertThat(deadLettered.description()).contains("customerId").doesNotContain("cust-99");
    assertThat(deadLettered.description()).doesNotContain("lines").doesNotContain("currency");
    assertThat(store.document("ord-1", "ord-1").orElseThrow().get("customerId").asText())
        .isEqualTo("cust-42");
  }

  @Test
  void missingMessageId_isDeadLetteredWithoutTouchingTheStore() {
    Outcome outcome = consumer.handle(Orders.message(null, Orders.body("ord-1", "c")));

    assertThat(outcome)
        .isInstanceOfSatisfying(
            Outcome.DeadLettered.class,
            dl -> {
              assertThat(dl.reason()).isEqualTo(DeadLetterReason.MISSING_MESSAGE_ID);
              assertThat(dl.description()).contains("MessageId");
            });
    assertThat(store.roundTrips()).isZero();
  }

  @Test
  void bodyOverTheLimit_isDeadLetteredNamingTheLimit() {
    IdempotentConsumer small =
        TestFlow.of(new OrderDecoder(true), store).clock(clock).maxBodyBytes(100).build();

    Outcome outcome = small.handle(Orders.order("ord-1"));

    assertThat(outcome)
        .isInstanceOfSatisfying(
            Outcome.DeadLettered.class,
            dl -> {
              assertThat(dl.reason()).isEqualTo(DeadLetterReason.BODY_TOO_LARGE);
              assertThat(dl.description()).contains("maxBodyBytes");
            });
  }

  @Test
  void transientStoreFailure_isRetried() {
    IdempotentConsumer failing =
        consumerOn(StoreFaults.failing(new StoreFailure(StoreFailure.Kind.TRANSIENT, 503, "down")));

    Outcome outcome = failing.handle(Orders.order("ord-1"));

    assertThat(outcome)
        .isInstanceOfSatisfying(
            Outcome.Retry.class,
            retry -> {
              assertThat(retry.cause()).isEqualTo(RetryCause.TRANSIENT);
              assertThat(retry.description()).contains("503");
            });
  }

  @Test
  void misconfiguredStore_isRetriedAsMisconfigurationNotDeadLettered() {
    IdempotentConsumer failing =
        consumerOn(
            StoreFaults.failing(new StoreFailure(StoreFailure.Kind.MISCONFIGURATION, 403, "no")));

    Outcome outcome = failing.handle(Orders.order("ord-1"));

    assertThat(outcome)
        .isInstanceOfSatisfying(
            Outcome.Retry.class,
            retry -> assertThat(retry.cause()).isEqualTo(RetryCause.MISCONFIGURATION));
  }

  @Test
  void permanentStoreRejection_isDeadLetteredWithTheStatus() {
    IdempotentConsumer failing =
        consumerOn(
            StoreFaults.failing(new StoreFailure(StoreFailure.Kind.PERMANENT, 413, "too big")));

    Outcome outcome = failing.handle(Orders.order("ord-1"));

    assertThat(outcome)
        .isInstanceOfSatisfying(
            Outcome.DeadLettered.class,
            dl -> {
              assertThat(dl.reason()).isEqualTo(DeadLetterReason.STORE_REJECTED);
              assertThat(dl.description()).contains("413");
            });
  }

  @Test
  void unexpectedExceptionInTheStore_isRetriedNotLost() {
    EffectStore throwing = StoreFaults.throwing(() -> new IllegalStateException("bug"));

    Outcome outcome = consumerOn(throwing).handle(Orders.order("ord-1"));

    assertThat(outcome).isInstanceOf(Outcome.Retry.class);
    assertThat(outcome.knownKey()).contains(new IdempotencyKey("ord-1"));
  }

  @Test
  void anchorGoneAfterConflict_isRetried() {
    EffectStore vanishing =
        new EffectStore() {
          @Override
          public WriteResult apply(WriteSet writeSet) {
            return new AnchorExists();
          }

          @Override
          public UpdateResult update(String partitionKey, DocumentPatch patch) {
            return new TargetMissing(patch.id());
          }

          @Override
          public ReadResult read(String partitionKey, String id) {
            return new Absent();
          }
        };

    assertThat(consumerOn(vanishing).handle(Orders.order("ord-1")))
        .isInstanceOf(Outcome.Retry.class);
  }

  @Test
  void concurrentCopiesOfOneMessage_createExactlyOneOrder() throws Exception {
    int copies = 16;
    ExecutorService pool = Executors.newFixedThreadPool(copies);
    CountDownLatch start = new CountDownLatch(1);
    try {
      List<Future<Outcome>> futures = new ArrayList<>();
      for (int i = 0; i < copies; i++) {
        Callable<Outcome> task =
            () -> {
              start.await();
              return consumer.handle(Orders.order("ord-race"));
            };
        futures.add(pool.submit(task));
      }
      start.countDown();
      List<Outcome> outcomes = new ArrayList<>();
      for (Future<Outcome> future : futures) {
        outcomes.add(future.get(30, TimeUnit.SECONDS));
      }

      assertThat(outcomes).filteredOn(o -> o instanceof Outcome.Processed).hasSize(1);
      assertThat(outcomes).filteredOn(o -> o instanceof Outcome.Duplicate).hasSize(copies - 1);
      assertThat(store.partition("ord-race")).hasSize(2);
    } finally {
      pool.shutdownNow();
    }
  }
}
