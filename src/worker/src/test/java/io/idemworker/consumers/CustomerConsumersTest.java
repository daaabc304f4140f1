package io.idemworker.consumers;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.consumers.CustomerConsumers.Role;
import io.idemworker.core.DeadLetterReason;
import io.idemworker.core.EffectStore;
import io.idemworker.core.ForwardingEffectStore;
import io.idemworker.core.IdempotentConsumer;
import io.idemworker.core.InMemoryEffectStore;
import io.idemworker.core.Outcome;
import io.idemworker.core.TestFlow;
import io.idemworker.core.WriteSet;
import io.idemworker.orders.InboxMarkers;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class CustomerConsumersTest {
  private static final Clock CLOCK =
      Clock.fixed(Instant.parse("2026-12-01T00:00:00Z"), ZoneOffset.UTC);
  private final InMemoryEffectStore memory = new InMemoryEffectStore();

  private IdempotentConsumer consumer(Role role, EffectStore store) {
    return TestFlow.of(
            CustomerConsumers.decoder(
                role, new InboxMarkers(role.roleName(), Optional.of(Duration.ofDays(14)))),
            store)
        .clock(CLOCK)
        .build();
  }

  private long field(String customerId, String id, String field) {
    return memory.document(customerId, id).orElseThrow().path(field).asLong();
  }

  @Test
  void firstEventOfACustomer_seedsTheCustomerAndAwardsPoints_inThreeRoundTrips() {
    IdempotentConsumer loyalty = consumer(Role.LOYALTY, memory);

    Outcome outcome =
        loyalty.handle(Events.message("evt-1", Events.body("ord-1", "cust-1", "EUR", "24.98")));

    assertThat(outcome).isInstanceOf(Outcome.Processed.class);
    assertThat(field("cust-1", "cust-1", "loyaltyPoints")).isEqualTo(24);
    assertThat(field("cust-1", "cust-1", "loyaltyOrders")).isEqualTo(1);
    assertThat(memory.document("cust-1", "inbox:loyalty:evt-1")).isPresent();
    assertThat(memory.roundTrips()).isEqualTo(3);
  }

  @Test
  void laterEventOfAKnownCustomer_isOneRoundTrip() {
    IdempotentConsumer loyalty = consumer(Role.LOYALTY, memory);
    loyalty.handle(Events.message("evt-1", Events.body("ord-1", "cust-1", "EUR", "10")));
    long before = memory.roundTrips();

    Outcome outcome =
        loyalty.handle(Events.message("evt-2", Events.body("ord-2", "cust-1", "USD", "5.5")));

    assertThat(outcome).isInstanceOf(Outcome.Processed.class);
    assertThat(memory.roundTrips() - before).isEqualTo(1);
    assertThat(field("cust-1", "cust-1", "loyaltyPoints")).isEqualTo(15);
  }

  @Test
  void duplicateEvent_isCompletedAsDuplicateWithoutSecondIncrement() {
    IdempotentConsumer stats = consumer(Role.CUSTOMER_STATS, memory);
    String body = Events.body("ord-1", "cust-1", "EUR", "19.99");
    stats.handle(Events.message("evt-1", body));

    Outcome again = stats.handle(Events.message("evt-1", body));

    assertThat(again).isInstanceOf(Outcome.Duplicate.class);
    assertThat(field("cust-1", "cust-1:stats:EUR", "orderCount")).isEqualTo(1);
    assertThat(field("cust-1", "cust-1:stats:EUR", "spentUnits")).isEqualTo(199_900);
  }

  @Test
  void eventIdReusedForOtherContent_isDeadLetteredAsIdempotencyConflict() {
    IdempotentConsumer stats = consumer(Role.CUSTOMER_STATS, memory);
    stats.handle(Events.message("evt-1", Events.body("ord-1", "cust-1", "EUR", "10")));

    Outcome reused =
        stats.handle(Events.message("evt-1", Events.body("ord-1", "cust-1", "EUR", "11")));

    assertThat(reused)
        .isInstanceOfSatisfying(
            Outcome.DeadLettered.class,
            d -> {
              assertThat(d.reason()).isEqualTo(DeadLetterReason.IDEMPOTENCY_CONFLICT);
              assertThat(d.description()).contains("total");
            });
    assertThat(field("cust-1", "cust-1:stats:EUR", "spentUnits")).isEqualTo(100_000);
  }

  @Test
  void statsAreKeptPerCurrency_inExactUnits() {
    IdempotentConsumer stats = consumer(Role.CUSTOMER_STATS, memory);

    stats.handle(Events.message("e1", Events.body("o1", "cust-1", "EUR", "0.1")));
    stats.handle(Events.message("e2", Events.body("o2", "cust-1", "EUR", "0.2")));
    stats.handle(Events.message("e3", Events.body("o3", "cust-1", "USD", "7.0001")));

    assertThat(field("cust-1", "cust-1:stats:EUR", "spentUnits")).isEqualTo(3_000);
    assertThat(field("cust-1", "cust-1:stats:EUR", "orderCount")).isEqualTo(2);
    assertThat(field("cust-1", "cust-1:stats:USD", "spentUnits")).isEqualTo(70_001);
    assertThat(field("cust-1", "cust-1:stats:USD", "orderCount")).isEqualTo(1);
  }

  @Test
  void seedCreatedByAnotherMessageMeanwhile_isTakenAsSeeded() {
    // given a store where, just before this message's seed lands, another message seeds it
    AtomicBoolean raced = new AtomicBoolean();
    EffectStore racing =
        new ForwardingEffectStore(memory) {
          @Override
          public WriteResult apply(WriteSet writeSet) {
            if (writeSet.anchorId().equals("cust-1") && raced.compareAndSet(false, true)) {
              ObjectNode other = writeSet.anchor().deepCopy();
              memory.apply(
                  new WriteSet(
                      "cust-1",
                      java.util.List.of(other),
                      java.util.List.of(),
                      writeSet.fingerprint()));
            }
            return super.apply(writeSet);
          }
        };

    Outcome outcome =
        consumer(Role.LOYALTY, racing)
            .handle(Events.message("evt-1", Events.body("ord-1", "cust-1", "EUR", "3")));

    assertThat(raced).isTrue();
    assertThat(outcome).isInstanceOf(Outcome.Processed.class);
    assertThat(field("cust-1", "cust-1", "loyaltyPoints")).isEqualTo(3);
  }

  @Test
  void eventBreakingTheContract_isDeadLetteredNamingTheFields() {
    Outcome outcome =
        consumer(Role.LOYALTY, memory)
            .handle(
                Events.message(
                    "evt-1",
                    """
                    {"orderId":"ord-1","customerId":"cust 1","currency":"EURO","total":-1,
                     "lineCount":0,"placedAt":"yesterday"}
                    """));

    assertThat(outcome)
        .isInstanceOfSatisfying(
            Outcome.DeadLettered.class,
            d -> {
              assertThat(d.reason()).isEqualTo(DeadLetterReason.SCHEMA_VIOLATION);
              assertThat(d.description())
                  .contains("customerId", "currency", "total", "lineCount", "placedAt")
                  .doesNotContain("EURO", "yesterday");
            });
    assertThat(memory.documentCount()).isZero();
  }

  @Test
  void totalWithMoreThanFourDecimals_isRefusedRatherThanRounded() {
    Outcome outcome =
        consumer(Role.CUSTOMER_STATS, memory)
            .handle(Events.message("evt-1", Events.body("ord-1", "cust-1", "EUR", "1.00001")));

    assertThat(outcome)
        .isInstanceOfSatisfying(
            Outcome.DeadLettered.class,
            d -> assertThat(d.reason()).isEqualTo(DeadLetterReason.SCHEMA_VIOLATION));
  }

  @Test
  void otherSubjectOnTheSubscription_isUnsupported() {
    Outcome outcome =
        consumer(Role.LOYALTY, memory)
            .handle(
                Events.typed(
                    "PaymentCaptured", "evt-1", Events.body("ord-1", "cust-1", "EUR", "1")));

    assertThat(outcome)
        .isInstanceOfSatisfying(
            Outcome.DeadLettered.class,
            d -> assertThat(d.reason()).isEqualTo(DeadLetterReason.UNSUPPORTED_MESSAGE));
  }

  @Test
  void roleNames_areWhatWorkerRoleAccepts() {
    assertThat(Role.named("Loyalty")).contains(Role.LOYALTY);
    assertThat(Role.named("customer-stats")).contains(Role.CUSTOMER_STATS);
    assertThat(Role.named("orders")).isEmpty();
  }
}
