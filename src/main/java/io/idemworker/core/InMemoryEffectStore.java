package io.idemworker.core;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

/**
 * An {@link EffectStore} in memory, with the same contract as the Cosmos DB adapter: atomic write
 * sets, create-as-check on the anchor. For tests and for running the flow without a database.
 *
 * <p>Thread-safe: each partition is written under its own lock, so concurrent write sets with the
 * same anchor see exactly one {@link EffectStore.Applied}.
 */
public final class InMemoryEffectStore implements EffectStore {
  private final Map<String, Map<String, ObjectNode>> partitions = new ConcurrentHashMap<>();
  private final AtomicLong roundTrips = new AtomicLong();

  @Override
  public WriteResult apply(WriteSet writeSet) {
    roundTrips.incrementAndGet();
    Map<String, ObjectNode> partition =
        partitions.computeIfAbsent(writeSet.partitionKey(), pk -> new ConcurrentHashMap<>());
    synchronized (partition) {
      if (partition.containsKey(writeSet.anchorId())) {
        return new AnchorExists();
      }
      for (ObjectNode document : writeSet.documents()) {
        if (partition.containsKey(document.get("id").asText())) {
          return new Failed(
              new StoreFailure(
                  StoreFailure.Kind.PERMANENT,
                  409,
                  "document " + document.get("id").asText() + " exists without its anchor"));
        }
      }
      for (ObjectNode document : writeSet.documents()) {
        partition.put(document.get("id").asText(), document.deepCopy());
      }
      return new Applied();
    }
  }

  @Override
  public LookupResult findAnchor(String partitionKey, String anchorId) {
    roundTrips.incrementAndGet();
    return Optional.ofNullable(partitions.get(partitionKey))
        .map(partition -> partition.get(anchorId))
        .flatMap(StoredAnchor::fromDocument)
        .<LookupResult>map(Found::new)
        .orElseGet(Absent::new);
  }

  /**
   * Reads one document.
   *
   * @param partitionKey the partition key value
   * @param id the document id
   * @return a copy of the document
   */
  public Optional<ObjectNode> read(String partitionKey, String id) {
    return Optional.ofNullable(partitions.get(partitionKey))
        .map(partition -> partition.get(id))
        .map(ObjectNode::deepCopy);
  }

  /**
   * Lists every document of a partition.
   *
   * @param partitionKey the partition key value
   * @return copies, in no particular order
   */
  public List<ObjectNode> partition(String partitionKey) {
    return partitions.getOrDefault(partitionKey, Map.of()).values().stream()
        .map(ObjectNode::deepCopy)
        .collect(Collectors.toList());
  }

  /**
   * Counts the documents in all partitions.
   *
   * @return the count
   */
  public int documentCount() {
    return partitions.values().stream().mapToInt(Map::size).sum();
  }

  /**
   * Counts the calls to {@link #apply} and {@link #findAnchor} so far.
   *
   * @return the number of store round trips
   */
  public long roundTrips() {
    return roundTrips.get();
  }
}
