package io.idemworker.emulator.cosmos;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;

/**
 * One container's items, keyed by (partition key, id). Reads are lock-free; every write and every
 * batch holds its logical partition's lock, so creates of one id race to exactly one winner and a
 * batch is all-or-nothing. Expired items are treated as absent at once and purged by {@link
 * #purgeExpired()}.
 */
final class Container {
  static final int MAX_ID_LENGTH = 255;

  private final ObjectMapper mapper;
  private final Clock clock;
  final Database database;
  final String id;
  final byte[] ridBytes;
  final String rid;
  final String altContentPath;
  final PartitionKeyRanges ranges;
  private final List<String[]> partitionKeyPaths;
  private volatile ObjectNode properties;
  private volatile IndexingCharges charges;
  private volatile Integer defaultTtl;
  private final AtomicLong lsn = new AtomicLong(1);
  private final AtomicLong itemNumbers = new AtomicLong();
  private final AtomicLong etags = new AtomicLong();
  private final ConcurrentHashMap<String, Partition> partitions = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, ItemKey> itemsByRid = new ConcurrentHashMap<>();
  private final ChangeFeedIndex feed = new ChangeFeedIndex();
  // When stored items may expire, soonest first, so that a purge visits only what is due instead
  // of every item (a container of a long run holds hundreds of thousands that never expire). An
  // entry may be stale (the item since rewritten or deleted): the purge checks the item itself.
  private final ConcurrentSkipListSet<Expiry> expiries = new ConcurrentSkipListSet<>(EXPIRY_ORDER);

  /** A stored item's expiry time (epoch seconds) as of its write. */
  private record Expiry(long at, String partitionKey, String id) {}

  private static final Comparator<Expiry> EXPIRY_ORDER =
      Comparator.comparingLong(Expiry::at)
          .thenComparing(Expiry::partitionKey)
          .thenComparing(Expiry::id);

  Container(
      ObjectMapper mapper,
      Clock clock,
      Database database,
      String id,
      byte[] ridBytes,
      List<String[]> partitionKeyPaths,
      ObjectNode properties,
      Integer defaultTtl,
      PartitionKeyRanges ranges) {
    this.ranges = ranges;
    this.mapper = mapper;
    this.clock = clock;
    this.database = database;
    this.id = id;
    this.ridBytes = ridBytes;
    this.rid = Rids.text(ridBytes);
    this.altContentPath = "dbs/" + database.id + "/colls/" + id;
    this.partitionKeyPaths = partitionKeyPaths;
    this.properties = properties;
    this.charges = IndexingCharges.of(properties.get("indexingPolicy"));
    this.defaultTtl = defaultTtl;
  }

  ObjectNode properties() {
    return properties;
  }

  void replaceProperties(ObjectNode properties, Integer defaultTtl) {
    this.properties = properties;
    this.charges = IndexingCharges.of(properties.get("indexingPolicy"));
    this.defaultTtl = defaultTtl;
    // The container's TTL decides when items without one of their own expire: index them anew.
    synchronized (feed) {
      expiries.clear();
      for (Partition p : partitions.values()) {
        p.items.values().forEach(item -> indexExpiry(p.key, item));
      }
    }
  }

  /** Adds the item's expiry to the index, if it can expire under the container's TTL now. */
  private void indexExpiry(String partitionKey, StoredItem item) {
    Integer containerTtl = defaultTtl;
    if (containerTtl == null) {
      return; // TTL off: nothing expires (a later change of the setting indexes anew)
    }
    int effective = item.ttl() != null ? item.ttl() : containerTtl;
    if (effective > 0) {
      expiries.add(new Expiry(item.ts() + effective, partitionKey, item.id()));
    }
  }

  Integer defaultTtl() {
    return defaultTtl;
  }

  long lsn() {
    return lsn.get();
  }

  String sessionToken() {
    return "0:-1#" + lsn.get();
  }

  /** Items stored, expired ones included until purged. */
  int storedItemCount() {
    return partitions.values().stream().mapToInt(p -> p.items.size()).sum();
  }

  /** The canonical partition key of {@code doc}, in the same form as {@link PartitionKeys}. */
  String partitionKeyOf(ObjectNode doc) {
    List<JsonNode> values = new ArrayList<>(partitionKeyPaths.size());
    for (String[] path : partitionKeyPaths) {
      JsonNode node = doc;
      for (String part : path) {
        node = node == null || !node.isObject() ? null : node.get(part);
      }
      values.add(node);
    }
    return PartitionKeys.canonical(values);
  }

  /**
   * Point read; absent or expired → 404. Takes the partition's lock so that a read never sees a
   * transactional batch half applied (the batch commits item by item under that lock).
   */
  StoredItem read(String pk, String itemId) {
    Partition p = partitions.get(pk);
    StoredItem item;
    if (p == null) {
      item = null;
    } else {
      p.lock.lock();
      try {
        item = p.items.get(itemId);
      } finally {
        p.lock.unlock();
      }
    }
    if (item == null || isExpired(item, now())) {
      throw notFound();
    }
    return item;
  }

  /**
   * The latest version of every item changed after {@code afterLsn}, in LSN order: at least {@code
   * maxItems} when there are that many, but never splitting one commit (a batch) across pages.
   * Deleted items are absent; expired ones are skipped.
   *
   * @param minTs only versions written at or after this epoch second ({@code If-Modified-Since})
   * @param partitionKey only items of this logical partition, or every partition when empty
   */
  ChangeFeedIndex.Page changesAfter(
      long afterLsn, int maxItems, Predicate<String> partitionKeys, long minTs) {
    long now = now();
    synchronized (feed) {
      return feed.page(
          afterLsn,
          maxItems,
          lsn.get(),
          key -> {
            if (!partitionKeys.test(key.partitionKey())) {
              return Optional.empty();
            }
            Partition p = partitions.get(key.partitionKey());
            StoredItem item = p == null ? null : p.items.get(key.id());
            return item == null || isExpired(item, now) || item.ts() < minTs
                ? Optional.empty()
                : Optional.of(item);
          });
    }
  }

  /**
   * The live items of one logical partition, read under its lock so that a query never sees a
   * transactional batch half applied.
   */
  List<StoredItem> partitionItems(String pk) {
    Partition p = partitions.get(pk);
    if (p == null) {
      return List.of();
    }
    long now = now();
    List<StoredItem> items = new ArrayList<>();
    p.lock.lock();
    try {
      for (StoredItem item : p.items.values()) {
        if (!isExpired(item, now)) {
          items.add(item);
        }
      }
    } finally {
      p.lock.unlock();
    }
    // Items in creation order (RIDs grow), as a scan of the service's index would roughly give.
    items.sort(Comparator.comparingLong(item -> Rids.documentNumber(item.rid())));
    return items;
  }

  /**
   * The live items of every logical partition {@code partitionKeys} accepts, in creation order;
   * each partition is read under its lock.
   */
  List<StoredItem> items(Predicate<String> partitionKeys) {
    List<StoredItem> items = new ArrayList<>();
    for (String pk : List.copyOf(partitions.keySet())) {
      if (partitionKeys.test(pk)) {
        items.addAll(partitionItems(pk));
      }
    }
    items.sort(Comparator.comparingLong(item -> Rids.documentNumber(item.rid())));
    return items;
  }

  /** Resolves an item addressed by RID to its (partition key, id). */
  ItemKey byRid(String itemRid) {
    ItemKey key = itemsByRid.get(itemRid);
    if (key == null) {
      throw notFound();
    }
    return key;
  }

  /** Runs {@code ops} atomically in partition {@code pk}; answers one result per op. */
  Results execute(String pk, List<ItemOp> ops, boolean atomic) {
    return execute(pk, ops, atomic, Long.MAX_VALUE);
  }

  /**
   * As {@link #execute(String, List, boolean)}, with a bound on the bytes of the documents the
   * results return: the operation whose document passes {@code responseLimit} fails with 413.
   */
  Results execute(String pk, List<ItemOp> ops, boolean atomic, long responseLimit) {
    Partition p = partitions.computeIfAbsent(pk, Partition::new);
    p.lock.lock();
    try {
      Txn txn = new Txn(p, now());
      List<OpResult> results = new ArrayList<>(ops.size());
      boolean failed = false;
      long responseBytes = 0;
      for (ItemOp op : ops) {
        if (failed) {
          results.add(OpResult.failedDependency());
          continue;
        }
        try {
          OpResult result = apply(txn, pk, op);
          responseBytes += result.item() == null ? 0 : result.item().json().length;
          if (responseBytes > responseLimit) {
            throw new CosmosError(
                413,
                "The batch's response would be larger than "
                    + responseLimit / (1024 * 1024)
                    + " MB of documents; split the batch.");
          }
          results.add(result);
        } catch (CosmosError e) {
          if (!atomic) {
            throw e;
          }
          failed = true;
          for (int i = 0; i < results.size(); i++) {
            results.set(i, OpResult.failedDependency());
          }
          results.add(OpResult.failure(e));
        }
      }
      if (failed) {
        return new Results(false, results, lsn.get());
      }
      long committed = txn.commit();
      return new Results(true, results, committed);
    } finally {
      p.lock.unlock();
    }
  }

  /**
   * Removes every expired item; safe to call concurrently with requests. Visits only the items
   * whose indexed expiry is due, so its cost follows what expires, not what is stored.
   */
  int purgeExpired() {
    if (defaultTtl == null) {
      // Without a container TTL nothing can expire.
      return 0;
    }
    long now = now();
    int purged = 0;
    for (Expiry due = expiries.pollFirst(); due != null; due = expiries.pollFirst()) {
      if (due.at() > now) {
        expiries.add(due);
        break;
      }
      Partition p = partitions.get(due.partitionKey());
      if (p == null) {
        continue;
      }
      p.lock.lock();
      try {
        StoredItem item = p.items.get(due.id());
        if (item != null && isExpired(item, now)) {
          synchronized (feed) {
            p.items.remove(item.id());
            itemsByRid.remove(item.rid());
            feed.forget(item);
          }
          purged++;
        }
      } finally {
        p.lock.unlock();
      }
    }
    return purged;
  }

  private OpResult apply(Txn txn, String pk, ItemOp op) {
    StoredItem existing = txn.get(op.id());
    switch (op.kind()) {
      case READ -> {
        if (existing == null) {
          throw notFound();
        }
        return new OpResult(200, 0, RequestCharges.read(existing.json().length), existing);
      }
      case CREATE -> {
        if (existing != null) {
          throw new CosmosError(
              409, "Entity with the specified id already exists in the system., id: " + op.id());
        }
        StoredItem item = stamp(op.body(), null);
        txn.put(item);
        return new OpResult(201, 0, charges.write(item.json().length, op.body()), item);
      }
      case UPSERT -> {
        checkIfMatch(existing, op.ifMatch(), true);
        StoredItem item = stamp(op.body(), existing);
        txn.put(item);
        return new OpResult(
            existing == null ? 201 : 200, 0, charges.write(item.json().length, op.body()), item);
      }
      case REPLACE -> {
        if (existing == null) {
          throw notFound();
        }
        checkIfMatch(existing, op.ifMatch(), false);
        StoredItem item = stamp(op.body(), existing);
        txn.put(item);
        return new OpResult(200, 0, charges.write(item.json().length, op.body()), item);
      }
      case DELETE -> {
        if (existing == null) {
          throw notFound();
        }
        checkIfMatch(existing, op.ifMatch(), false);
        txn.remove(existing);
        return new OpResult(204, 0, RequestCharges.delete(existing.json().length), null);
      }
      case PATCH -> {
        if (existing == null) {
          throw notFound();
        }
        checkIfMatch(existing, op.ifMatch(), false);
        ObjectNode patched = op.patch().orElseThrow().applyTo(parseStored(existing));
        checkPatched(patched, existing, pk);
        StoredItem item = stamp(patched, existing);
        txn.put(item);
        return new OpResult(200, 0, charges.write(item.json().length, patched), item);
      }
    }
    throw new IllegalStateException("unexpected " + op.kind());
  }

  private ObjectNode parseStored(StoredItem item) {
    try {
      return (ObjectNode) mapper.readTree(item.json());
    } catch (java.io.IOException e) {
      throw new IllegalStateException("stored item is not JSON", e);
    }
  }

  /** A patch may not move the item to another id or partition, nor break the TTL or size rules. */
  private void checkPatched(ObjectNode patched, StoredItem existing, String pk) {
    JsonNode patchedId = patched.get("id");
    if (patchedId == null
        || !patchedId.isTextual()
        || !patchedId.textValue().equals(existing.id())) {
      throw CosmosError.badRequest("A patch cannot change or remove the item's id.");
    }
    if (!pk.equals(partitionKeyOf(patched))) {
      throw CosmosError.badRequest("A patch cannot change or remove the item's partition key.");
    }
    validateTtl(patched);
    try {
      if (mapper.writeValueAsBytes(patched).length > ItemHandler.MAX_DOCUMENT_BYTES) {
        throw new CosmosError(413, "Request size is too large: the patched item exceeds 2 MB.");
      }
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot serialise item", e);
    }
  }

  private static void checkIfMatch(StoredItem existing, String ifMatch, boolean upsert) {
    if (ifMatch == null || ifMatch.isEmpty() || ifMatch.equals("*")) {
      return;
    }
    if (existing == null && upsert) {
      throw new CosmosError(412, "One of the specified pre-condition is not met");
    }
    if (existing != null && !existing.etag().equals(ifMatch)) {
      throw new CosmosError(412, "One of the specified pre-condition is not met");
    }
  }

  private StoredItem stamp(ObjectNode body, StoredItem previous) {
    String itemId = body.get("id").asText();
    String itemRid =
        previous != null
            ? previous.rid()
            : Rids.text(Rids.document(ridBytes, itemNumbers.incrementAndGet()));
    long etagNumber = etags.incrementAndGet();
    String etag = "\"" + hex(etagNumber, 8) + "-0000-0000-0000-" + hex(ridHash(), 12) + "\"";
    long ts = clock.instant().getEpochSecond();
    ObjectNode doc = body;
    doc.remove(List.of("_rid", "_self", "_etag", "_attachments", "_ts", "_lsn"));
    doc.put("_rid", itemRid);
    doc.put("_self", "dbs/" + database.rid + "/colls/" + rid + "/docs/" + itemRid + "/");
    doc.put("_etag", etag);
    doc.put("_attachments", "attachments/");
    doc.put("_ts", ts);
    JsonNode ttlNode = body.get("ttl");
    Integer ttl = ttlNode != null && ttlNode.canConvertToInt() ? ttlNode.intValue() : null;
    try {
      return new StoredItem(itemId, itemRid, etag, ts, ttl, mapper.writeValueAsBytes(doc));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot serialise item", e);
    }
  }

  private long ridHash() {
    return Integer.toUnsignedLong(rid.hashCode());
  }

  private static String hex(long value, int width) {
    String h = Long.toHexString(value);
    return h.length() >= width ? h : "0".repeat(width - h.length()) + h;
  }

  /** Validates an item's {@code ttl} against this container's TTL setting. */
  void validateTtl(ObjectNode body) {
    JsonNode ttl = body.get("ttl");
    if (ttl == null || ttl.isNull() || defaultTtl == null) {
      return;
    }
    if (!ttl.canConvertToInt()
        || !ttl.isIntegralNumber()
        || ttl.intValue() == 0
        || ttl.intValue() < -1) {
      throw CosmosError.badRequest(
          "The value of 'ttl' must be a positive integer or -1 (never expire), got " + ttl);
    }
  }

  boolean isExpired(StoredItem item, long nowSeconds) {
    Integer containerTtl = defaultTtl;
    if (containerTtl == null) {
      return false;
    }
    int effective = item.ttl() != null ? item.ttl() : containerTtl;
    if (effective <= 0) {
      return false;
    }
    return nowSeconds >= item.ts() + effective;
  }

  private long now() {
    return clock.instant().getEpochSecond();
  }

  private static CosmosError notFound() {
    return CosmosError.notFound(
        "Resource Not Found. Entity with the specified id does not exist in the system.");
  }

  enum Kind {
    CREATE,
    READ,
    UPSERT,
    REPLACE,
    DELETE,
    PATCH
  }

  /**
   * One item operation; {@code body} is validated and owned by the operation, {@code patch} is
   * present exactly for {@link Kind#PATCH}.
   */
  record ItemOp(Kind kind, String id, ObjectNode body, String ifMatch, Optional<ItemPatch> patch) {
    ItemOp {
      if (patch.isPresent() != (kind == Kind.PATCH)) {
        throw new IllegalArgumentException("a patch operation, and only one, carries a patch");
      }
    }

    ItemOp(Kind kind, String id, ObjectNode body, String ifMatch) {
      this(kind, id, body, ifMatch, Optional.empty());
    }

    static ItemOp patch(String id, ItemPatch patch, String ifMatch) {
      return new ItemOp(Kind.PATCH, id, null, ifMatch, Optional.of(patch));
    }
  }

  record ItemKey(String partitionKey, String id) {}

  /** Outcome of one operation; {@code item} is null for a delete or a failure. */
  record OpResult(int status, int subStatus, double charge, StoredItem item, String message) {
    OpResult(int status, int subStatus, double charge, StoredItem item) {
      this(status, subStatus, charge, item, null);
    }

    static OpResult failure(CosmosError e) {
      double charge = e.status == 409 ? RequestCharges.CONFLICT : RequestCharges.MISS;
      return new OpResult(e.status, e.subStatus, charge, null, e.getMessage());
    }

    static OpResult failedDependency() {
      return new OpResult(424, 0, 0, null, "Failed dependency");
    }
  }

  /** Results of {@link #execute}; {@code committed} false means nothing was written. */
  record Results(boolean committed, List<OpResult> results, long lsn) {}

  private static final class Partition {
    final String key;
    final ReentrantLock lock = new ReentrantLock();
    final ConcurrentHashMap<String, StoredItem> items = new ConcurrentHashMap<>();

    Partition(String key) {
      this.key = key;
    }
  }

  /** Staged writes over one locked partition, visible to later operations of the same batch. */
  private final class Txn {
    private final Partition partition;
    private final long now;
    private final Map<String, StoredItem> staged = new HashMap<>();
    private final Map<String, StoredItem> removed = new HashMap<>();

    Txn(Partition partition, long now) {
      this.partition = partition;
      this.now = now;
    }

    StoredItem get(String itemId) {
      if (staged.containsKey(itemId)) {
        return staged.get(itemId);
      }
      if (removed.containsKey(itemId)) {
        return null;
      }
      StoredItem item = partition.items.get(itemId);
      return item == null || isExpired(item, now) ? null : item;
    }

    void put(StoredItem item) {
      staged.put(item.id(), item);
      removed.remove(item.id());
    }

    void remove(StoredItem item) {
      staged.remove(item.id());
      removed.put(item.id(), item);
    }

    long commit() {
      if (staged.isEmpty() && removed.isEmpty()) {
        return lsn.get();
      }
      // One LSN per commit, assigned and published under the feed lock, so a change-feed reader
      // never sees LSN n+1 without n (partitions commit concurrently otherwise).
      synchronized (feed) {
        long committed = lsn.incrementAndGet();
        for (StoredItem item : removed.values()) {
          StoredItem old = partition.items.remove(item.id());
          itemsByRid.remove(item.rid());
          feed.forget(old);
        }
        for (StoredItem version : staged.values()) {
          StoredItem item = version.committedAt(committed, partition.items.get(version.id()));
          StoredItem old = partition.items.put(item.id(), item);
          if (old != null && !old.rid().equals(item.rid())) {
            itemsByRid.remove(old.rid());
          }
          ItemKey key = new ItemKey(partition.key, item.id());
          itemsByRid.put(item.rid(), key);
          feed.forget(old);
          feed.record(committed, key);
          indexExpiry(partition.key, item);
        }
        return committed;
      }
    }
  }
}
