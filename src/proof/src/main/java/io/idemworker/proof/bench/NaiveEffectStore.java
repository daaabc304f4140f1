package io.idemworker.proof.bench;

import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosException;
import com.azure.cosmos.models.CosmosBatch;
import com.azure.cosmos.models.CosmosBatchResponse;
import com.azure.cosmos.models.PartitionKey;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.core.DocumentPatch;
import io.idemworker.core.EffectStore;
import io.idemworker.core.ReadinessProbe;
import io.idemworker.core.StoreFailure;
import io.idemworker.core.WriteSet;
import io.idemworker.cosmos.StoreCallListener;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The {@code bench} command's baseline, <strong>deliberately unsafe</strong>: it writes the same
 * documents as the worker's store, in one transactional batch, but of <em>upserts</em>, so it never
 * detects a duplicate. A redelivered order silently rewrites the order (and would, with real side
 * effects, repeat them). It exists only to measure what duplicate protection costs; never wire it
 * into a worker that handles real messages.
 *
 * <p>{@link #apply} is one round trip, reported to the listener; it answers {@link Applied} for
 * every successful batch, first copy or not. {@link #findAnchor} is never needed and answers {@link
 * Absent} without a round trip. Thread-safe (the SDK container is).
 */
final class NaiveEffectStore implements EffectStore, ReadinessProbe {
  private final CosmosContainer container;
  private final StoreCallListener listener;

  NaiveEffectStore(CosmosContainer container, StoreCallListener listener) {
    this.container = Objects.requireNonNull(container, "container");
    this.listener = Objects.requireNonNull(listener, "listener");
  }

  @Override
  public WriteResult apply(WriteSet writeSet) {
    CosmosBatch batch = CosmosBatch.createCosmosBatch(new PartitionKey(writeSet.partitionKey()));
    for (ObjectNode document : writeSet.documents()) {
      batch.upsertItemOperation(document);
    }
    long start = System.nanoTime();
    CosmosBatchResponse response;
    try {
      response = container.executeCosmosBatch(batch);
    } catch (CosmosException e) {
      listener.onCall("batch", e.getStatusCode(), e.getRequestCharge(), since(start));
      return failed(e.getStatusCode());
    } catch (RuntimeException e) {
      listener.onCall("batch", 0, 0, since(start));
      return failed(0);
    }
    listener.onCall("batch", response.getStatusCode(), response.getRequestCharge(), since(start));
    return response.isSuccessStatusCode() ? new Applied() : failed(response.getStatusCode());
  }

  @Override
  public UpdateResult update(String partitionKey, DocumentPatch patch) {
    return failed(501);
  }

  @Override
  public ReadResult read(String partitionKey, String id) {
    return new Absent();
  }

  @Override
  public Optional<String> problem() {
    return Optional.empty();
  }

  private static Failed failed(int statusCode) {
    // The baseline does not classify failures: the bench treats any failure as a failed run.
    return new Failed(
        new StoreFailure(StoreFailure.Kind.TRANSIENT, statusCode, "naive upsert batch failed"));
  }

  private static Duration since(long startNanos) {
    return Duration.ofNanos(System.nanoTime() - startNanos);
  }
}
