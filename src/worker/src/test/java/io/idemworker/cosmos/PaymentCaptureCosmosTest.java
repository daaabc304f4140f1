package io.idemworker.cosmos;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.models.PartitionKey;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.core.EffectStore;
import io.idemworker.core.ForwardingEffectStore;
import io.idemworker.core.IdempotentConsumer;
import io.idemworker.core.Outcome;
import io.idemworker.core.TestFlow;
import io.idemworker.emulator.junit.AzureEmulators;
import io.idemworker.emulator.junit.Emulators;
import io.idemworker.emulator.payments.PaymentProviderEmulator;
import io.idemworker.orders.OrderDocumentIds;
import io.idemworker.orders.Orders;
import io.idemworker.testing.EmulatorClients;
import io.idemworker.testing.MutableClock;
import io.idemworker.testing.OrderFlows;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The two-phase capture on Cosmos DB through the SDK: the claim batch, the completion batch fenced
 * by status and attempt (a filter predicate with AND), and a takeover after the lease.
 */
@AzureEmulators(serviceBus = false)
class PaymentCaptureCosmosTest {
  static Emulators azure; // injected by @AzureEmulators
  private static final Duration LEASE = Duration.ofSeconds(30);
  private static PaymentProviderEmulator provider;

  private final CosmosContainer container = EmulatorClients.orders(azure);
  private final AtomicInteger calls = new AtomicInteger();
  private final CosmosEffectStore store =
      new CosmosEffectStore(
          container,
          (operation, status, charge, latency) -> calls.incrementAndGet(),
          OrderDocumentIds.PARTITION_KEY_PATH);
  private final MutableClock clock = new MutableClock(Instant.now());
  private final IdempotentConsumer consumer =
      TestFlow.of(OrderFlows.withPayments(OrderFlows.http(provider), LEASE), store)
          .clock(clock)
          .build();

  @BeforeAll
  static void startProvider() {
    provider = PaymentProviderEmulator.builder().port(0).start();
  }

  @AfterAll
  static void stopProvider() {
    provider.close();
  }

  private String placed() {
    String orderId = "pay-" + UUID.randomUUID().toString().substring(0, 12);
    assertThat(consumer.handle(Orders.order(orderId))).isInstanceOf(Outcome.Processed.class);
    return orderId;
  }

  private ObjectNode read(String orderId, String id) {
    return container.readItem(id, new PartitionKey(orderId), ObjectNode.class).getItem();
  }

  @Test
  void newCapture_isAClaimBatchAndACompletionBatch() {
    String orderId = placed();
    calls.set(0);

    assertThat(consumer.handle(Orders.payment(orderId, orderId + "-pr", "12.5", "EUR")))
        .isInstanceOf(Outcome.Processed.class);

    assertThat(calls).hasValue(2);
    assertThat(read(orderId, "payment:" + orderId + "-pr").get("status").asText())
        .isEqualTo("Completed");
    assertThat(read(orderId, orderId).get("amountPaidUnits").asLong()).isEqualTo(125_000);
  }

  @Test
  void crashBeforeCompletion_isTakenOverAfterTheLease_inFourRoundTrips_andChargedOnce() {
    String orderId = placed();
    String requestId = orderId + "-stuck";
    AtomicInteger completions = new AtomicInteger();
    EffectStore crashingOnFirstCompletion =
        new ForwardingEffectStore(store) {
          @Override
          public WriteResult apply(io.idemworker.core.WriteSet writeSet) {
            if (writeSet.anchor().path("type").asText().equals("outbox")
                && completions.getAndIncrement() == 0) {
              return new Failed(
                  new io.idemworker.core.StoreFailure(
                      io.idemworker.core.StoreFailure.Kind.TRANSIENT, 0, "crash"));
            }
            return super.apply(writeSet);
          }
        };
    IdempotentConsumer crashing =
        TestFlow.of(
                OrderFlows.withPayments(OrderFlows.http(provider), LEASE),
                crashingOnFirstCompletion)
            .clock(clock)
            .build();
    long executedBefore = provider.stats().executed();

    assertThat(crashing.handle(Orders.payment(orderId, requestId, "2", "EUR")))
        .isInstanceOf(Outcome.Retry.class);
    assertThat(read(orderId, "payment:" + requestId).get("status").asText())
        .isEqualTo("InProgress");
    clock.advance(LEASE.plusSeconds(1));
    calls.set(0);
    Outcome takenOver = crashing.handle(Orders.payment(orderId, requestId, "2", "EUR"));

    assertThat(takenOver).isInstanceOf(Outcome.Processed.class);
    assertThat(calls).hasValue(4);
    ObjectNode record = read(orderId, "payment:" + requestId);
    assertThat(record.get("status").asText()).isEqualTo("Completed");
    assertThat(record.get("attempt").asLong()).isEqualTo(2);
    assertThat(provider.stats().executed() - executedBefore).isEqualTo(1);
    assertThat(read(orderId, orderId).get("amountPaidUnits").asLong()).isEqualTo(20_000);
  }
}
