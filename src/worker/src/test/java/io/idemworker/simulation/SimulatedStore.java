package io.idemworker.simulation;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.core.EffectStore;
import io.idemworker.core.Fingerprint;
import io.idemworker.core.InMemoryEffectStore;
import io.idemworker.core.StoredAnchor;
import io.idemworker.core.WriteSet;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The simulated database: an immutable snapshot of documents, each with the virtual time of its
 * last write and how often it was written. A call is executed by materialising the real {@link
 * InMemoryEffectStore} from the snapshot, running the call on it, and reading the result back; so
 * the semantics (atomic batch, create-as-check answered with 409, conditions answered with 412,
 * patches of missing documents answered with 404) are the core store's, not a copy of them. What
 * this class adds is time: a document with a positive {@code ttl} (seconds) is gone once the
 * virtual clock reaches its last write plus its ttl, as Cosmos DB's per-item TTL does; {@code -1}
 * or no {@code ttl} never expires.
 *
 * <p>Immutable and therefore thread-safe; {@link #execute} returns the next snapshot.
 */
final class SimulatedStore {
  /**
   * A stored document.
   *
   * @param content the document
   * @param writtenAt virtual seconds of its last write
   * @param writes how many calls wrote it
   */
  record Stored(ObjectNode content, long writtenAt, int writes) {}

  /**
   * The result of one call and the snapshot after it.
   *
   * @param result what the store answered
   * @param after the next snapshot
   */
  record Executed(Object result, SimulatedStore after) {}

  private final Map<String, Map<String, Stored>> partitions;
  // Memo of canonical(now), valid while no document expires: many states share one snapshot.
  private long canonicalFrom;
  private long canonicalUntil;
  private String canonical;

  private SimulatedStore(Map<String, Map<String, Stored>> partitions) {
    this.partitions = partitions;
  }

  /**
   * An empty database.
   *
   * @return the snapshot
   */
  static SimulatedStore empty() {
    return new SimulatedStore(Map.of());
  }

  /**
   * Executes one call at a virtual time.
   *
   * @param call the call
   * @param now virtual seconds
   * @return the answer and the next snapshot
   */
  Executed execute(StoreCall call, long now) {
    InMemoryEffectStore store = new InMemoryEffectStore();
    Set<String> replaced = call.replaced();
    Map<String, Map<String, Stored>> live = live(now);
    live.forEach(
        (partitionKey, documents) -> {
          List<ObjectNode> kept = new ArrayList<>();
          documents.forEach(
              (id, stored) -> {
                if (!(partitionKey.equals(call.partitionKey()) && replaced.contains(id))) {
                  kept.add(stored.content());
                }
              });
          restore(store, partitionKey, kept);
        });
    Object result = call.run(store);
    Set<String> written = call.written(result);
    Set<String> partitionKeys = new TreeSet<>(live.keySet());
    partitionKeys.add(call.partitionKey());
    Map<String, Map<String, Stored>> next = new TreeMap<>();
    for (String partitionKey : partitionKeys) {
      Map<String, Stored> before = live.getOrDefault(partitionKey, Map.of());
      Map<String, Stored> documents = new TreeMap<>();
      for (ObjectNode document : store.partition(partitionKey)) {
        String id = document.get("id").asText();
        Stored old = before.get(id);
        boolean wrote = partitionKey.equals(call.partitionKey()) && written.contains(id);
        if (wrote) {
          documents.put(id, new Stored(document, now, old == null ? 1 : old.writes() + 1));
        } else if (old != null) {
          documents.put(id, old);
        }
      }
      if (!documents.isEmpty()) {
        next.put(partitionKey, Collections.unmodifiableMap(documents));
      }
    }
    // Documents a failed blind write had hidden from the materialised store are still there.
    if (!replaced.isEmpty() && written.isEmpty()) {
      Map<String, Stored> before = live.getOrDefault(call.partitionKey(), Map.of());
      Map<String, Stored> documents =
          new TreeMap<>(next.getOrDefault(call.partitionKey(), Map.of()));
      replaced.stream()
          .filter(before::containsKey)
          .forEach(id -> documents.put(id, before.get(id)));
      if (!documents.isEmpty()) {
        next.put(call.partitionKey(), Collections.unmodifiableMap(documents));
      }
    }
    return new Executed(copyOf(result), new SimulatedStore(Collections.unmodifiableMap(next)));
  }

  /**
   * A document as a reader sees it at a virtual time.
   *
   * @param partitionKey the partition
   * @param id the id
   * @param now virtual seconds
   * @return a copy, or empty when absent or expired
   */
  Optional<ObjectNode> visible(String partitionKey, String id, long now) {
    return Optional.ofNullable(partitions.getOrDefault(partitionKey, Map.of()).get(id))
        .filter(stored -> !expired(stored, now))
        .map(stored -> stored.content().deepCopy());
  }

  /**
   * A numeric field of a document as a reader sees it, without copying the document.
   *
   * @param partitionKey the partition
   * @param id the id
   * @param field the field
   * @param now virtual seconds
   * @return the value, 0 when the document or the field is absent
   */
  long number(String partitionKey, String id, String field, long now) {
    Stored stored = partitions.getOrDefault(partitionKey, Map.of()).get(id);
    return stored == null || expired(stored, now) ? 0 : stored.content().path(field).asLong(0);
  }

  /**
   * A text field of a document as a reader sees it, without copying the document.
   *
   * @param partitionKey the partition
   * @param id the id
   * @param field the field
   * @param now virtual seconds
   * @return the value, empty text when the document or the field is absent
   */
  String text(String partitionKey, String id, String field, long now) {
    Stored stored = partitions.getOrDefault(partitionKey, Map.of()).get(id);
    return stored == null || expired(stored, now) ? "" : stored.content().path(field).asText("");
  }

  /**
   * How many calls wrote a document (0 when it never existed).
   *
   * @param partitionKey the partition
   * @param id the id
   * @return the count
   */
  int writes(String partitionKey, String id) {
    Stored stored = partitions.getOrDefault(partitionKey, Map.of()).get(id);
    return stored == null ? 0 : stored.writes();
  }

  /**
   * The snapshot in a canonical text form, for telling states apart.
   *
   * @param now virtual seconds; expired documents are left out
   * @return the text
   */
  String canonical(long now) {
    if (canonical != null && now >= canonicalFrom && now < canonicalUntil) {
      return canonical;
    }
    canonicalFrom = now;
    canonicalUntil = Long.MAX_VALUE;
    for (Map<String, Stored> documents : partitions.values()) {
      for (Stored stored : documents.values()) {
        long ttl = stored.content().path("ttl").asLong(-1);
        if (ttl > 0) {
          long expiry = stored.writtenAt() + ttl;
          if (expiry > now) {
            canonicalUntil = Math.min(canonicalUntil, expiry);
          }
        }
      }
    }
    StringBuilder text = new StringBuilder();
    live(now)
        .forEach(
            (partitionKey, documents) ->
                documents.forEach(
                    (id, stored) ->
                        text.append(partitionKey)
                            .append('/')
                            .append(id)
                            .append('@')
                            .append(stored.writtenAt())
                            .append('x')
                            .append(stored.writes())
                            .append(stored.content())
                            .append('\n')));
    canonical = text.toString();
    return canonical;
  }

  /**
   * Lists the ids of live documents, for counterexamples.
   *
   * @param now virtual seconds
   * @return {@code partition/id} entries
   */
  List<String> ids(long now) {
    return live(now).entrySet().stream()
        .flatMap(p -> p.getValue().keySet().stream().map(id -> p.getKey() + "/" + id))
        .toList();
  }

  private Map<String, Map<String, Stored>> live(long now) {
    Map<String, Map<String, Stored>> live = new TreeMap<>();
    partitions.forEach(
        (partitionKey, documents) -> {
          Map<String, Stored> kept = new TreeMap<>();
          documents.forEach(
              (id, stored) -> {
                if (!expired(stored, now)) {
                  kept.put(id, stored);
                }
              });
          if (!kept.isEmpty()) {
            live.put(partitionKey, kept);
          }
        });
    return live;
  }

  private static boolean expired(Stored stored, long now) {
    long ttl = stored.content().path("ttl").asLong(-1);
    return ttl > 0 && now >= stored.writtenAt() + ttl;
  }

  /**
   * Puts documents back through write sets: each fingerprinted document as an anchor, the others
   * (order lines, outbox events) beside the first anchor of their partition.
   */
  private static void restore(
      InMemoryEffectStore store, String partitionKey, List<ObjectNode> documents) {
    List<ObjectNode> anchors = new ArrayList<>();
    List<ObjectNode> others = new ArrayList<>();
    for (ObjectNode document : documents) {
      (StoredAnchor.fromDocument(document).isPresent() ? anchors : others).add(document);
    }
    if (anchors.isEmpty() && !others.isEmpty()) {
      throw new IllegalStateException(
          "partition " + partitionKey + " holds documents but no anchor to restore them with");
    }
    for (int i = 0; i < anchors.size(); i++) {
      ObjectNode anchor = anchors.get(i);
      Fingerprint fingerprint = StoredAnchor.fromDocument(anchor).orElseThrow().fingerprint();
      List<ObjectNode> batch = new ArrayList<>();
      batch.add(anchor);
      if (i == 0) {
        batch.addAll(others);
      }
      EffectStore.WriteResult result =
          store.apply(new WriteSet(partitionKey, batch, List.of(), fingerprint));
      if (!(result instanceof EffectStore.Applied)) {
        throw new IllegalStateException("could not restore " + anchor.get("id") + ": " + result);
      }
    }
  }

  private static Object copyOf(Object result) {
    if (result instanceof EffectStore.Document document) {
      return new EffectStore.Document(document.content().deepCopy());
    }
    return result;
  }
}
