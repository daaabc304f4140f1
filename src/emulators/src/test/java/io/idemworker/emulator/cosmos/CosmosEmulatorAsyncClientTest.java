package io.idemworker.emulator.cosmos;

import static io.idemworker.emulator.cosmos.CosmosEmulatorSyncClientTest.order;
import static io.idemworker.emulator.cosmos.CosmosEmulatorSyncClientTest.unique;
import static org.assertj.core.api.Assertions.assertThat;

import com.azure.cosmos.CosmosAsyncClient;
import com.azure.cosmos.CosmosAsyncContainer;
import com.azure.cosmos.CosmosException;
import com.azure.cosmos.models.CosmosBatch;
import com.azure.cosmos.models.CosmosBatchResponse;
import com.azure.cosmos.models.CosmosItemRequestOptions;
import com.azure.cosmos.models.CosmosItemResponse;
import com.azure.cosmos.models.PartitionKey;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** The same contract through the real asynchronous client in gateway mode. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CosmosEmulatorAsyncClientTest {
  private static final Duration WAIT = Duration.ofSeconds(60);

  private CosmosEmulator emulator;
  private CosmosAsyncClient client;
  private CosmosAsyncContainer container;

  @BeforeAll
  void start() {
    emulator = CosmosEmulator.builder().start();
    client = Clients.async(emulator);
    client.createDatabaseIfNotExists("async-db").block(WAIT);
    client
        .getDatabase("async-db")
        .createContainerIfNotExists(Clients.containerProps("orders", null))
        .block(WAIT);
    container = client.getDatabase("async-db").getContainer("orders");
  }

  @AfterAll
  void stop() {
    client.close();
    emulator.close();
  }

  @Test
  void itemLifecycle_createReadUpsertReplaceDelete() {
    String id = unique();
    PartitionKey pk = new PartitionKey(id);

    CosmosItemResponse<ObjectNode> created = container.createItem(order(id, id)).block(WAIT);
    CosmosItemResponse<ObjectNode> read = container.readItem(id, pk, ObjectNode.class).block(WAIT);
    CosmosItemResponse<ObjectNode> upserted =
        container.upsertItem(order(id, id).put("qty", 2)).block(WAIT);
    CosmosItemResponse<ObjectNode> replaced =
        container
            .replaceItem(
                order(id, id).put("qty", 3),
                id,
                pk,
                new CosmosItemRequestOptions().setIfMatchETag(upserted.getETag()))
            .block(WAIT);
    CosmosItemResponse<Object> deleted =
        container.deleteItem(id, pk, new CosmosItemRequestOptions()).block(WAIT);

    assertThat(created.getStatusCode()).isEqualTo(201);
    assertThat(read.getItem().get("id").asText()).isEqualTo(id);
    assertThat(upserted.getStatusCode()).isEqualTo(200);
    assertThat(replaced.getItem().get("qty").asInt()).isEqualTo(3);
    assertThat(deleted.getStatusCode()).isEqualTo(204);
    assertThat(status(container.readItem(id, pk, ObjectNode.class))).isEqualTo(404);
  }

  @Test
  void concurrentCreatesOfSameId_haveExactlyOneWinner() {
    String id = unique();
    int attempts = 16;

    List<Integer> statuses =
        Flux.range(0, attempts)
            .flatMap(
                n ->
                    container
                        .createItem(order(id, "race").put("writer", n))
                        .map(CosmosItemResponse::getStatusCode)
                        .onErrorResume(CosmosException.class, e -> Mono.just(e.getStatusCode())),
                attempts)
            .collectList()
            .block(WAIT);

    assertThat(statuses).filteredOn(s -> s == 201).hasSize(1);
    assertThat(statuses).filteredOn(s -> s == 409).hasSize(attempts - 1);
  }

  @Test
  void batchWhoseSecondOperationConflicts_writesNothing() {
    String pk = unique();
    container.createItem(order("taken", pk)).block(WAIT);
    CosmosBatch batch = CosmosBatch.createCosmosBatch(new PartitionKey(pk));
    batch.createItemOperation(order("fresh", pk));
    batch.createItemOperation(order("taken", pk));

    CosmosBatchResponse response = container.executeCosmosBatch(batch).block(WAIT);

    assertThat(response.getStatusCode()).isEqualTo(409);
    assertThat(response.getResults()).extracting(r -> r.getStatusCode()).containsExactly(424, 409);
    assertThat(status(container.readItem("fresh", new PartitionKey(pk), ObjectNode.class)))
        .isEqualTo(404);
  }

  @Test
  void successfulBatch_commitsEveryOperation() {
    String pk = unique();
    CosmosBatch batch = CosmosBatch.createCosmosBatch(new PartitionKey(pk));
    batch.createItemOperation(order("one", pk));
    batch.createItemOperation(order("two", pk));

    CosmosBatchResponse response = container.executeCosmosBatch(batch).block(WAIT);

    assertThat(response.getStatusCode()).isEqualTo(200);
    assertThat(
            container
                .readItem("two", new PartitionKey(pk), ObjectNode.class)
                .block(WAIT)
                .getStatusCode())
        .isEqualTo(200);
  }

  private static int status(Mono<?> call) {
    try {
      call.block(WAIT);
      return 200;
    } catch (CosmosException e) {
      return e.getStatusCode();
    }
  }
}
