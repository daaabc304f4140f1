package io.idemworker.core;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The contract every {@link EffectStore} keeps. Subclasses run it against the in-memory store and
 * against the Cosmos DB adapter on the emulator.
 */
public abstract class EffectStoreContract {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  /**
   * The store under test; may be shared by all tests of the class (tests use fresh ids).
   *
   * @return the store
   */
  protected abstract EffectStore store();

  private static String fresh(String prefix) {
    return prefix + "-" + UUID.randomUUID();
  }

  private static WriteSet writeSet(String pk, String anchorId, String content, String... others) {
    ObjectNode fields = JSON.objectNode().put("orderId", pk).put("content", content);
    Fingerprint fingerprint = Fingerprint.of(fields);
    ObjectNode anchor = fields.deepCopy().put("id", anchorId);
    List<ObjectNode> rest = new ArrayList<>();
    for (String id : others) {
      rest.add(JSON.objectNode().put("id", id).put("orderId", pk));
    }
    return WriteSet.of(pk, fingerprint, anchor, rest);
  }

  @Test
  void firstWrite_isApplied() {
    String pk = fresh("ord");

    assertThat(store().apply(writeSet(pk, pk, "a", pk + ":1")))
        .isInstanceOf(EffectStore.Applied.class);
  }

  @Test
  void secondWriteOfTheSameAnchor_reportsAnchorExistsAndWritesNothing() {
    String pk = fresh("ord");
    store().apply(writeSet(pk, pk, "a"));

    EffectStore.WriteResult second = store().apply(writeSet(pk, pk, "b", pk + ":new"));

    assertThat(second).isInstanceOf(EffectStore.AnchorExists.class);
    assertThat(store().apply(writeSet(pk, pk + ":new", "c")))
        .as("the second write set's other document must not have been created")
        .isInstanceOf(EffectStore.Applied.class);
  }

  @Test
  void findAnchor_returnsTheFingerprintOfTheFirstWrite() {
    String pk = fresh("ord");
    WriteSet first = writeSet(pk, pk, "original");
    store().apply(first);

    assertThat(store().findAnchor(pk, pk))
        .isEqualTo(new EffectStore.Found(new StoredAnchor(first.fingerprint())));
  }

  @Test
  void findAnchor_ofAnUnknownId_isAbsent() {
    String pk = fresh("ord");

    assertThat(store().findAnchor(pk, pk)).isInstanceOf(EffectStore.Absent.class);
  }

  @Test
  void anchorIdentityIsPerPartition() {
    String shared = fresh("same-id");

    assertThat(store().apply(writeSet(fresh("p1"), shared, "a")))
        .isInstanceOf(EffectStore.Applied.class);
    assertThat(store().apply(writeSet(fresh("p2"), shared, "a")))
        .isInstanceOf(EffectStore.Applied.class);
  }

  @Test
  void writeSetWhoseOtherDocumentExists_failsPermanentlyAndLeavesNothing() {
    String pk = fresh("ord");
    store().apply(writeSet(pk, pk + ":a", "a", pk + ":shared"));

    EffectStore.WriteResult result = store().apply(writeSet(pk, pk + ":b", "b", pk + ":shared"));

    assertThat(result)
        .isInstanceOfSatisfying(
            EffectStore.Failed.class,
            failed -> assertThat(failed.failure().kind()).isEqualTo(StoreFailure.Kind.PERMANENT));
    assertThat(store().findAnchor(pk, pk + ":b")).isInstanceOf(EffectStore.Absent.class);
  }

  @Test
  void concurrentWritesOfOneAnchor_applyExactlyOnce() throws Exception {
    String pk = fresh("ord");
    int writers = 8;
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    CountDownLatch start = new CountDownLatch(1);
    try {
      List<Future<EffectStore.WriteResult>> futures = new ArrayList<>();
      for (int i = 0; i < writers; i++) {
        Callable<EffectStore.WriteResult> task =
            () -> {
              start.await();
              return store().apply(writeSet(pk, pk, "same", pk + ":1"));
            };
        futures.add(pool.submit(task));
      }
      start.countDown();
      List<EffectStore.WriteResult> results = new ArrayList<>();
      for (Future<EffectStore.WriteResult> future : futures) {
        results.add(future.get(60, TimeUnit.SECONDS));
      }

      assertThat(results).filteredOn(r -> r instanceof EffectStore.Applied).hasSize(1);
      assertThat(results)
          .filteredOn(r -> r instanceof EffectStore.AnchorExists)
          .hasSize(writers - 1);
    } finally {
      pool.shutdownNow();
    }
  }
}
