package io.idemworker.emulator.cosmos;

import static io.idemworker.emulator.cosmos.CosmosEmulatorSyncClientTest.cosmosError;
import static io.idemworker.emulator.cosmos.CosmosEmulatorSyncClientTest.order;
import static io.idemworker.emulator.cosmos.CosmosEmulatorSyncClientTest.unique;
import static org.assertj.core.api.Assertions.assertThat;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosException;
import com.azure.cosmos.models.CosmosBatch;
import com.azure.cosmos.models.CosmosBatchResponse;
import com.azure.cosmos.models.CosmosItemResponse;
import com.azure.cosmos.models.PartitionKey;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * What a transactional batch answers beyond its operations' statuses, through the real client: the
 * bound on the documents one answer carries, and the headers of failed batches and failed reads.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CosmosEmulatorBatchResponseTest {
  private static final String OWNER_ID = "x-ms-content-path";
  private static final String SESSION_TOKEN = "x-ms-session-token";

  private CosmosEmulator emulator;
  private CosmosClient client;
  private CosmosContainer container;

  @BeforeAll
  void start() {
    emulator = CosmosEmulator.builder().start();
    client = Clients.sync(emulator);
    client.createDatabaseIfNotExists("batch-db");
    client
        .getDatabase("batch-db")
        .createContainerIfNotExists(Clients.containerProps("orders", null));
    container = client.getDatabase("batch-db").getContainer("orders");
  }

  @AfterAll
  void stop() {
    client.close();
    emulator.close();
  }

  @Test
  void batchWhoseReadsWouldAnswerMoreThan4Megabytes_is413_andAppliesNothing() {
    String pk = unique();
    ObjectNode big = order("big", pk).put("payload", "x".repeat(1024 * 1024));
    container.createItem(big);
    CosmosBatch batch = CosmosBatch.createCosmosBatch(new PartitionKey(pk));
    batch.createItemOperation(order("written-first", pk));
    for (int i = 0; i < 6; i++) {
      batch.readItemOperation("big");
    }

    CosmosBatchResponse response = container.executeCosmosBatch(batch);

    assertThat(response.getStatusCode()).isEqualTo(413);
    assertThat(response.getResults()).hasSize(7);
    // Four 1 MiB documents plus the first one pass 4 MiB: the fourth read is the one refused.
    assertThat(response.getResults().get(4).getStatusCode()).isEqualTo(413);
    assertThat(response.getResults())
        .filteredOn(r -> r.getStatusCode() != 413)
        .allSatisfy(r -> assertThat(r.getStatusCode()).isEqualTo(424));
    assertThat(
            cosmosError(
                    () ->
                        container.readItem("written-first", new PartitionKey(pk), ObjectNode.class))
                .getStatusCode())
        .isEqualTo(404);
  }

  @Test
  void batchOfReadsUnder4Megabytes_isServedWhole() {
    String pk = unique();
    container.createItem(order("big", pk).put("payload", "x".repeat(1024 * 1024)));
    CosmosBatch batch = CosmosBatch.createCosmosBatch(new PartitionKey(pk));
    for (int i = 0; i < 3; i++) {
      batch.readItemOperation("big");
    }

    CosmosBatchResponse response = container.executeCosmosBatch(batch);

    assertThat(response.getStatusCode()).isEqualTo(200);
    assertThat(response.getResults())
        .allSatisfy(
            r ->
                assertThat(r.getItem(ObjectNode.class).get("payload").asText())
                    .hasSize(1024 * 1024));
  }

  @Test
  void failedReadAndFailedBatch_carryASessionToken_butNoOwnerId() {
    String pk = unique();
    CosmosException missing =
        cosmosError(() -> container.readItem(unique(), new PartitionKey(pk), ObjectNode.class));
    CosmosBatch failing = CosmosBatch.createCosmosBatch(new PartitionKey(pk));
    failing.readItemOperation(unique());

    CosmosBatchResponse failed = container.executeCosmosBatch(failing);

    assertThat(missing.getStatusCode()).isEqualTo(404);
    assertThat(missing.getResponseHeaders()).containsKey(SESSION_TOKEN).doesNotContainKey(OWNER_ID);
    assertThat(failed.getStatusCode()).isEqualTo(404);
    assertThat(failed.getSessionToken()).startsWith("0:");
    assertThat(failed.getResponseHeaders()).doesNotContainKey(OWNER_ID);
  }

  @Test
  void successfulReadAndBatch_nameTheContainerAsOwner() {
    String pk = unique();
    container.createItem(order("present", pk));
    CosmosBatch batch = CosmosBatch.createCosmosBatch(new PartitionKey(pk));
    batch.readItemOperation("present");

    CosmosItemResponse<ObjectNode> read =
        container.readItem("present", new PartitionKey(pk), ObjectNode.class);
    CosmosBatchResponse served = container.executeCosmosBatch(batch);

    String containerRid = container.read().getProperties().getResourceId();
    assertThat(read.getResponseHeaders()).containsEntry(OWNER_ID, containerRid);
    assertThat(served.getStatusCode()).isEqualTo(200);
    assertThat(served.getResponseHeaders()).containsEntry(OWNER_ID, containerRid);
  }
}
