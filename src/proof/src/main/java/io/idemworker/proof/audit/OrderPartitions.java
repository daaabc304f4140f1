package io.idemworker.proof.audit;

import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.models.CosmosQueryRequestOptions;
import com.azure.cosmos.models.PartitionKey;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Every document of the orders container's partitions an audit reads, each partition read once, by
 * one query within it (the emulator refuses cross-partition queries): what the order checks look
 * documents up in.
 *
 * <p>Not modified once read; safe to read from any thread.
 */
final class OrderPartitions {
  private final Map<String, Map<String, JsonNode>> partitions;

  private OrderPartitions(Map<String, Map<String, JsonNode>> partitions) {
    this.partitions = partitions;
  }

  /**
   * Reads the partitions, {@code parallelism} at a time.
   *
   * @param orders the orders container
   * @param orderIds the partitions' keys
   * @param parallelism how many queries run at once, at least 1
   * @throws IllegalStateException when Cosmos DB could not be read
   */
  static OrderPartitions read(CosmosContainer orders, Collection<String> orderIds, int parallelism)
      throws InterruptedException {
    Map<String, Map<String, JsonNode>> partitions = new HashMap<>();
    ExecutorService pool = Executors.newFixedThreadPool(parallelism);
    try {
      Map<String, Future<Map<String, JsonNode>>> futures = new HashMap<>();
      for (String id : orderIds) {
        futures.put(id, pool.submit(() -> partition(orders, id)));
      }
      for (Map.Entry<String, Future<Map<String, JsonNode>>> f : futures.entrySet()) {
        partitions.put(f.getKey(), f.getValue().get());
      }
    } catch (ExecutionException e) {
      throw new IllegalStateException("the audit could not read Cosmos DB: " + e.getCause(), e);
    } finally {
      pool.shutdownNow();
    }
    return new OrderPartitions(partitions);
  }

  private static Map<String, JsonNode> partition(CosmosContainer orders, String orderId) {
    Map<String, JsonNode> docs = new HashMap<>();
    orders
        .queryItems(
            "SELECT * FROM c",
            new CosmosQueryRequestOptions().setPartitionKey(new PartitionKey(orderId)),
            JsonNode.class)
        .forEach(d -> docs.put(d.path("id").asText(), d));
    return docs;
  }

  /** A document of a partition read; empty when the partition holds none of that id. */
  Optional<JsonNode> doc(String orderId, String id) {
    return Optional.ofNullable(partitions.getOrDefault(orderId, Map.of()).get(id));
  }

  /** Whether a partition read holds no document at all (or was not read). */
  boolean isEmpty(String orderId) {
    return partitions.getOrDefault(orderId, Map.of()).isEmpty();
  }
}
