package io.idemworker.cosmos;

import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosException;
import com.azure.cosmos.models.CosmosBatch;
import com.azure.cosmos.models.CosmosBatchOperationResult;
import com.azure.cosmos.models.CosmosBatchPatchItemRequestOptions;
import com.azure.cosmos.models.CosmosBatchResponse;
import com.azure.cosmos.models.CosmosItemResponse;
import com.azure.cosmos.models.CosmosPatchItemRequestOptions;
import com.azure.cosmos.models.CosmosPatchOperations;
import com.azure.cosmos.models.PartitionKey;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.core.DocumentPatch;
import io.idemworker.core.EffectStore;
import io.idemworker.core.ReadinessProbe;
import io.idemworker.core.StoreFailure;
import io.idemworker.core.WriteSet;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * An {@link EffectStore} on one Cosmos DB container partitioned by the write sets' partition key, a
 * single top-level field (e.g. {@code /shipmentId}).
 *
 * <p>{@link #apply} is one transactional batch of creates and then patches: Cosmos DB commits all
 * or none, and answers 409 on the anchor's create when the anchor exists, which makes the batch
 * itself the duplicate check; a patch answers 404 (missing) or 412 (its filter predicate failed).
 * {@link #update} is one patch with a filter predicate, {@link #read} one point read. Each is
 * exactly one round trip, reported to the {@link StoreCallListener}; the SDK's own retries on 429
 * are inside that round trip.
 *
 * <p>Thread-safe (the SDK container is). Never throws for a Cosmos DB error: every failure is
 * classified into {@link StoreFailure}.
 */
public final class CosmosEffectStore implements EffectStore, ReadinessProbe {
  private static final String PROBE_ID = "idemworker-readiness-probe";

  private final CosmosContainer container;
  private final StoreCallListener listener;
  private final String partitionKeyField;

  /**
   * Creates the adapter for a container with any single-field partition key.
   *
   * @param container the container holding the effects
   * @param listener told about every round trip
   * @param partitionKeyPath the container's partition key path, e.g. {@code /shipmentId}: the
   *     readiness probe's document carries its own partition in that field
   */
  public CosmosEffectStore(
      CosmosContainer container, StoreCallListener listener, String partitionKeyPath) {
    this.container = Objects.requireNonNull(container, "container");
    this.listener = Objects.requireNonNull(listener, "listener");
    if (!partitionKeyPath.matches("/[A-Za-z_][A-Za-z0-9_]{0,63}")) {
      throw new IllegalArgumentException(
          "partition key path must be /field, a top-level field, was " + partitionKeyPath);
    }
    this.partitionKeyField = partitionKeyPath.substring(1);
  }

  @Override
  public WriteResult apply(WriteSet writeSet) {
    CosmosBatch batch = CosmosBatch.createCosmosBatch(new PartitionKey(writeSet.partitionKey()));
    for (ObjectNode document : writeSet.documents()) {
      batch.createItemOperation(document);
    }
    for (DocumentPatch patch : writeSet.patches()) {
      CosmosBatchPatchItemRequestOptions options = new CosmosBatchPatchItemRequestOptions();
      patch
          .condition()
          .map(CosmosEffectStore::filterPredicate)
          .ifPresent(options::setFilterPredicate);
      batch.patchItemOperation(patch.id(), operations(patch), options);
    }
    long start = System.nanoTime();
    CosmosBatchResponse response;
    try {
      response = container.executeCosmosBatch(batch);
    } catch (CosmosException e) {
      listener.onCall("batch", e.getStatusCode(), e.getRequestCharge(), since(start));
      return new Failed(CosmosFailures.of(e));
    } catch (RuntimeException e) {
      listener.onCall("batch", 0, 0, since(start));
      return new Failed(CosmosFailures.noResponse(e));
    }
    listener.onCall("batch", response.getStatusCode(), response.getRequestCharge(), since(start));
    if (response.isSuccessStatusCode()) {
      return new Applied();
    }
    List<CosmosBatchOperationResult> results = response.getResults();
    for (int i = 0; i < results.size(); i++) {
      CosmosBatchOperationResult result = results.get(i);
      if (result.getStatusCode() == 424) {
        continue;
      }
      if (i == 0 && result.getStatusCode() == 409) {
        return new AnchorExists();
      }
      int patchIndex = i - writeSet.documents().size();
      if (patchIndex >= 0 && result.getStatusCode() == 404) {
        return new TargetMissing(writeSet.patches().get(patchIndex).id());
      }
      if (patchIndex >= 0 && result.getStatusCode() == 412) {
        return new ConditionFailed(writeSet.patches().get(patchIndex).id());
      }
      return new Failed(
          CosmosFailures.of(
              result.getStatusCode(),
              result.getSubStatusCode(),
              "batch operation " + (i + 1) + " of " + results.size()));
    }
    return new Failed(
        CosmosFailures.of(response.getStatusCode(), response.getSubStatusCode(), "batch"));
  }

  @Override
  public UpdateResult update(String partitionKey, DocumentPatch patch) {
    CosmosPatchItemRequestOptions options = new CosmosPatchItemRequestOptions();
    patch
        .condition()
        .map(CosmosEffectStore::filterPredicate)
        .ifPresent(options::setFilterPredicate);
    long start = System.nanoTime();
    try {
      CosmosItemResponse<ObjectNode> response =
          container.patchItem(
              patch.id(),
              new PartitionKey(partitionKey),
              operations(patch),
              options,
              ObjectNode.class);
      listener.onCall("patch", response.getStatusCode(), response.getRequestCharge(), since(start));
      return new Applied();
    } catch (CosmosException e) {
      listener.onCall("patch", e.getStatusCode(), e.getRequestCharge(), since(start));
      if (isMissingItem(e)) {
        return new TargetMissing(patch.id());
      }
      if (e.getStatusCode() == 412) {
        return new ConditionFailed(patch.id());
      }
      return new Failed(CosmosFailures.of(e));
    } catch (RuntimeException e) {
      listener.onCall("patch", 0, 0, since(start));
      return new Failed(CosmosFailures.noResponse(e));
    }
  }

  @Override
  public ReadResult read(String partitionKey, String id) {
    long start = System.nanoTime();
    try {
      CosmosItemResponse<ObjectNode> response =
          container.readItem(id, new PartitionKey(partitionKey), ObjectNode.class);
      listener.onCall("read", response.getStatusCode(), response.getRequestCharge(), since(start));
      return new Document(response.getItem());
    } catch (CosmosException e) {
      listener.onCall("read", e.getStatusCode(), e.getRequestCharge(), since(start));
      if (isMissingItem(e)) {
        return new Absent();
      }
      return new Failed(CosmosFailures.of(e));
    } catch (RuntimeException e) {
      listener.onCall("read", 0, 0, since(start));
      return new Failed(CosmosFailures.noResponse(e));
    }
  }

  /** A 404 about the item, not about its container or database (which is misconfiguration). */
  private static boolean isMissingItem(CosmosException e) {
    return e.getStatusCode() == 404
        && e.getSubStatusCode() != CosmosFailures.OWNER_RESOURCE_NOT_FOUND;
  }

  private static CosmosPatchOperations operations(DocumentPatch patch) {
    CosmosPatchOperations operations = CosmosPatchOperations.create();
    for (DocumentPatch.Operation operation : patch.operations()) {
      operation.fold(
          set -> operations.set("/" + set.field(), set.value()),
          increment -> operations.increment("/" + increment.field(), increment.delta()),
          // "-" is the end of the array; the patch's condition has made sure there is one.
          append -> operations.add("/" + append.field() + "/-", append.value()));
    }
    return operations;
  }

  /**
   * The condition as a Cosmos DB filter predicate. Field names are plain identifiers (checked by
   * {@link DocumentPatch}); values are written as JSON literals, which the query language reads
   * with the same escapes, so no value can change the predicate's shape.
   */
  static String filterPredicate(DocumentPatch.Condition condition) {
    return "FROM c WHERE " + expression(condition);
  }

  private static String expression(DocumentPatch.Condition condition) {
    return condition.fold(
        equals -> "c." + equals.field() + " = " + equals.value().toString(),
        below ->
            "NOT IS_DEFINED(c." + below.field() + ") OR c." + below.field() + " < " + below.bound(),
        least -> "c." + least.field() + " >= " + least.bound(),
        array -> "IS_ARRAY(c." + array.field() + ")",
        all -> {
          StringBuilder and = new StringBuilder();
          for (DocumentPatch.Condition part : all.conditions()) {
            and.append(and.length() == 0 ? "(" : " AND (").append(expression(part)).append(')');
          }
          return and.toString();
        });
  }

  private static Duration since(long startNanos) {
    return Duration.ofNanos(System.nanoTime() - startNanos);
  }

  /**
   * Writes (upserts) a probe document with a one-minute TTL in a partition of its own, through the
   * same transactional batch path as real writes: success proves the endpoint, the credentials, the
   * data-plane role's write permission, the database and the container all work. A read would not:
   * a read-only key or role passes a read and still fails every write.
   *
   * @return empty when ready; otherwise the classified failure
   */
  @Override
  public Optional<String> problem() {
    ObjectNode probe = JsonNodeFactory.instance.objectNode();
    probe.put("id", PROBE_ID);
    probe.put(partitionKeyField, PROBE_ID);
    probe.put("type", "readinessProbe");
    probe.put("ttl", 60);
    CosmosBatch batch = CosmosBatch.createCosmosBatch(new PartitionKey(PROBE_ID));
    batch.upsertItemOperation(probe);
    try {
      CosmosBatchResponse response = container.executeCosmosBatch(batch);
      if (response.isSuccessStatusCode()) {
        return Optional.empty();
      }
      StoreFailure failure =
          CosmosFailures.of(response.getStatusCode(), response.getSubStatusCode(), "probe");
      return Optional.of("Cosmos DB status " + failure.statusCode() + ": " + failure.description());
    } catch (CosmosException e) {
      StoreFailure failure = CosmosFailures.of(e);
      return Optional.of("Cosmos DB status " + failure.statusCode() + ": " + failure.description());
    } catch (RuntimeException e) {
      return Optional.of(CosmosFailures.noResponse(e).description());
    }
  }
}
