package io.idemworker.emulator.cosmos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.azure.cosmos.CosmosAsyncClient;
import com.azure.cosmos.CosmosAsyncContainer;
import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosException;
import com.azure.cosmos.models.CosmosBatch;
import com.azure.cosmos.models.CosmosBatchItemRequestOptions;
import com.azure.cosmos.models.CosmosBatchPatchItemRequestOptions;
import com.azure.cosmos.models.CosmosBatchResponse;
import com.azure.cosmos.models.CosmosItemResponse;
import com.azure.cosmos.models.CosmosPatchItemRequestOptions;
import com.azure.cosmos.models.CosmosPatchOperations;
import com.azure.cosmos.models.PartitionKey;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** Patch, alone and inside a transactional batch, through the real client in gateway mode. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CosmosEmulatorPatchTest {
  private CosmosEmulator emulator;
  private CosmosClient client;
  private CosmosAsyncClient asyncClient;
  private CosmosContainer container;

  @BeforeAll
  void start() {
    emulator = CosmosEmulator.builder().start();
    client = Clients.sync(emulator);
    asyncClient = Clients.async(emulator);
    client.createDatabaseIfNotExists("patch-db");
    client
        .getDatabase("patch-db")
        .createContainerIfNotExists(Clients.containerProps("orders", null));
    container = client.getDatabase("patch-db").getContainer("orders");
  }

  @AfterAll
  void stop() {
    asyncClient.close();
    client.close();
    emulator.close();
  }

  private ObjectNode stored(String status, int statusVersion) {
    String id = UUID.randomUUID().toString();
    ObjectNode doc = JsonNodeFactory.instance.objectNode();
    doc.put("id", id).put("orderId", id).put("status", status).put("statusVersion", statusVersion);
    doc.put("qty", 1).put("price", 1.5);
    doc.putArray("lines").add("a").add("b");
    doc.putObject("customer").put("name", "Ada");
    return container.createItem(doc).getItem();
  }

  private ObjectNode read(ObjectNode doc) {
    String id = doc.get("id").asText();
    return container.readItem(id, new PartitionKey(id), ObjectNode.class).getItem();
  }

  private CosmosItemResponse<ObjectNode> patch(
      ObjectNode doc, CosmosPatchOperations ops, CosmosPatchItemRequestOptions options) {
    String id = doc.get("id").asText();
    return container.patchItem(id, new PartitionKey(id), ops, options, ObjectNode.class);
  }

  private static CosmosException cosmosError(ThrowingCallable call) {
    Throwable t = catchThrowable(call);
    assertThat(t).isInstanceOf(CosmosException.class);
    return (CosmosException) t;
  }

  @Test
  void patch_appliesEveryOperationAndStampsANewEtag() {
    ObjectNode doc = stored("Placed", 1);

    CosmosItemResponse<ObjectNode> r =
        patch(
            doc,
            CosmosPatchOperations.create()
                .set("/status", "Paid")
                .add("/customer/email", "ada@example.org")
                .replace("/customer/name", "Ada L.")
                .remove("/price")
                .increment("/qty", 2)
                .move("/lines", "/items"),
            new CosmosPatchItemRequestOptions());

    assertThat(r.getStatusCode()).isEqualTo(200);
    assertThat(r.getRequestCharge()).isGreaterThanOrEqualTo(4.95);
    assertThat(r.getETag()).isNotEqualTo(doc.get("_etag").asText());
    ObjectNode now = read(doc);
    assertThat(now.get("status").asText()).isEqualTo("Paid");
    assertThat(now.at("/customer/email").asText()).isEqualTo("ada@example.org");
    assertThat(now.at("/customer/name").asText()).isEqualTo("Ada L.");
    assertThat(now.has("price")).isFalse();
    assertThat(now.has("lines")).isFalse();
    assertThat(now.get("items")).hasSize(2);
    assertThat(now.get("_etag").asText()).isEqualTo(r.getETag());
    assertThat(r.getItem()).isEqualTo(now);
  }

  @Test
  void increment_keepsIntegersIntegral_andAddsDoubles_andCreatesAMissingPath() {
    ObjectNode doc = stored("Placed", 1);

    ObjectNode now =
        patch(
                doc,
                CosmosPatchOperations.create()
                    .increment("/qty", 41)
                    .increment("/price", 0.25)
                    .increment("/fresh", 7),
                new CosmosPatchItemRequestOptions())
            .getItem();

    assertThat(now.get("qty").isIntegralNumber()).isTrue();
    assertThat(now.get("qty").longValue()).isEqualTo(42);
    assertThat(now.get("price").doubleValue()).isEqualTo(1.75);
    assertThat(now.get("fresh").longValue()).isEqualTo(7);
  }

  @Test
  void arrayPaths_insertAtAnIndex_appendWithDash_setAndRemoveByIndex() {
    ObjectNode doc = stored("Placed", 1);

    ObjectNode now =
        patch(
                doc,
                CosmosPatchOperations.create()
                    .add("/lines/0", "first")
                    .add("/lines/-", "last")
                    .set("/lines/1", "A")
                    .remove("/lines/2"),
                new CosmosPatchItemRequestOptions())
            .getItem();

    assertThat(now.get("lines").toString()).isEqualTo("[\"first\",\"A\",\"last\"]");
  }

  @Test
  void filterPredicate_thatHolds_appliesThePatch() {
    ObjectNode doc = stored("Placed", 2);

    CosmosItemResponse<ObjectNode> r =
        patch(
            doc,
            CosmosPatchOperations.create().set("/status", "Paid").increment("/statusVersion", 1),
            new CosmosPatchItemRequestOptions()
                .setFilterPredicate("FROM c WHERE c.statusVersion < 3 AND c.status = 'Placed'"));

    assertThat(r.getStatusCode()).isEqualTo(200);
    assertThat(read(doc).get("statusVersion").intValue()).isEqualTo(3);
  }

  @Test
  void filterPredicate_thatFails_is412AndLeavesTheItemUnchanged() {
    ObjectNode doc = stored("Shipped", 5);

    CosmosException e =
        cosmosError(
            () ->
                patch(
                    doc,
                    CosmosPatchOperations.create().set("/status", "Paid"),
                    new CosmosPatchItemRequestOptions()
                        .setFilterPredicate("FROM c WHERE c.statusVersion < 3")));

    assertThat(e.getStatusCode()).isEqualTo(412);
    assertThat(read(doc)).isEqualTo(doc);
  }

  @Test
  void filterPredicate_onAnUndefinedProperty_isFalsyAnd412() {
    ObjectNode doc = stored("Placed", 1);

    CosmosException e =
        cosmosError(
            () ->
                patch(
                    doc,
                    CosmosPatchOperations.create().set("/status", "Paid"),
                    new CosmosPatchItemRequestOptions()
                        .setFilterPredicate("from c where c.missing < 3 or c.status = 1")));

    assertThat(e.getStatusCode()).isEqualTo(412);
  }

  @Test
  void ifMatch_currentEtagApplies_staleEtagIs412() {
    ObjectNode doc = stored("Placed", 1);
    String etag = doc.get("_etag").asText();

    CosmosItemResponse<ObjectNode> first =
        patch(doc, CosmosPatchOperations.create().set("/status", "Paid"), ifMatch(etag));
    CosmosException stale =
        cosmosError(
            () ->
                patch(
                    doc,
                    CosmosPatchOperations.create().set("/status", "Cancelled"),
                    ifMatch(etag)));

    assertThat(first.getStatusCode()).isEqualTo(200);
    assertThat(stale.getStatusCode()).isEqualTo(412);
    assertThat(read(doc).get("status").asText()).isEqualTo("Paid");
  }

  private static CosmosPatchItemRequestOptions ifMatch(String etag) {
    CosmosPatchItemRequestOptions options = new CosmosPatchItemRequestOptions();
    options.setIfMatchETag(etag);
    return options;
  }

  @Test
  void missingItem_is404() {
    String id = UUID.randomUUID().toString();

    CosmosException e =
        cosmosError(
            () ->
                container.patchItem(
                    id,
                    new PartitionKey(id),
                    CosmosPatchOperations.create().set("/status", "Paid"),
                    ObjectNode.class));

    assertThat(e.getStatusCode()).isEqualTo(404);
    assertThat(e.getMessage()).contains("Resource Not Found");
  }

  @Test
  void addUnderAMissingParent_is400InTheServicesWords_namingTheFirstMissingStep() {
    ObjectNode doc = stored("Placed", 1);

    CosmosException e =
        cosmosError(
            () ->
                patch(
                    doc,
                    CosmosPatchOperations.create().add("/customer/address/street", "x"),
                    new CosmosPatchItemRequestOptions()));

    assertThat(e.getStatusCode()).isEqualTo(400);
    assertThat(e.getMessage())
        .contains(
            "Add Operation only support adding a leaf node of an existing node(array or object),"
                + " no path found beyond: 'address'");
    assertThat(read(doc)).isEqualTo(doc);
  }

  @Test
  void badPathsAndOperands_are400WithAClearMessage_andChangeNothing() {
    ObjectNode doc = stored("Placed", 1);
    List<CosmosPatchOperations> bad =
        List.of(
            CosmosPatchOperations.create().replace("/nothing", 1),
            CosmosPatchOperations.create().add("/no/such/parent", 1),
            CosmosPatchOperations.create().increment("/status", 1),
            CosmosPatchOperations.create().remove("/nothing"),
            CosmosPatchOperations.create().add("/lines/9", "x"),
            CosmosPatchOperations.create().set("/orderId", "other"),
            CosmosPatchOperations.create().set("/status", "Paid").remove("/id"));

    for (CosmosPatchOperations ops : bad) {
      CosmosException e = cosmosError(() -> patch(doc, ops, new CosmosPatchItemRequestOptions()));
      assertThat(e.getStatusCode()).as(ops.toString()).isEqualTo(400);
      assertThat(e.getMessage()).containsAnyOf("path", "number", "partition key", "id", "index");
    }
    assertThat(read(doc)).isEqualTo(doc);
  }

  @Test
  void malformedFilterPredicate_is400NamingTheProblem() {
    ObjectNode doc = stored("Placed", 1);

    CosmosException e =
        cosmosError(
            () ->
                patch(
                    doc,
                    CosmosPatchOperations.create().set("/status", "Paid"),
                    new CosmosPatchItemRequestOptions()
                        .setFilterPredicate("FROM c WHERE c.a & 1 = 1")));

    assertThat(e.getStatusCode()).isEqualTo(400);
    assertThat(e.getMessage()).contains("'&'");
  }

  @Test
  void patchInABatch_commitsTogetherWithTheOtherOperations() {
    ObjectNode doc = stored("Placed", 1);
    String id = doc.get("id").asText();
    ObjectNode marker =
        JsonNodeFactory.instance.objectNode().put("id", "marker-" + id).put("orderId", id);

    CosmosBatch batch = CosmosBatch.createCosmosBatch(new PartitionKey(id));
    batch.createItemOperation(marker);
    batch.patchItemOperation(
        id,
        CosmosPatchOperations.create().set("/status", "Paid").increment("/statusVersion", 1),
        new CosmosBatchPatchItemRequestOptions()
            .setFilterPredicate("FROM c WHERE c.statusVersion < 3")
            .setIfMatchETag(doc.get("_etag").asText()));
    CosmosBatchResponse r = container.executeCosmosBatch(batch);

    assertThat(r.isSuccessStatusCode()).isTrue();
    assertThat(r.getResults().get(1).getStatusCode()).isEqualTo(200);
    assertThat(r.getResults().get(1).getItem(ObjectNode.class).get("status").asText())
        .isEqualTo("Paid");
    assertThat(read(doc).get("statusVersion").intValue()).isEqualTo(2);
    assertThat(container.readItem("marker-" + id, new PartitionKey(id), ObjectNode.class))
        .isNotNull();
  }

  @Test
  void failingPatchInABatch_failsTheWholeBatch_andNothingChanges() {
    ObjectNode doc = stored("Shipped", 7);
    String id = doc.get("id").asText();
    ObjectNode marker =
        JsonNodeFactory.instance.objectNode().put("id", "marker-" + id).put("orderId", id);

    CosmosBatch batch = CosmosBatch.createCosmosBatch(new PartitionKey(id));
    batch.createItemOperation(marker);
    batch.patchItemOperation(
        id,
        CosmosPatchOperations.create().set("/status", "Paid"),
        new CosmosBatchPatchItemRequestOptions()
            .setFilterPredicate("FROM c WHERE c.statusVersion < 3"));
    CosmosBatchResponse r = container.executeCosmosBatch(batch);

    assertThat(r.isSuccessStatusCode()).isFalse();
    assertThat(r.getStatusCode()).isEqualTo(412);
    assertThat(r.getResults().get(0).getStatusCode()).isEqualTo(424);
    assertThat(r.getResults().get(1).getStatusCode()).isEqualTo(412);
    assertThat(read(doc)).isEqualTo(doc);
    CosmosException markerRead =
        cosmosError(
            () -> container.readItem("marker-" + id, new PartitionKey(id), ObjectNode.class));
    assertThat(markerRead.getStatusCode()).isEqualTo(404);
  }

  @Test
  void batchIfMatch_isHonouredByReplaceUpsertDeleteAndPatch() {
    ObjectNode doc = stored("Placed", 1);
    String id = doc.get("id").asText();
    String staleEtag = "\"00000000-0000-0000-0000-000000000000\"";
    CosmosBatchItemRequestOptions stale =
        new CosmosBatchItemRequestOptions().setIfMatchETag(staleEtag);
    ObjectNode replacement = doc.deepCopy().put("status", "Replaced");

    List<CosmosBatch> staleBatches =
        List.of(
            batchOf(id, b -> b.replaceItemOperation(id, replacement, stale)),
            batchOf(id, b -> b.upsertItemOperation(replacement, stale)),
            batchOf(id, b -> b.deleteItemOperation(id, stale)),
            batchOf(
                id,
                b ->
                    b.patchItemOperation(
                        id,
                        CosmosPatchOperations.create().set("/status", "Patched"),
                        new CosmosBatchPatchItemRequestOptions().setIfMatchETag(staleEtag))));
    for (CosmosBatch batch : staleBatches) {
      CosmosBatchResponse r = container.executeCosmosBatch(batch);
      assertThat(r.getStatusCode()).isEqualTo(412);
    }
    assertThat(read(doc)).isEqualTo(doc);

    CosmosBatchResponse current =
        container.executeCosmosBatch(
            batchOf(
                id,
                b ->
                    b.replaceItemOperation(
                        id,
                        replacement,
                        new CosmosBatchItemRequestOptions()
                            .setIfMatchETag(doc.get("_etag").asText()))));
    assertThat(current.getStatusCode()).isEqualTo(200);
    assertThat(read(doc).get("status").asText()).isEqualTo("Replaced");
  }

  private static CosmosBatch batchOf(String pk, java.util.function.Consumer<CosmosBatch> fill) {
    CosmosBatch batch = CosmosBatch.createCosmosBatch(new PartitionKey(pk));
    fill.accept(batch);
    return batch;
  }

  @Test
  void asyncClient_patchesAndSeesTheNewDocument() {
    ObjectNode doc = stored("Placed", 1);
    String id = doc.get("id").asText();
    CosmosAsyncContainer async = asyncClient.getDatabase("patch-db").getContainer("orders");

    CosmosItemResponse<JsonNode> r =
        async
            .patchItem(
                id,
                new PartitionKey(id),
                CosmosPatchOperations.create().set("/status", "Paid"),
                new CosmosPatchItemRequestOptions()
                    .setFilterPredicate("FROM o WHERE o.status = 'Placed'"),
                JsonNode.class)
            .block(Duration.ofSeconds(30));

    assertThat(r).isNotNull();
    assertThat(r.getItem().get("status").asText()).isEqualTo("Paid");
    assertThat(read(doc).get("status").asText()).isEqualTo("Paid");
  }

  @Test
  void patch_isCountedAsItsOwnOperation_andFaultsCanTargetIt() {
    ObjectNode doc = stored("Placed", 1);
    emulator.faults().inject(Operation.PATCH, Fault.status(503).times(1));

    CosmosException e =
        cosmosError(
            () ->
                patch(
                    doc,
                    CosmosPatchOperations.create().set("/status", "Paid"),
                    new CosmosPatchItemRequestOptions()));

    assertThat(e.getStatusCode()).isEqualTo(503);
    assertThat(emulator.stats().count(Operation.PATCH)).isGreaterThanOrEqualTo(1);
    assertThat(read(doc)).isEqualTo(doc);
  }
}
