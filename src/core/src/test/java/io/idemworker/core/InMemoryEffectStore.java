package io.idemworker.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

/**
 * An {@link EffectStore} in memory, with the same contract as the Cosmos DB adapter: atomic write
 * sets, create-as-check on the anchor, conditional patches. For tests and for running the flow
 * without a database. Documents never expire here.
 *
 * <p>Thread-safe: each partition is written under its own lock, so concurrent write sets with the
 * same anchor see exactly one {@link EffectStore.Applied}, and a condition is evaluated against the
 * value its patch replaces.
 */
public final class InMemoryEffectStore implements EffectStore {
  private final Map<String, Map<String, ObjectNode>> partitions = new ConcurrentHashMap<>();
  private final AtomicLong roundTrips = new AtomicLong();

  @Override
  public WriteResult apply(WriteSet writeSet) {
    roundTrips.incrementAndGet();
    Map<String, ObjectNode> partition = partitionMap(writeSet.partitionKey());
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
      Map<String, ObjectNode> patched = new HashMap<>();
      for (DocumentPatch patch : writeSet.patches()) {
        ObjectNode stored = partition.get(patch.id());
        if (stored == null) {
          return new TargetMissing(patch.id());
        }
        if (!holds(patch, stored)) {
          return new ConditionFailed(patch.id());
        }
        patched.put(patch.id(), applied(patch, stored));
      }
      for (ObjectNode document : writeSet.documents()) {
        partition.put(document.get("id").asText(), document.deepCopy());
      }
      partition.putAll(patched);
      return new Applied();
    }
  }

  @Override
  public UpdateResult update(String partitionKey, DocumentPatch patch) {
    roundTrips.incrementAndGet();
    Map<String, ObjectNode> partition = partitionMap(partitionKey);
    synchronized (partition) {
      ObjectNode stored = partition.get(patch.id());
      if (stored == null) {
        return new TargetMissing(patch.id());
      }
      if (!holds(patch, stored)) {
        return new ConditionFailed(patch.id());
      }
      partition.put(patch.id(), applied(patch, stored));
      return new Applied();
    }
  }

  @Override
  public ReadResult read(String partitionKey, String id) {
    roundTrips.incrementAndGet();
    return document(partitionKey, id).<ReadResult>map(Document::new).orElseGet(Absent::new);
  }

  /**
   * Reads one document without counting a round trip.
   *
   * @param partitionKey the partition key value
   * @param id the document id
   * @return a copy of the document
   */
  public Optional<ObjectNode> document(String partitionKey, String id) {
    Map<String, ObjectNode> partition = partitions.get(partitionKey);
    if (partition == null) {
      return Optional.empty();
    }
    synchronized (partition) {
      return Optional.ofNullable(partition.get(id)).map(ObjectNode::deepCopy);
    }
  }

  /**
   * Lists every document of a partition.
   *
   * @param partitionKey the partition key value
   * @return copies, in no particular order
   */
  public List<ObjectNode> partition(String partitionKey) {
    Map<String, ObjectNode> partition = partitions.getOrDefault(partitionKey, Map.of());
    synchronized (partition) {
      return partition.values().stream().map(ObjectNode::deepCopy).collect(Collectors.toList());
    }
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
   * Counts the calls to {@link #apply}, {@link #update} and {@link #read} so far.
   *
   * @return the number of store round trips
   */
  public long roundTrips() {
    return roundTrips.get();
  }

  private Map<String, ObjectNode> partitionMap(String partitionKey) {
    return partitions.computeIfAbsent(partitionKey, pk -> new ConcurrentHashMap<>());
  }

  private static boolean holds(DocumentPatch patch, ObjectNode stored) {
    return patch.condition().map(condition -> holds(condition, stored)).orElse(true);
  }

  private static boolean holds(DocumentPatch.Condition condition, ObjectNode stored) {
    return condition.fold(
        equals -> {
          JsonNode value = stored.get(equals.field());
          return value != null
              && CanonicalJson.write(value).equals(CanonicalJson.write(equals.value()));
        },
        below -> {
          JsonNode value = stored.get(below.field());
          return value == null || (value.isNumber() && value.asLong() < below.bound());
        },
        least -> {
          JsonNode value = stored.get(least.field());
          return value != null && value.isNumber() && value.asLong() >= least.bound();
        },
        array -> stored.path(array.field()).isArray(),
        all -> all.conditions().stream().allMatch(c -> holds(c, stored)));
  }

  private static ObjectNode applied(DocumentPatch patch, ObjectNode stored) {
    ObjectNode changed = stored.deepCopy();
    for (DocumentPatch.Operation operation : patch.operations()) {
      operation.<Void>fold(
          set -> {
            changed.set(set.field(), set.value().deepCopy());
            return null;
          },
          increment -> {
            changed.put(
                increment.field(),
                Math.addExact(changed.path(increment.field()).asLong(0), increment.delta()));
            return null;
          },
          append -> {
            ((ArrayNode) changed.get(append.field())).add(append.value().deepCopy());
            return null;
          });
    }
    return changed;
  }
}
