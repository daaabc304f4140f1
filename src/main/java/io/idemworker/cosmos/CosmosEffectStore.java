package io.idemworker.cosmos;

import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosException;
import com.azure.cosmos.models.CosmosBatch;
import com.azure.cosmos.models.CosmosBatchOperationResult;
import com.azure.cosmos.models.CosmosBatchResponse;
import com.azure.cosmos.models.CosmosItemResponse;
import com.azure.cosmos.models.PartitionKey;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.core.EffectStore;
import io.idemworker.core.ReadinessProbe;
import io.idemworker.core.StoreFailure;
import io.idemworker.core.StoredAnchor;
import io.idemworker.core.WriteSet;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * An {@link EffectStore} on one Cosmos DB container partitioned by the write sets' partition key
 * (for orders, {@code /orderId}).
 *
 * <p>{@link #apply} is one transactional batch of creates: Cosmos DB commits all or none, and
 * answers 409 on the anchor's create when the anchor exists, which makes the batch itself the
 * duplicate check. {@link #findAnchor} is one point read. Each is exactly one round trip, reported
 * to the {@link StoreCallListener}; the SDK's own retries on 429 are inside that round trip.
 *
 * <p>Thread-safe (the SDK container is). Never throws for a Cosmos DB error: every failure is
 * classified into {@link StoreFailure}.
 */
public final class CosmosEffectStore implements EffectStore, ReadinessProbe {
  private static final String PROBE_ID = "idemworker-readiness-probe";

  private final CosmosContainer container;
  private final StoreCallListener listener;

  /**
   * Creates the adapter.
   *
   * @param container the container holding the effects
   * @param listener told about every round trip
   */
  public CosmosEffectStore(CosmosContainer container, StoreCallListener listener) {
    this.container = Objects.requireNonNull(container, "container");
    this.listener = Objects.requireNonNull(listener, "listener");
  }

  @Override
  public WriteResult apply(WriteSet writeSet) {
    CosmosBatch batch = CosmosBatch.createCosmosBatch(new PartitionKey(writeSet.partitionKey()));
    for (ObjectNode document : writeSet.documents()) {
      batch.createItemOperation(document);
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
  public LookupResult findAnchor(String partitionKey, String anchorId) {
    long start = System.nanoTime();
    try {
      CosmosItemResponse<ObjectNode> response =
          container.readItem(anchorId, new PartitionKey(partitionKey), ObjectNode.class);
      listener.onCall("read", response.getStatusCode(), response.getRequestCharge(), since(start));
      return StoredAnchor.fromDocument(response.getItem())
          .<LookupResult>map(Found::new)
          .orElseGet(
              () ->
                  new Failed(
                      new StoreFailure(
                          StoreFailure.Kind.PERMANENT,
                          200,
                          "document " + anchorId + " exists but carries no fingerprint")));
    } catch (CosmosException e) {
      listener.onCall("read", e.getStatusCode(), e.getRequestCharge(), since(start));
      if (e.getStatusCode() == 404
          && e.getSubStatusCode() != CosmosFailures.OWNER_RESOURCE_NOT_FOUND) {
        return new Absent();
      }
      return new Failed(CosmosFailures.of(e));
    } catch (RuntimeException e) {
      listener.onCall("read", 0, 0, since(start));
      return new Failed(CosmosFailures.noResponse(e));
    }
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
    probe.put(CosmosContainers.PARTITION_KEY_PATH.substring(1), PROBE_ID);
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
