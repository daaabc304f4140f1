package io.idemworker.cosmos;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.models.CosmosContainerProperties;
import com.azure.cosmos.models.PartitionKey;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.core.IdempotentConsumer;
import io.idemworker.core.Outcome;
import io.idemworker.core.TestFlow;
import io.idemworker.emulator.junit.AzureEmulators;
import io.idemworker.emulator.junit.Emulators;
import io.idemworker.orders.InboxMarkers;
import io.idemworker.orders.OrderDocumentIds;
import io.idemworker.orders.OrderMessageTypes;
import io.idemworker.orders.OrderReasons;
import io.idemworker.orders.Orders;
import io.idemworker.testing.EmulatorClients;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Status changes and credits through the flow, the Cosmos DB adapter and the real SDK on the
 * emulator: the conditional patch, the marker batch, the round trips each path costs, and the
 * container TTL the markers depend on.
 */
@AzureEmulators(serviceBus = false)
class OrderLifecycleCosmosTest {
  static Emulators azure; // injected by @AzureEmulators
  private final CosmosContainer container = EmulatorClients.orders(azure);
  private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
  private final IdempotentConsumer consumer =
      TestFlow.of(
              OrderMessageTypes.decoder(
                  true, new InboxMarkers("orders", Optional.of(Duration.ofDays(14)))),
              new CosmosEffectStore(
                  container,
                  (operation, status, charge, latency) ->
                      calls.computeIfAbsent(operation, k -> new AtomicInteger()).incrementAndGet(),
                  OrderDocumentIds.PARTITION_KEY_PATH))
          .build();
  private String orderId;

  @BeforeEach
  void placeAnOrder() {
    orderId = "ord-" + UUID.randomUUID().toString().substring(0, 12);
    assertThat(consumer.handle(Orders.order(orderId))).isInstanceOf(Outcome.Processed.class);
    calls.clear();
  }

  private ObjectNode order() {
    return container.readItem(orderId, new PartitionKey(orderId), ObjectNode.class).getItem();
  }

  private int roundTrips() {
    return calls.values().stream().mapToInt(AtomicInteger::get).sum();
  }

  @Test
  void newerStatus_isOneConditionalPatch() {
    assertThat(consumer.handle(Orders.status(orderId, "Shipped", 3)))
        .isInstanceOf(Outcome.Processed.class);

    assertThat(calls).containsOnlyKeys("patch");
    assertThat(roundTrips()).isEqualTo(1);
    assertThat(order().get("status").asText()).isEqualTo("Shipped");
    assertThat(order().get("statusVersion").asInt()).isEqualTo(3);
  }

  @Test
  void olderStatus_isStale_aPatchAndARead_andTheNewerStatusStays() {
    consumer.handle(Orders.status(orderId, "Shipped", 3));
    calls.clear();

    Outcome stale = consumer.handle(Orders.status(orderId, "Packed", 2));

    assertThat(stale).isInstanceOf(Outcome.Stale.class);
    assertThat(roundTrips()).isEqualTo(2);
    assertThat(order().get("status").asText()).isEqualTo("Shipped");
  }

  @Test
  void statusForAnOrderThatNeverCame_isNotYet() {
    Outcome outcome = consumer.handle(Orders.status("ord-never-" + UUID.randomUUID(), "Packed", 1));

    assertThat(outcome).isInstanceOf(Outcome.Retry.class);
    assertThat(((Outcome.Retry) outcome).cause()).isEqualTo(Outcome.RetryCause.NOT_YET);
  }

  @Test
  void newCredit_isOneBatch_andItsDuplicateABatchAndARead() {
    assertThat(consumer.handle(Orders.credit(orderId, orderId + "-cr", "12.3456", "EUR")))
        .isInstanceOf(Outcome.Processed.class);
    assertThat(roundTrips()).isEqualTo(1);
    calls.clear();

    assertThat(consumer.handle(Orders.credit(orderId, orderId + "-cr", "12.3456", "EUR")))
        .isInstanceOf(Outcome.Duplicate.class);
    assertThat(roundTrips()).isEqualTo(2);

    ObjectNode order = order();
    assertThat(order.get("creditedUnits").asLong()).isEqualTo(123_456);
    assertThat(order.get("creditCount").asLong()).isEqualTo(1);
    ObjectNode marker =
        container
            .readItem(
                "inbox:orders:" + orderId + "-cr", new PartitionKey(orderId), ObjectNode.class)
            .getItem();
    assertThat(marker.get("ttl").asLong()).isEqualTo(Duration.ofDays(14).toSeconds());
  }

  @Test
  void creditInAnotherCurrency_isCurrencyMismatch_andNoMarkerIsLeft() {
    Outcome outcome = consumer.handle(Orders.credit(orderId, orderId + "-usd", "1", "USD"));

    assertThat(((Outcome.DeadLettered) outcome).reason()).isEqualTo(OrderReasons.CURRENCY_MISMATCH);
    assertThat(order().has("creditedUnits")).isFalse();
  }

  @Test
  void concurrentCopiesOfOneCredit_incrementExactlyOnce() throws Exception {
    int copies = 8;
    ExecutorService pool = Executors.newFixedThreadPool(copies);
    CountDownLatch start = new CountDownLatch(1);
    try {
      List<Future<Outcome>> futures = new ArrayList<>();
      for (int i = 0; i < copies; i++) {
        futures.add(
            pool.submit(
                () -> {
                  start.await();
                  return consumer.handle(Orders.credit(orderId, orderId + "-race", "0.5", "EUR"));
                }));
      }
      start.countDown();
      List<Outcome> outcomes = new ArrayList<>();
      for (Future<Outcome> future : futures) {
        outcomes.add(future.get(60, TimeUnit.SECONDS));
      }

      assertThat(outcomes).filteredOn(Outcome.Processed.class::isInstance).hasSize(1);
      assertThat(outcomes).filteredOn(Outcome.Duplicate.class::isInstance).hasSize(copies - 1);
      assertThat(order().get("creditedUnits").asLong()).isEqualTo(5_000);
      assertThat(order().get("creditCount").asLong()).isEqualTo(1);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void containerTtl_isOnForTheWorkersContainer_andOffForOneCreatedWithoutIt() {
    String name = "no-ttl-" + UUID.randomUUID().toString().substring(0, 8);
    EmulatorClients.cosmosClient(azure)
        .getDatabase("it")
        .createContainerIfNotExists(new CosmosContainerProperties(name, "/orderId"));

    assertThat(CosmosContainers.honoursItemTtl(container)).isTrue();
    assertThat(
            CosmosContainers.honoursItemTtl(
                EmulatorClients.cosmosClient(azure).getDatabase("it").getContainer(name)))
        .isFalse();
  }
}
