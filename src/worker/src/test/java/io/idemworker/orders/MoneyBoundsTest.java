package io.idemworker.orders;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.core.DocumentPatch;
import io.idemworker.core.EffectStore;
import io.idemworker.core.IdempotentConsumer;
import io.idemworker.core.InMemoryEffectStore;
import io.idemworker.core.IncomingMessage;
import io.idemworker.core.Outcome;
import io.idemworker.core.TestFlow;
import io.idemworker.cosmos.CosmosEffectStore;
import io.idemworker.cosmos.StoreCallListener;
import io.idemworker.emulator.junit.AzureEmulators;
import io.idemworker.emulator.junit.Emulators;
import io.idemworker.emulator.payments.PaymentProviderEmulator;
import io.idemworker.testing.EmulatorClients;
import io.idemworker.testing.MutableClock;
import io.idemworker.testing.OrderFlows;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The business bounds on money (issue 33): a capture never exceeds what the order still has to
 * capture, credits never exceed the order's total, counters stay at most 2^53 units, dates stay in
 * a sane window, on the in-memory store and on the Cosmos DB emulator through the real SDK (whose
 * write path turns the bounds into patch filter predicates). The order {@link Orders#body} totals
 * 24.98 EUR.
 */
@AzureEmulators(serviceBus = false)
class MoneyBoundsTest {
  static Emulators azure; // injected by @AzureEmulators
  private static PaymentProviderEmulator provider;

  private final MutableClock clock = new MutableClock(Instant.parse("2026-11-30T12:00:00Z"));

  @BeforeAll
  static void startProvider() {
    provider = PaymentProviderEmulator.builder().port(0).start();
  }

  @AfterAll
  static void stopProvider() {
    provider.close();
  }

  /** The stores the bounds must hold on. */
  static Stream<Supplier<EffectStore>> stores() {
    return Stream.of(
        named("in-memory", InMemoryEffectStore::new),
        named(
            "Cosmos DB emulator",
            () ->
                new CosmosEffectStore(
                    EmulatorClients.orders(azure),
                    StoreCallListener.none(),
                    OrderDocumentIds.PARTITION_KEY_PATH)));
  }

  private static Supplier<EffectStore> named(String name, Supplier<EffectStore> store) {
    return new Supplier<>() {
      @Override
      public EffectStore get() {
        return store.get();
      }

      @Override
      public String toString() {
        return name;
      }
    };
  }

  private IdempotentConsumer consumer(EffectStore store) {
    return TestFlow.of(
            OrderFlows.withPayments(OrderFlows.http(provider), Duration.ofSeconds(30)), store)
        .clock(clock)
        .build();
  }

  private static String placed(IdempotentConsumer consumer) {
    String orderId = "mb-" + UUID.randomUUID().toString().substring(0, 12);
    assertThat(consumer.handle(Orders.order(orderId))).isInstanceOf(Outcome.Processed.class);
    return orderId;
  }

  private static String reason(Outcome outcome) {
    assertThat(outcome).isInstanceOf(Outcome.DeadLettered.class);
    return ((Outcome.DeadLettered) outcome).reason().code();
  }

  private static ObjectNode order(EffectStore store, String orderId) {
    return ((EffectStore.Document) store.read(orderId, orderId)).content();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("stores")
  void captureAboveTheOrdersTotal_isRefused_beforeTheProviderIsCalled(Supplier<EffectStore> s) {
    // given an order of 24.98 EUR
    EffectStore store = s.get();
    IdempotentConsumer consumer = consumer(store);
    String orderId = placed(consumer);
    long providerRequests = provider.stats().requests();

    // when a capture of 1,000,000,000 EUR is requested
    Outcome outcome =
        consumer.handle(Orders.payment(orderId, orderId + "-big", "1000000000", "EUR"));

    // then it is dead-lettered by name and the provider never saw it
    assertThat(reason(outcome)).isEqualTo("CaptureExceedsOutstanding");
    assertThat(((Outcome.DeadLettered) outcome).description())
        .contains("capturableUnits")
        .doesNotContain("1000000000");
    assertThat(provider.stats().requests()).isEqualTo(providerRequests);
    assertThat(order(store, orderId).get("capturableUnits").asLong()).isEqualTo(249_800);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("stores")
  void capturesTogether_neverExceedTheTotal_andADeclineGivesItsAmountBack(Supplier<EffectStore> s) {
    // given an order of 24.98 EUR with 20 EUR captured
    EffectStore store = s.get();
    IdempotentConsumer consumer = consumer(store);
    String orderId = placed(consumer);
    assertThat(consumer.handle(Orders.payment(orderId, orderId + "-a", "20", "EUR")))
        .isInstanceOf(Outcome.Processed.class);

    // when 5 EUR more is requested, then a declined 4.13, then 4.98
    Outcome tooMuch = consumer.handle(Orders.payment(orderId, orderId + "-b", "5", "EUR"));
    Outcome declined = consumer.handle(Orders.payment(orderId, orderId + "-c", "4.13", "EUR"));
    Outcome rest = consumer.handle(Orders.payment(orderId, orderId + "-d", "4.98", "EUR"));

    // then the 5 is refused, the decline frees its reservation, and the rest is captured
    assertThat(reason(tooMuch)).isEqualTo("CaptureExceedsOutstanding");
    assertThat(declined).isInstanceOf(Outcome.Processed.class);
    assertThat(rest).isInstanceOf(Outcome.Processed.class);
    ObjectNode after = order(store, orderId);
    assertThat(after.get("amountPaidUnits").asLong()).isEqualTo(249_800);
    assertThat(after.get("capturableUnits").asLong()).isZero();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("stores")
  void creditsPastTheTotal_areRefused_andAnotherCurrencyIsStillACurrencyMismatch(
      Supplier<EffectStore> s) {
    // given an order of 24.98 EUR credited 20 and 4.98
    EffectStore store = s.get();
    IdempotentConsumer consumer = consumer(store);
    String orderId = placed(consumer);
    assertThat(consumer.handle(Orders.credit(orderId, orderId + "-c1", "20", "EUR")))
        .isInstanceOf(Outcome.Processed.class);
    assertThat(consumer.handle(Orders.credit(orderId, orderId + "-c2", "4.98", "EUR")))
        .isInstanceOf(Outcome.Processed.class);

    // when one cent more is credited, and a credit in USD arrives
    Outcome over = consumer.handle(Orders.credit(orderId, orderId + "-c3", "0.01", "EUR"));
    Outcome usd = consumer.handle(Orders.credit(orderId, orderId + "-c4", "1", "USD"));

    // then both are refused, each by its own name, and the credits stay at the total
    assertThat(reason(over)).isEqualTo("CreditExceedsOrderTotal");
    assertThat(reason(usd)).isEqualTo("CurrencyMismatch");
    ObjectNode after = order(store, orderId);
    assertThat(after.get("creditedUnits").asLong()).isEqualTo(249_800);
    assertThat(after.get("creditCount").asLong()).isEqualTo(2);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("stores")
  void webhookAmountsPast2To53Units_areRefused_soDoubleReadersStayExact(Supplier<EffectStore> s) {
    // given an order whose confirmed captures are 1 unit short of 2^53
    EffectStore store = s.get();
    IdempotentConsumer consumer = consumer(store);
    String orderId = placed(consumer);
    assertThat(
            store.update(
                orderId,
                new DocumentPatch(
                    orderId,
                    List.of(
                        new DocumentPatch.SetField(
                            "confirmedCaptureUnits",
                            JsonNodeFactory.instance.numberNode(OrderReasons.MAX_EXACT_UNITS - 1))),
                    Optional.empty())))
        .isInstanceOf(EffectStore.Applied.class);
    IdempotentConsumer webhooks =
        TestFlow.of(PaymentWebhookEvents.decoder(Optional.of(Duration.ofDays(14))), store)
            .clock(clock)
            .maxBodyBytes(65_536)
            .maxDeliveryCount(Integer.MAX_VALUE)
            .build();

    // when a capture.succeeded of 0.0002 EUR and one of 0.0001 EUR arrive
    Outcome over = webhooks.handle(event("evt_over", orderId, "0.0002", "2026-11-30T12:00:00Z"));
    Outcome exact = webhooks.handle(event("evt_exact", orderId, "0.0001", "2026-11-30T12:00:00Z"));

    // then the first would pass 2^53 and is refused by name; the second lands exactly on it
    assertThat(reason(over)).isEqualTo("CounterLimitExceeded");
    assertThat(exact).isInstanceOf(Outcome.Processed.class);
    assertThat(order(store, orderId).get("confirmedCaptureUnits").asLong())
        .isEqualTo(OrderReasons.MAX_EXACT_UNITS);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("stores")
  void datesOutsideTheWindow_andTotalsPast2To53Units_areSchemaViolations(Supplier<EffectStore> s) {
    // given the flows on a store
    EffectStore store = s.get();
    IdempotentConsumer consumer = consumer(store);
    String orderId = placed(consumer);
    IdempotentConsumer webhooks =
        TestFlow.of(PaymentWebhookEvents.decoder(Optional.of(Duration.ofDays(14))), store)
            .clock(clock)
            .maxBodyBytes(65_536)
            .maxDeliveryCount(Integer.MAX_VALUE)
            .build();

    // when dates far in the past or future, and an order of 98 lines of 10,000 x 1,000,000,000
    Outcome ancient = consumer.handle(orderPlacedAt("mb-old-" + orderId, "0999-01-01T00:00:00Z"));
    Outcome future = consumer.handle(orderPlacedAt("mb-new-" + orderId, "2100-01-01T00:00:00Z"));
    Outcome status =
        consumer.handle(
            Orders.typed(
                "OrderStatusChanged",
                orderId + ":status:1",
                """
                {"orderId":"%s","status":"Shipped","version":1,"changedAt":"+999999999-01-01T00:00:00Z"}"""
                    .formatted(orderId),
                0));
    Outcome created = webhooks.handle(event("evt_y", orderId, "1", "+999999999-12-31T00:00:00Z"));
    Outcome huge = consumer.handle(Orders.message("mb-huge", hugeOrder("mb-huge")));

    // then each is a SchemaViolation naming its field, and nothing is written
    for (Outcome outcome : List.of(ancient, future, status, created, huge)) {
      assertThat(reason(outcome)).isEqualTo("SchemaViolation");
    }
    assertThat(((Outcome.DeadLettered) ancient).description()).contains("placedAt must be from");
    assertThat(((Outcome.DeadLettered) created).description()).contains("created must be from");
    assertThat(((Outcome.DeadLettered) huge).description()).contains("2^53");
    assertThat(order(store, orderId).has("settledAt")).isFalse();
    assertThat(order(store, orderId).has("status")).isFalse();
  }

  private static IncomingMessage orderPlacedAt(String orderId, String placedAt) {
    return Orders.message(
        orderId, Orders.body(orderId, "cust-1").replace("2026-11-30T10:00:00Z", placedAt));
  }

  private static String hugeOrder(String orderId) {
    StringBuilder lines = new StringBuilder();
    for (int i = 0; i < 98; i++) {
      lines
          .append(i == 0 ? "" : ",")
          .append("{\"sku\":\"S")
          .append(i)
          .append("\",\"quantity\":10000,\"unitPrice\":1000000000}");
    }
    return "{\"orderId\":\""
        + orderId
        + "\",\"customerId\":\"c\",\"currency\":\"EUR\",\"placedAt\":\"2026-11-30T10:00:00Z\","
        + "\"lines\":["
        + lines
        + "]}";
  }

  private static IncomingMessage event(
      String eventId, String orderId, String amount, String created) {
    String body =
        """
        {"id":"%s","type":"capture.succeeded","created":"%s","data":{"captureId":"cap_%s",\
        "orderId":"%s","idempotencyKey":"%s-pr","amount":%s,"currency":"EUR"}}"""
            .formatted(eventId + orderId, created, eventId, orderId, orderId, amount);
    return new IncomingMessage(
        Optional.of(eventId + orderId),
        Optional.empty(),
        Optional.of("capture.succeeded"),
        Optional.of("application/json"),
        Map.of(),
        body.getBytes(StandardCharsets.UTF_8),
        0);
  }
}
