package io.idemworker.orders;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.core.DeadLetterReason;
import io.idemworker.core.IdempotentConsumer;
import io.idemworker.core.InMemoryEffectStore;
import io.idemworker.core.IncomingMessage;
import io.idemworker.core.Outcome;
import io.idemworker.core.TestFlow;
import io.idemworker.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Changes to existing orders through the whole flow on the in-memory store: status changes behind a
 * version guard, credits behind inbox markers. The same paths on Cosmos DB through the SDK are in
 * {@code io.idemworker.cosmos.OrderLifecycleCosmosTest}.
 */
class OrderLifecycleTest {
  private static final int MAX_DELIVERIES = 10;

  private final InMemoryEffectStore store = new InMemoryEffectStore();
  private final IdempotentConsumer consumer =
      TestFlow.of(
              OrderMessageTypes.decoder(
                  true, new InboxMarkers("orders", Optional.of(Duration.ofDays(14)))),
              store)
          .clock(new MutableClock(Instant.parse("2026-11-30T12:00:00Z")))
          .maxDeliveryCount(MAX_DELIVERIES)
          .build();

  private ObjectNode order(String orderId) {
    return store.document(orderId, orderId).orElseThrow();
  }

  private String placed(String orderId) {
    assertThat(consumer.handle(Orders.order(orderId))).isInstanceOf(Outcome.Processed.class);
    return orderId;
  }

  @Test
  void newerStatus_isAppliedWithOneRoundTrip() {
    String id = placed("ord-s1");
    long before = store.roundTrips();

    Outcome outcome = consumer.handle(Orders.status(id, "Confirmed", 1));

    assertThat(outcome).isInstanceOf(Outcome.Processed.class);
    assertThat(store.roundTrips() - before).isEqualTo(1);
    assertThat(order(id).get("status").asText()).isEqualTo("Confirmed");
    assertThat(order(id).get("statusVersion").asLong()).isEqualTo(1);
    assertThat(order(id).get("statusChangedAt").asText()).isEqualTo("2026-11-30T11:00:00Z");
  }

  @Test
  void olderStatusArrivingLate_isStaleWithTwoRoundTripsAndChangesNothing() {
    String id = placed("ord-s2");
    consumer.handle(Orders.status(id, "Shipped", 3));
    long before = store.roundTrips();

    Outcome outcome = consumer.handle(Orders.status(id, "Packed", 2));

    assertThat(outcome).isInstanceOf(Outcome.Stale.class);
    assertThat(((Outcome.Stale) outcome).description()).contains("2 < stored 3");
    assertThat(store.roundTrips() - before).isEqualTo(2);
    assertThat(order(id).get("status").asText()).isEqualTo("Shipped");
  }

  @Test
  void sameStatusVersionAgain_isADuplicate() {
    String id = placed("ord-s3");
    consumer.handle(Orders.status(id, "Packed", 2));

    assertThat(consumer.handle(Orders.status(id, "Packed", 2)))
        .isInstanceOf(Outcome.Duplicate.class);
  }

  @Test
  void sameVersionWithAnotherStatus_isAnIdempotencyConflictNamingTheField() {
    String id = placed("ord-s4");
    consumer.handle(Orders.status(id, "Packed", 2));

    Outcome outcome =
        consumer.handle(
            Orders.typed(
                "OrderStatusChanged",
                id + ":status:2",
                """
                {"orderId":"ord-s4","status":"Cancelled","version":2,"changedAt":"2026-11-30T11:00:00Z"}""",
                0));

    assertThat(outcome).isInstanceOf(Outcome.DeadLettered.class);
    Outcome.DeadLettered dead = (Outcome.DeadLettered) outcome;
    assertThat(dead.reason()).isEqualTo(DeadLetterReason.IDEMPOTENCY_CONFLICT);
    assertThat(dead.description()).contains("differing fields: status").doesNotContain("Cancelled");
    assertThat(order(id).get("status").asText()).isEqualTo("Packed");
  }

  @Test
  void statusBeforeItsOrder_isRetriedAsNotYet_thenDeadLetteredAsOrderNotFoundOnTheLastDelivery() {
    IncomingMessage early = Orders.status("ord-s5", "Confirmed", 1);

    Outcome first = consumer.handle(early);
    Outcome last = consumer.handle(redelivered(early, MAX_DELIVERIES - 1));

    assertThat(first).isInstanceOf(Outcome.Retry.class);
    assertThat(((Outcome.Retry) first).cause()).isEqualTo(Outcome.RetryCause.NOT_YET);
    assertThat(last).isInstanceOf(Outcome.DeadLettered.class);
    assertThat(((Outcome.DeadLettered) last).reason()).isEqualTo(OrderReasons.ORDER_NOT_FOUND);
  }

  @Test
  void statusThatOvertookItsOrder_appliesOnceTheOrderArrives() {
    IncomingMessage early = Orders.status("ord-s6", "Confirmed", 1);
    assertThat(consumer.handle(early)).isInstanceOf(Outcome.Retry.class);

    placed("ord-s6");

    assertThat(consumer.handle(redelivered(early, 1))).isInstanceOf(Outcome.Processed.class);
    assertThat(order("ord-s6").get("status").asText()).isEqualTo("Confirmed");
  }

  @Test
  void newCredit_addsExactUnitsAndWritesAMarkerWithTheTtl_inOneRoundTrip() {
    String id = placed("ord-c1");
    long before = store.roundTrips();

    Outcome outcome = consumer.handle(Orders.credit(id, "cr-1", "5.0001", "EUR"));

    assertThat(outcome).isInstanceOf(Outcome.Processed.class);
    assertThat(store.roundTrips() - before).isEqualTo(1);
    assertThat(order(id).get("creditedUnits").asLong()).isEqualTo(50_001);
    assertThat(order(id).get("creditCount").asLong()).isEqualTo(1);
    ObjectNode marker = store.document(id, "inbox:orders:cr-1").orElseThrow();
    assertThat(marker.get("type").asText()).isEqualTo("inbox");
    assertThat(marker.get("ttl").asLong()).isEqualTo(Duration.ofDays(14).toSeconds());
    assertThat(marker.get("messageType").asText()).isEqualTo("OrderCredited");
  }

  @Test
  void manyCreditsWithFractions_sumExactly() {
    String id = placed("ord-c2");
    for (int i = 0; i < 30; i++) {
      consumer.handle(Orders.credit(id, "cr-f" + i, "0.1", "EUR"));
    }

    assertThat(order(id).get("creditedUnits").asLong()).isEqualTo(30_000);
    assertThat(order(id).get("creditCount").asLong()).isEqualTo(30);
  }

  @Test
  void duplicateCredit_isCompletedWithoutASecondIncrement_inTwoRoundTrips() {
    String id = placed("ord-c3");
    consumer.handle(Orders.credit(id, "cr-3", "5", "EUR"));
    long before = store.roundTrips();

    Outcome again = consumer.handle(Orders.credit(id, "cr-3", "5.00", "EUR"));

    assertThat(again).isInstanceOf(Outcome.Duplicate.class);
    assertThat(store.roundTrips() - before).isEqualTo(2);
    assertThat(order(id).get("creditedUnits").asLong()).isEqualTo(50_000);
    assertThat(order(id).get("creditCount").asLong()).isEqualTo(1);
  }

  @Test
  void creditIdReusedForAnotherAmount_isAnIdempotencyConflictNamingTheAmount() {
    String id = placed("ord-c4");
    consumer.handle(Orders.credit(id, "cr-4", "5", "EUR"));

    Outcome reused = consumer.handle(Orders.credit(id, "cr-4", "7", "EUR"));

    assertThat(reused).isInstanceOf(Outcome.DeadLettered.class);
    assertThat(((Outcome.DeadLettered) reused).reason())
        .isEqualTo(DeadLetterReason.IDEMPOTENCY_CONFLICT);
    assertThat(((Outcome.DeadLettered) reused).description()).contains("amount");
    assertThat(order(id).get("creditedUnits").asLong()).isEqualTo(50_000);
  }

  @Test
  void creditInAnotherCurrency_isDeadLetteredAsCurrencyMismatchAndWritesNothing() {
    String id = placed("ord-c5");

    Outcome outcome = consumer.handle(Orders.credit(id, "cr-5", "5", "USD"));

    assertThat(outcome).isInstanceOf(Outcome.DeadLettered.class);
    assertThat(((Outcome.DeadLettered) outcome).reason()).isEqualTo(OrderReasons.CURRENCY_MISMATCH);
    assertThat(store.document(id, "inbox:orders:cr-5")).isEmpty();
    assertThat(order(id).has("creditedUnits")).isFalse();
  }

  @Test
  void creditBeforeItsOrder_isRetriedAsNotYet() {
    Outcome outcome = consumer.handle(Orders.credit("ord-c6", "cr-6", "5", "EUR"));

    assertThat(outcome).isInstanceOf(Outcome.Retry.class);
    assertThat(((Outcome.Retry) outcome).cause()).isEqualTo(Outcome.RetryCause.NOT_YET);
    assertThat(store.document("ord-c6", "inbox:orders:cr-6")).isEmpty();
  }

  @Test
  void concurrentCopiesOfOneCredit_incrementExactlyOnce() throws Exception {
    String id = placed("ord-c7");
    int copies = 12;
    ExecutorService pool = Executors.newFixedThreadPool(copies);
    CountDownLatch start = new CountDownLatch(1);
    try {
      List<Future<Outcome>> futures = new ArrayList<>();
      for (int i = 0; i < copies; i++) {
        futures.add(
            pool.submit(
                () -> {
                  start.await();
                  return consumer.handle(Orders.credit(id, "cr-7", "2.5", "EUR"));
                }));
      }
      start.countDown();
      List<Outcome> outcomes = new ArrayList<>();
      for (Future<Outcome> future : futures) {
        outcomes.add(future.get(30, TimeUnit.SECONDS));
      }

      assertThat(outcomes).filteredOn(Outcome.Processed.class::isInstance).hasSize(1);
      assertThat(outcomes).filteredOn(Outcome.Duplicate.class::isInstance).hasSize(copies - 1);
      assertThat(order(id).get("creditedUnits").asLong()).isEqualTo(25_000);
      assertThat(order(id).get("creditCount").asLong()).isEqualTo(1);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void messageWithoutSubject_isUnsupportedAndNamesTheSubjectsHandled() {
    Outcome outcome = consumer.handle(Orders.typed(null, "ord-x", Orders.body("ord-x", "c"), 0));

    assertThat(outcome).isInstanceOf(Outcome.DeadLettered.class);
    Outcome.DeadLettered dead = (Outcome.DeadLettered) outcome;
    assertThat(dead.reason()).isEqualTo(DeadLetterReason.UNSUPPORTED_MESSAGE);
    assertThat(dead.description())
        .contains("Subject is missing")
        .contains("OrderPlaced, OrderStatusChanged, OrderCredited");
  }

  @Test
  void statusWhoseMessageIdIsNotItsKey_isAMessageIdMismatch() {
    Outcome outcome =
        consumer.handle(
            Orders.typed(
                "OrderStatusChanged",
                "ord-m1",
                """
                {"orderId":"ord-m1","status":"Packed","version":2,"changedAt":"2026-11-30T11:00:00Z"}""",
                0));

    assertThat(((Outcome.DeadLettered) outcome).reason())
        .isEqualTo(DeadLetterReason.MESSAGE_ID_MISMATCH);
  }

  @Test
  void badCreditBody_listsEveryBrokenFieldByName() {
    Outcome outcome =
        consumer.handle(
            Orders.typed(
                "OrderCredited",
                "cr-9",
                """
                {"orderId":"ord-9","creditId":"cr-9","amount":-1,"currency":"XXX1","reason":7,"extra":1}""",
                0));

    Outcome.DeadLettered dead = (Outcome.DeadLettered) outcome;
    assertThat(dead.reason()).isEqualTo(DeadLetterReason.SCHEMA_VIOLATION);
    assertThat(dead.description())
        .contains("amount must be a number above 0")
        .contains("currency must be an ISO 4217 code")
        .contains("reason must be a string of at most 200 characters")
        .contains("extra is not a field of OrderCredited");
  }

  @Test
  void badStatusBody_namesStatusAndVersion() {
    Outcome outcome =
        consumer.handle(
            Orders.typed(
                "OrderStatusChanged",
                "ord-9:status:0",
                """
                {"orderId":"ord-9","status":"Lost","version":0,"changedAt":"yesterday"}""",
                0));

    assertThat(((Outcome.DeadLettered) outcome).description())
        .contains("status must be one of Confirmed, Packed, Shipped, Delivered, Cancelled")
        .contains("version must be an integer from 1 to 2147483647")
        .contains("changedAt must be an ISO 8601 instant");
  }

  private static IncomingMessage redelivered(IncomingMessage message, long deliveryCount) {
    return new IncomingMessage(
        message.messageId(),
        message.correlationId(),
        message.subject(),
        message.contentType(),
        message.applicationProperties(),
        message.body(),
        deliveryCount);
  }
}
