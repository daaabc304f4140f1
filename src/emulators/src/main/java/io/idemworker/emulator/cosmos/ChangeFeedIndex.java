package io.idemworker.emulator.cosmos;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * Which items each committed LSN of one container still stands for: an item appears under the LSN
 * of its latest version only, so the change feed returns each changed item once. Not thread-safe:
 * {@link Container} guards it with its own monitor and changes it only while committing.
 */
final class ChangeFeedIndex {
  private final TreeMap<Long, Set<Container.ItemKey>> byLsn = new TreeMap<>();

  void record(long lsn, Container.ItemKey key) {
    byLsn.computeIfAbsent(lsn, k -> new LinkedHashSet<>()).add(key);
  }

  /** Drops the entry of a version that was overwritten, deleted or purged; null is ignored. */
  void forget(StoredItem version) {
    if (version == null) {
      return;
    }
    Set<Container.ItemKey> keys = byLsn.get(version.lsn());
    if (keys != null) {
      // One LSN is one commit, and a commit touches one logical partition: the id is enough.
      keys.removeIf(k -> k.id().equals(version.id()));
      if (keys.isEmpty()) {
        byLsn.remove(version.lsn());
      }
    }
  }

  Page page(
      long afterLsn,
      int maxItems,
      long currentLsn,
      Function<Container.ItemKey, Optional<StoredItem>> lookup) {
    List<StoredItem> items = new ArrayList<>();
    long reached = afterLsn;
    for (Map.Entry<Long, Set<Container.ItemKey>> e : byLsn.tailMap(afterLsn, false).entrySet()) {
      if (items.size() >= maxItems) {
        return new Page(List.copyOf(items), reached);
      }
      for (Container.ItemKey key : e.getValue()) {
        lookup.apply(key).filter(i -> i.lsn() == e.getKey()).ifPresent(items::add);
      }
      reached = e.getKey();
    }
    return new Page(List.copyOf(items), Math.max(afterLsn, currentLsn));
  }

  /** One page of changes, and the LSN up to which every change has been seen (the continuation). */
  record Page(List<StoredItem> items, long continuationLsn) {}
}
