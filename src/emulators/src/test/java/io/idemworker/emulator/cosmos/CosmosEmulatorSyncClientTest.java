package io.idemworker.emulator.cosmos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosException;
import com.azure.cosmos.models.CosmosBatch;
import com.azure.cosmos.models.CosmosBatchResponse;
import com.azure.cosmos.models.CosmosItemRequestOptions;
import com.azure.cosmos.models.CosmosItemResponse;
import com.azure.cosmos.models.PartitionKey;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** Item, batch and metadata behaviour through the real synchronous client in gateway mode. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CosmosEmulatorSyncClientTest {
  private CosmosEmulator emulator;
  private CosmosClient client;
  private CosmosContainer container;

  @BeforeAll
  void start() {
    emulator = CosmosEmulator.builder().start();
    client = Clients.sync(emulator);
    client.createDatabaseIfNotExists("orders-db");
    client
        .getDatabase("orders-db")
        .createContainerIfNotExists(Clients.containerProps("orders", null));
    container = client.getDatabase("orders-db").getContainer("orders");
  }

  @AfterAll
  void stop() {
    client.close();
    emulator.close();
  }

  static ObjectNode order(String id, String orderId) {
    return JsonNodeFactory.instance
        .objectNode()
        .put("id", id)
        .put("orderId", orderId)
        .put("qty", 1);
  }

  static String unique() {
    return UUID.randomUUID().toString();
  }

  static CosmosException cosmosError(ThrowingCallable call) {
    Throwable t = org.assertj.core.api.Assertions.catchThrowable(call);
    assertThat(t).isInstanceOf(CosmosException.class);
    return (CosmosException) t;
  }

  @Test
  void create_returns201WithSystemPropertiesSessionTokenAndCharge() {
    String id = unique();
    CosmosItemResponse<ObjectNode> created = container.createItem(order(id, id));

    assertThat(created.getStatusCode()).isEqualTo(201);
    ObjectNode body = created.getItem();
    assertThat(body.get("id").asText()).isEqualTo(id);
    assertThat(body.get("_rid").asText()).isNotBlank();
    assertThat(body.get("_etag").asText()).isEqualTo(created.getETag());
    assertThat(body.get("_ts").asLong()).isPositive();
    assertThat(created.getSessionToken()).matches("0:-1#\\d+");
    assertThat(created.getRequestCharge()).isEqualTo(4.95);
  }

  @Test
  void read_returnsStoredDocumentForOneRequestUnit() {
    String id = unique();
    container.createItem(order(id, id));

    CosmosItemResponse<ObjectNode> read =
        container.readItem(id, new PartitionKey(id), ObjectNode.class);

    assertThat(read.getStatusCode()).isEqualTo(200);
    assertThat(read.getItem().get("qty").asInt()).isEqualTo(1);
    assertThat(read.getRequestCharge()).isEqualTo(1.0);
  }

  @Test
  void writeCharge_growsWithDocumentSize() {
    String id = unique();
    ObjectNode big = order(id, id).put("payload", "x".repeat(20_000));

    CosmosItemResponse<ObjectNode> created = container.createItem(big);
    CosmosItemResponse<ObjectNode> read =
        container.readItem(id, new PartitionKey(id), ObjectNode.class);

    // about 20 KB: between the published 16 KB and 32 KB figures
    assertThat(created.getRequestCharge()).isStrictlyBetween(9.52, 11.23);
    assertThat(read.getRequestCharge()).isStrictlyBetween(1.67, 2.19);
  }

  @Test
  void createOfExistingIdInSamePartition_is409() {
    String id = unique();
    container.createItem(order(id, "p"));

    CosmosException e = cosmosError(() -> container.createItem(order(id, "p")));

    assertThat(e.getStatusCode()).isEqualTo(409);
  }

  @Test
  void sameIdInDifferentPartitions_areDistinctItems() {
    String id = unique();
    container.createItem(order(id, "p1"));
    container.createItem(order(id, "p2").put("qty", 2));

    assertThat(
            container
                .readItem(id, new PartitionKey("p2"), ObjectNode.class)
                .getItem()
                .get("qty")
                .asInt())
        .isEqualTo(2);
    assertThat(
            container
                .readItem(id, new PartitionKey("p1"), ObjectNode.class)
                .getItem()
                .get("qty")
                .asInt())
        .isEqualTo(1);
  }

  @Test
  void readOfMissingItem_is404() {
    CosmosException e =
        cosmosError(() -> container.readItem(unique(), new PartitionKey("p"), ObjectNode.class));

    assertThat(e.getStatusCode()).isEqualTo(404);
  }

  @Test
  void upsert_createsThenReplaces() {
    String id = unique();

    CosmosItemResponse<ObjectNode> first = container.upsertItem(order(id, id));
    CosmosItemResponse<ObjectNode> second = container.upsertItem(order(id, id).put("qty", 5));

    assertThat(first.getStatusCode()).isEqualTo(201);
    assertThat(second.getStatusCode()).isEqualTo(200);
    assertThat(second.getETag()).isNotEqualTo(first.getETag());
    assertThat(second.getItem().get("_rid").asText())
        .isEqualTo(first.getItem().get("_rid").asText());
    assertThat(
            container
                .readItem(id, new PartitionKey(id), ObjectNode.class)
                .getItem()
                .get("qty")
                .asInt())
        .isEqualTo(5);
  }

  @Test
  void replaceWithCurrentIfMatch_succeeds_andWithStaleIfMatch_is412() {
    String id = unique();
    String firstEtag = container.createItem(order(id, id)).getETag();
    CosmosItemRequestOptions ifFirst = new CosmosItemRequestOptions().setIfMatchETag(firstEtag);

    CosmosItemResponse<ObjectNode> replaced =
        container.replaceItem(order(id, id).put("qty", 2), id, new PartitionKey(id), ifFirst);
    CosmosException stale =
        cosmosError(
            () ->
                container.replaceItem(
                    order(id, id).put("qty", 3), id, new PartitionKey(id), ifFirst));

    assertThat(replaced.getStatusCode()).isEqualTo(200);
    assertThat(stale.getStatusCode()).isEqualTo(412);
    assertThat(
            container
                .readItem(id, new PartitionKey(id), ObjectNode.class)
                .getItem()
                .get("qty")
                .asInt())
        .isEqualTo(2);
  }

  @Test
  void replaceOfMissingItem_is404() {
    String id = unique();

    CosmosException e =
        cosmosError(
            () ->
                container.replaceItem(
                    order(id, id), id, new PartitionKey(id), new CosmosItemRequestOptions()));

    assertThat(e.getStatusCode()).isEqualTo(404);
  }

  @Test
  void deleteWithStaleIfMatch_is412_thenDeleteRemovesItem() {
    String id = unique();
    String etag = container.createItem(order(id, id)).getETag();
    container.upsertItem(order(id, id).put("qty", 9));

    CosmosException stale =
        cosmosError(
            () ->
                container.deleteItem(
                    id, new PartitionKey(id), new CosmosItemRequestOptions().setIfMatchETag(etag)));
    CosmosItemResponse<Object> deleted =
        container.deleteItem(id, new PartitionKey(id), new CosmosItemRequestOptions());

    assertThat(stale.getStatusCode()).isEqualTo(412);
    assertThat(deleted.getStatusCode()).isEqualTo(204);
    assertThat(
            cosmosError(() -> container.readItem(id, new PartitionKey(id), ObjectNode.class))
                .getStatusCode())
        .isEqualTo(404);
    assertThat(
            cosmosError(
                    () ->
                        container.deleteItem(
                            id, new PartitionKey(id), new CosmosItemRequestOptions()))
                .getStatusCode())
        .isEqualTo(404);
  }

  @Test
  void returnMinimal_answersWithoutBodyButWithEtag() {
    String id = unique();
    CosmosItemRequestOptions minimal =
        new CosmosItemRequestOptions().setContentResponseOnWriteEnabled(false);

    CosmosItemResponse<ObjectNode> created =
        container.createItem(order(id, id), new PartitionKey(id), minimal);

    assertThat(created.getStatusCode()).isEqualTo(201);
    assertThat(created.getItem()).isNull();
    assertThat(created.getETag()).isNotBlank();
    assertThat(
            container
                .readItem(id, new PartitionKey(id), ObjectNode.class)
                .getItem()
                .get("_etag")
                .asText())
        .isEqualTo(created.getETag());
  }

  @Test
  void concurrentCreatesOfSameId_haveExactlyOneWinner() throws Exception {
    String id = unique();
    int threads = 8;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch ready = new CountDownLatch(threads);
    CountDownLatch go = new CountDownLatch(1);
    try {
      List<Future<Integer>> outcomes = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        int n = i;
        Callable<Integer> attempt =
            () -> {
              ready.countDown();
              go.await();
              try {
                return container.createItem(order(id, "race").put("writer", n)).getStatusCode();
              } catch (CosmosException e) {
                return e.getStatusCode();
              }
            };
        outcomes.add(pool.submit(attempt));
      }
      assertThat(ready.await(30, TimeUnit.SECONDS)).isTrue();
      go.countDown();
      List<Integer> statuses = new ArrayList<>();
      for (Future<Integer> f : outcomes) {
        statuses.add(f.get(60, TimeUnit.SECONDS));
      }

      assertThat(statuses).filteredOn(s -> s == 201).hasSize(1);
      assertThat(statuses).filteredOn(s -> s == 409).hasSize(threads - 1);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void batch_appliesAllOperationsAtomically() {
    String pk = unique();
    container.createItem(order("existing", pk));

    CosmosBatch batch = CosmosBatch.createCosmosBatch(new PartitionKey(pk));
    batch.createItemOperation(order("a", pk));
    batch.upsertItemOperation(order("b", pk));
    batch.readItemOperation("existing");
    batch.deleteItemOperation("existing");
    CosmosBatchResponse response = container.executeCosmosBatch(batch);

    assertThat(response.isSuccessStatusCode()).isTrue();
    assertThat(response.getStatusCode()).isEqualTo(200);
    assertThat(response.getResults())
        .extracting(r -> r.getStatusCode())
        .containsExactly(201, 201, 200, 204);
    assertThat(response.getResults().get(2).getItem(ObjectNode.class).get("id").asText())
        .isEqualTo("existing");
    assertThat(response.getRequestCharge())
        .isCloseTo(
            response.getResults().stream().mapToDouble(r -> r.getRequestCharge()).sum(),
            org.assertj.core.data.Offset.offset(0.01));
    assertThat(container.readItem("a", new PartitionKey(pk), ObjectNode.class).getStatusCode())
        .isEqualTo(200);
    assertThat(
            cosmosError(
                    () -> container.readItem("existing", new PartitionKey(pk), ObjectNode.class))
                .getStatusCode())
        .isEqualTo(404);
  }

  @Test
  void batchWhoseSecondOperationConflicts_writesNothing_andFailsOthersWith424() {
    String pk = unique();
    container.createItem(order("taken", pk));

    CosmosBatch batch = CosmosBatch.createCosmosBatch(new PartitionKey(pk));
    batch.createItemOperation(order("new-1", pk));
    batch.createItemOperation(order("taken", pk));
    batch.createItemOperation(order("new-2", pk));
    CosmosBatchResponse response = container.executeCosmosBatch(batch);

    assertThat(response.isSuccessStatusCode()).isFalse();
    assertThat(response.getStatusCode()).isEqualTo(409);
    assertThat(response.getResults())
        .extracting(r -> r.getStatusCode())
        .containsExactly(424, 409, 424);
    assertThat(
            cosmosError(() -> container.readItem("new-1", new PartitionKey(pk), ObjectNode.class))
                .getStatusCode())
        .isEqualTo(404);
    assertThat(
            cosmosError(() -> container.readItem("new-2", new PartitionKey(pk), ObjectNode.class))
                .getStatusCode())
        .isEqualTo(404);
  }

  @Test
  void batchWithStaleIfMatch_is412AndWritesNothing() {
    String pk = unique();
    container.createItem(order("x", pk));

    CosmosBatch batch = CosmosBatch.createCosmosBatch(new PartitionKey(pk));
    batch.createItemOperation(order("y", pk));
    batch.replaceItemOperation(
        "x",
        order("x", pk).put("qty", 7),
        new com.azure.cosmos.models.CosmosBatchItemRequestOptions().setIfMatchETag("\"stale\""));
    CosmosBatchResponse response = container.executeCosmosBatch(batch);

    assertThat(response.getStatusCode()).isEqualTo(412);
    assertThat(response.getResults()).extracting(r -> r.getStatusCode()).containsExactly(424, 412);
    assertThat(
            container
                .readItem("x", new PartitionKey(pk), ObjectNode.class)
                .getItem()
                .get("qty")
                .asInt())
        .isEqualTo(1);
  }

  @Test
  void batchOfMoreThan100Operations_is400() {
    String pk = unique();
    CosmosBatch batch = CosmosBatch.createCosmosBatch(new PartitionKey(pk));
    for (int i = 0; i < 101; i++) {
      batch.createItemOperation(order("op-" + i, pk));
    }

    CosmosException e = cosmosError(() -> container.executeCosmosBatch(batch));

    assertThat(e.getStatusCode()).isEqualTo(400);
    assertThat(
            cosmosError(() -> container.readItem("op-0", new PartitionKey(pk), ObjectNode.class))
                .getStatusCode())
        .isEqualTo(404);
  }

  @Test
  void batchOver2Megabytes_is413() {
    String pk = unique();
    CosmosBatch batch = CosmosBatch.createCosmosBatch(new PartitionKey(pk));
    for (int i = 0; i < 3; i++) {
      batch.createItemOperation(order("big-" + i, pk).put("payload", "x".repeat(800_000)));
    }

    CosmosException e = cosmosError(() -> container.executeCosmosBatch(batch));

    assertThat(e.getStatusCode()).isEqualTo(413);
  }

  @Test
  void invalidIds_are400() {
    for (String bad : List.of("a/b", "a\\b", "a?b", "a#b", "x".repeat(256))) {
      CosmosException e = cosmosError(() -> container.createItem(order(bad, "p")));
      assertThat(e.getStatusCode())
          .as("id %s", bad.length() > 20 ? "256 chars" : bad)
          .isEqualTo(400);
    }
  }

  @Test
  void documentOver2Megabytes_is413() {
    String id = unique();
    ObjectNode huge = order(id, id).put("payload", "x".repeat(2 * 1024 * 1024));

    CosmosException e = cosmosError(() -> container.createItem(huge));

    assertThat(e.getStatusCode()).isEqualTo(413);
  }

  @Test
  void partitionKeyNotMatchingDocument_is400() {
    String id = unique();

    CosmosException e =
        cosmosError(
            () ->
                container.createItem(
                    order(id, "actual"),
                    new PartitionKey("other"),
                    new CosmosItemRequestOptions()));

    assertThat(e.getStatusCode()).isEqualTo(400);
  }

  @Test
  void containerLifecycle_createIfNotExistsIsIdempotent_andDeleteMakesItemsUnreachable() {
    var db = client.getDatabase("orders-db");
    assertThat(db.createContainerIfNotExists(Clients.containerProps("temp", null)).getStatusCode())
        .isEqualTo(201);
    assertThat(db.createContainerIfNotExists(Clients.containerProps("temp", null)).getStatusCode())
        .isEqualTo(200);
    CosmosContainer temp = db.getContainer("temp");
    temp.createItem(order("1", "1"));
    assertThat(temp.read().getProperties().getPartitionKeyDefinition().getPaths())
        .containsExactly("/orderId");

    temp.delete();

    assertThat(cosmosError(() -> temp.read()).getStatusCode()).isEqualTo(404);
    assertThat(
            cosmosError(() -> db.createContainer(Clients.containerProps("orders", null)))
                .getStatusCode())
        .isEqualTo(409);
  }

  @Test
  void containerRecreatedUnderSameName_isUsableBySameClient() {
    var db = client.getDatabase("orders-db");
    db.createContainerIfNotExists(Clients.containerProps("recreated", null));
    CosmosContainer first = db.getContainer("recreated");
    first.createItem(order("old", "p"));
    first.delete();

    db.createContainer(Clients.containerProps("recreated", null));
    CosmosContainer second = db.getContainer("recreated");
    var created = second.createItem(order("new", "p"));

    assertThat(created.getStatusCode()).isEqualTo(201);
    assertThat(
            cosmosError(() -> second.readItem("old", new PartitionKey("p"), ObjectNode.class))
                .getStatusCode())
        .isEqualTo(404);
    assertThat(second.readItem("new", new PartitionKey("p"), ObjectNode.class).getStatusCode())
        .isEqualTo(200);
  }

  @Test
  void databaseLifecycle_readAndDelete() {
    client.createDatabaseIfNotExists("scratch-db");
    assertThat(client.getDatabase("scratch-db").read().getProperties().getId())
        .isEqualTo("scratch-db");
    assertThat(client.readAllDatabases().stream().map(d -> d.getId()))
        .contains("scratch-db", "orders-db");

    client.getDatabase("scratch-db").delete();

    assertThat(cosmosError(() -> client.getDatabase("scratch-db").read()).getStatusCode())
        .isEqualTo(404);
  }

  @Test
  void statsCountRequestsByOperation() {
    String id = unique();
    long creates = emulator.stats().count(Operation.CREATE);
    long reads = emulator.stats().count(Operation.READ);
    double charge = emulator.stats().totalRequestCharge();

    container.createItem(order(id, id));
    container.readItem(id, new PartitionKey(id), ObjectNode.class);

    assertThat(emulator.stats().count(Operation.CREATE)).isGreaterThanOrEqualTo(creates + 1);
    assertThat(emulator.stats().count(Operation.READ)).isGreaterThanOrEqualTo(reads + 1);
    assertThat(emulator.stats().totalRequestCharge()).isGreaterThan(charge + 5.9);
    assertThatThrownBy(() -> emulator.stats().count(null)).isInstanceOf(NullPointerException.class);
  }
}
