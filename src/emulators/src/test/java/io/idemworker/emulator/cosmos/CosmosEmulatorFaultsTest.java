package io.idemworker.emulator.cosmos;

import static io.idemworker.emulator.cosmos.CosmosEmulatorSyncClientTest.cosmosError;
import static io.idemworker.emulator.cosmos.CosmosEmulatorSyncClientTest.order;
import static io.idemworker.emulator.cosmos.CosmosEmulatorSyncClientTest.unique;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosException;
import com.azure.cosmos.models.PartitionKey;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** Fault injection as the real client experiences it. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CosmosEmulatorFaultsTest {
  private CosmosEmulator emulator;
  private CosmosClient client;
  private CosmosContainer container;

  @BeforeAll
  void start() {
    emulator = CosmosEmulator.builder().start();
    client = Clients.sync(emulator);
    client.createDatabaseIfNotExists("db");
    client.getDatabase("db").createContainerIfNotExists(Clients.containerProps("orders", null));
    container = client.getDatabase("db").getContainer("orders");
  }

  @AfterEach
  void clearFaults() {
    emulator.faults().clear();
  }

  @AfterAll
  void stop() {
    client.close();
    emulator.close();
  }

  @Test
  void throttledCreate_isRetriedByClientAndThenSucceeds() {
    String id = unique();
    emulator
        .faults()
        .inject(Operation.CREATE, Fault.status(429).retryAfter(Duration.ofMillis(5)).times(3));
    long before = emulator.stats().count(Operation.CREATE);

    var created = container.createItem(order(id, id));

    assertThat(created.getStatusCode()).isEqualTo(201);
    assertThat(emulator.stats().count(Operation.CREATE) - before).isEqualTo(4);
    assertThat(created.getDiagnostics().getDiagnosticsContext().getRetryCount()).isPositive();
  }

  @Test
  void forbiddenStaysUntilCleared() {
    String id = unique();
    emulator.faults().inject(Operation.CREATE, Fault.status(403));

    CosmosException first = cosmosError(() -> container.createItem(order(id, id)));
    CosmosException second = cosmosError(() -> container.createItem(order(id, id)));
    emulator.faults().clear();

    assertThat(first.getStatusCode()).isEqualTo(403);
    assertThat(second.getStatusCode()).isEqualTo(403);
    assertThat(container.createItem(order(id, id)).getStatusCode()).isEqualTo(201);
  }

  @Test
  void serviceUnavailableAndTimeout_areSurfacedWithoutWriting() {
    String id = unique();
    emulator.faults().inject(Operation.UPSERT, Fault.status(503).times(1));
    emulator.faults().inject(Operation.REPLACE, Fault.status(408).times(1));

    CosmosException unavailable = cosmosError(() -> container.upsertItem(order(id, id)));
    CosmosException timeout =
        cosmosError(() -> container.replaceItem(order(id, id), id, new PartitionKey(id), null));

    assertThat(unavailable.getStatusCode()).isEqualTo(503);
    assertThat(timeout.getStatusCode()).isEqualTo(408);
    assertThat(
            cosmosError(() -> container.readItem(id, new PartitionKey(id), ObjectNode.class))
                .getStatusCode())
        .isEqualTo(404);
  }

  @Test
  void faultWithSubStatus_isReportedByClient() {
    String id = unique();
    container.createItem(order(id, id));
    emulator.faults().inject(Operation.READ, Fault.status(400).subStatus(1234).times(1));

    CosmosException e =
        cosmosError(() -> container.readItem(id, new PartitionKey(id), ObjectNode.class));

    assertThat(e.getStatusCode()).isEqualTo(400);
    assertThat(e.getSubStatusCode()).isEqualTo(1234);
  }

  @Test
  void onlyTheAnsweringStatusFault_isUsedUp() {
    String id = unique();
    container.createItem(order(id, id));
    emulator.faults().inject(Operation.READ, Fault.status(503).times(1));
    emulator.faults().inject(Operation.READ, Fault.status(408).times(1));

    CosmosException first =
        cosmosError(() -> container.readItem(id, new PartitionKey(id), ObjectNode.class));
    CosmosException second =
        cosmosError(() -> container.readItem(id, new PartitionKey(id), ObjectNode.class));
    var third = container.readItem(id, new PartitionKey(id), ObjectNode.class);

    assertThat(first.getStatusCode()).isEqualTo(503);
    assertThat(second.getStatusCode()).isEqualTo(408);
    assertThat(third.getStatusCode()).isEqualTo(200);
  }

  @Test
  void failNth_failsOnlyThatRequest() {
    String id = unique();
    container.createItem(order(id, id));
    emulator.faults().failNth(Operation.READ, 2, Fault.status(500));

    var first = container.readItem(id, new PartitionKey(id), ObjectNode.class);
    CosmosException second =
        cosmosError(() -> container.readItem(id, new PartitionKey(id), ObjectNode.class));
    var third = container.readItem(id, new PartitionKey(id), ObjectNode.class);

    assertThat(first.getStatusCode()).isEqualTo(200);
    assertThat(second.getStatusCode()).isEqualTo(500);
    assertThat(third.getStatusCode()).isEqualTo(200);
  }

  @Test
  void addedLatency_delaysTheAnswer() {
    String id = unique();
    container.createItem(order(id, id));
    emulator.faults().inject(Operation.READ, Fault.latency(Duration.ofMillis(300)).times(1));

    long start = System.nanoTime();
    var read = container.readItem(id, new PartitionKey(id), ObjectNode.class);
    long elapsedMillis = (System.nanoTime() - start) / 1_000_000;

    assertThat(read.getStatusCode()).isEqualTo(200);
    assertThat(elapsedMillis).isGreaterThanOrEqualTo(300);
  }

  @Test
  void addedLatency_isAResponseTime_theWriteIsServedAtOnceAndItsAnswerHeld() throws Exception {
    String id = unique();
    emulator.faults().inject(Operation.CREATE, Fault.latency(Duration.ofSeconds(3)).times(1));

    long start = System.nanoTime();
    CompletableFuture<Integer> created =
        CompletableFuture.supplyAsync(() -> container.createItem(order(id, id)).getStatusCode());
    boolean seen = false;
    long giveUp = start + Duration.ofSeconds(2).toNanos();
    while (!seen && System.nanoTime() < giveUp) {
      try {
        seen =
            container.readItem(id, new PartitionKey(id), ObjectNode.class).getStatusCode() == 200;
      } catch (CosmosException e) {
        assertThat(e.getStatusCode()).isEqualTo(404);
      }
    }
    boolean answeredWhenSeen = created.isDone();
    int status = created.get(30, TimeUnit.SECONDS);
    long elapsedMillis = (System.nanoTime() - start) / 1_000_000;

    assertThat(seen).as("the write is visible to another request within 2 s").isTrue();
    assertThat(answeredWhenSeen).as("its own answer is still held then").isFalse();
    assertThat(status).isEqualTo(201);
    assertThat(elapsedMillis).isGreaterThanOrEqualTo(3000);
  }

  @Test
  void latencyOnEveryRequest_delaysWritesAndReads_andTheyStillSucceed() {
    String id = unique();
    emulator.faults().injectLatency(Duration.ofMillis(150));

    long start = System.nanoTime();
    int created = container.createItem(order(id, id)).getStatusCode();
    long createMillis = (System.nanoTime() - start) / 1_000_000;
    start = System.nanoTime();
    var read = container.readItem(id, new PartitionKey(id), ObjectNode.class);
    long readMillis = (System.nanoTime() - start) / 1_000_000;

    assertThat(created).isEqualTo(201);
    assertThat(read.getItem().path("orderId").asText()).isEqualTo(id);
    assertThat(createMillis).isGreaterThanOrEqualTo(150);
    assertThat(readMillis).isGreaterThanOrEqualTo(150);
  }

  @Test
  void faultOnOneOperation_leavesOthersAlone() {
    String id = unique();
    emulator.faults().inject(Operation.DELETE, Fault.status(503));

    assertThat(container.createItem(order(id, id)).getStatusCode()).isEqualTo(201);
    assertThat(
            cosmosError(() -> container.deleteItem(id, new PartitionKey(id), null)).getStatusCode())
        .isEqualTo(503);
  }

  @Test
  void faultDescriptions_rejectNonsense() {
    assertThatThrownBy(() -> Fault.status(200)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Fault.status(429).times(0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Fault.latency(Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> emulator.faults().injectLatency(Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> emulator.faults().failNth(Operation.READ, 0, Fault.status(503)))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
