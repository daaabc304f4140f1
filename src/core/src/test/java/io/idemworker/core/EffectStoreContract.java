package io.idemworker.core;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
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

  private static DocumentPatch credit(String id, long units, String currency) {
    return new DocumentPatch(
        id,
        List.of(
            new DocumentPatch.Increment("creditedUnits", units),
            new DocumentPatch.SetField("note", JSON.textNode("credited"))),
        Optional.of(new DocumentPatch.FieldEquals("currency", JSON.textNode(currency))));
  }

  private String orderWithCurrency(String currency) {
    String pk = fresh("ord");
    ObjectNode fields = JSON.objectNode().put("orderId", pk).put("currency", currency);
    WriteSet order =
        WriteSet.of(pk, Fingerprint.of(fields), fields.deepCopy().put("id", pk), List.of());
    assertThat(store().apply(order)).isInstanceOf(EffectStore.Applied.class);
    return pk;
  }

  private static WriteSet markerWithPatch(String pk, String markerId, DocumentPatch patch) {
    ObjectNode fields = JSON.objectNode().put("orderId", pk).put("marker", markerId);
    return WriteSet.of(
        pk,
        Fingerprint.of(fields),
        fields.deepCopy().put("id", markerId),
        List.of(),
        List.of(patch));
  }

  private ObjectNode stored(String pk, String id) {
    EffectStore.ReadResult read = store().read(pk, id);
    assertThat(read).isInstanceOf(EffectStore.Document.class);
    return ((EffectStore.Document) read).content();
  }

  @Test
  void markerWithPatch_createsTheMarkerAndPatchesTheTargetTogether() {
    String pk = orderWithCurrency("EUR");

    assertThat(store().apply(markerWithPatch(pk, pk + ":m1", credit(pk, 12_345, "EUR"))))
        .isInstanceOf(EffectStore.Applied.class);
    assertThat(store().apply(markerWithPatch(pk, pk + ":m2", credit(pk, 5, "EUR"))))
        .isInstanceOf(EffectStore.Applied.class);

    ObjectNode order = stored(pk, pk);
    assertThat(order.get("creditedUnits").asLong()).isEqualTo(12_350);
    assertThat(order.get("note").asText()).isEqualTo("credited");
    assertThat(store().read(pk, pk + ":m1")).isInstanceOf(EffectStore.Document.class);
  }

  @Test
  void markerThatExists_isReportedBeforeThePatchAndNothingIsIncrementedTwice() {
    String pk = orderWithCurrency("EUR");
    store().apply(markerWithPatch(pk, pk + ":m", credit(pk, 100, "EUR")));

    EffectStore.WriteResult again =
        store().apply(markerWithPatch(pk, pk + ":m", credit(pk, 100, "EUR")));

    assertThat(again).isInstanceOf(EffectStore.AnchorExists.class);
    assertThat(stored(pk, pk).get("creditedUnits").asLong()).isEqualTo(100);
  }

  @Test
  void patchOfAMissingTarget_isTargetMissingAndCreatesNoMarker() {
    String pk = fresh("ord");

    EffectStore.WriteResult result =
        store().apply(markerWithPatch(pk, pk + ":m", credit(pk, 1, "EUR")));

    assertThat(result).isEqualTo(new EffectStore.TargetMissing(pk));
    assertThat(store().read(pk, pk + ":m")).isInstanceOf(EffectStore.Absent.class);
  }

  @Test
  void patchWhoseConditionFails_isConditionFailedAndWritesNothing() {
    String pk = orderWithCurrency("EUR");

    EffectStore.WriteResult result =
        store().apply(markerWithPatch(pk, pk + ":m", credit(pk, 1, "USD")));

    assertThat(result).isEqualTo(new EffectStore.ConditionFailed(pk));
    assertThat(store().read(pk, pk + ":m")).isInstanceOf(EffectStore.Absent.class);
    assertThat(stored(pk, pk).has("creditedUnits")).isFalse();
  }

  @Test
  void versionGuardedUpdate_appliesOnlyAboveTheStoredVersion() {
    String pk = orderWithCurrency("EUR");
    java.util.function.LongFunction<DocumentPatch> status =
        version ->
            new DocumentPatch(
                pk,
                List.of(
                    new DocumentPatch.SetField("status", JSON.textNode("v" + version)),
                    new DocumentPatch.SetField("statusVersion", JSON.numberNode(version))),
                Optional.of(new DocumentPatch.AbsentOrBelow("statusVersion", version)));

    assertThat(store().update(pk, status.apply(3))).isInstanceOf(EffectStore.Applied.class);
    assertThat(store().update(pk, status.apply(2))).isEqualTo(new EffectStore.ConditionFailed(pk));
    assertThat(store().update(pk, status.apply(3))).isEqualTo(new EffectStore.ConditionFailed(pk));
    assertThat(stored(pk, pk).get("status").asText()).isEqualTo("v3");
    assertThat(store().update(pk, status.apply(4))).isInstanceOf(EffectStore.Applied.class);
    assertThat(stored(pk, pk).get("statusVersion").asLong()).isEqualTo(4);
  }

  @Test
  void updateOfAMissingDocument_isTargetMissing() {
    String pk = fresh("ord");

    assertThat(store().update(pk, credit(pk, 1, "EUR")))
        .isEqualTo(new EffectStore.TargetMissing(pk));
    assertThat(store().read(pk, pk)).isInstanceOf(EffectStore.Absent.class);
  }

  @Test
  void concurrentGuardedUpdatesOfOneVersion_applyExactlyOnce() throws Exception {
    String pk = orderWithCurrency("EUR");
    DocumentPatch patch =
        new DocumentPatch(
            pk,
            List.of(
                new DocumentPatch.SetField("statusVersion", JSON.numberNode(1)),
                new DocumentPatch.Increment("applications", 1)),
            Optional.of(new DocumentPatch.AbsentOrBelow("statusVersion", 1)));
    int copies = 8;
    ExecutorService pool = Executors.newFixedThreadPool(copies);
    CountDownLatch start = new CountDownLatch(1);
    try {
      List<Future<EffectStore.UpdateResult>> futures = new ArrayList<>();
      for (int i = 0; i < copies; i++) {
        futures.add(
            pool.submit(
                () -> {
                  start.await();
                  return store().update(pk, patch);
                }));
      }
      start.countDown();
      int applied = 0;
      for (Future<EffectStore.UpdateResult> future : futures) {
        if (future.get(60, TimeUnit.SECONDS) instanceof EffectStore.Applied) {
          applied++;
        }
      }
      assertThat(applied).isEqualTo(1);
      assertThat(stored(pk, pk).get("applications").asLong()).isEqualTo(1);
    } finally {
      pool.shutdownNow();
    }
  }

  private String documentWithNotes(boolean withArray) {
    String pk = fresh("doc");
    ObjectNode fields = JSON.objectNode().put("orderId", pk).put("currency", "EUR");
    if (withArray) {
      fields.putArray("notes");
    }
    WriteSet created =
        WriteSet.of(pk, Fingerprint.of(fields), fields.deepCopy().put("id", pk), List.of());
    assertThat(store().apply(created)).isInstanceOf(EffectStore.Applied.class);
    return pk;
  }

  private static DocumentPatch note(String id, String text) {
    return new DocumentPatch(
        id,
        List.of(
            new DocumentPatch.AppendToArray("notes", JSON.objectNode().put("text", text)),
            new DocumentPatch.Increment("noteCount", 1)));
  }

  @Test
  void appendToArray_addsAtTheEnd_inAWriteSetAndInAnUpdate() {
    String pk = documentWithNotes(true);

    assertThat(store().apply(markerWithPatch(pk, pk + ":n1", note(pk, "first"))))
        .isInstanceOf(EffectStore.Applied.class);
    assertThat(store().update(pk, note(pk, "second"))).isInstanceOf(EffectStore.Applied.class);
    assertThat(store().apply(markerWithPatch(pk, pk + ":n1", note(pk, "first"))))
        .isInstanceOf(EffectStore.AnchorExists.class);

    ObjectNode stored = stored(pk, pk);
    assertThat(stored.get("notes")).hasSize(2);
    assertThat(stored.get("notes").get(0).get("text").asText()).isEqualTo("first");
    assertThat(stored.get("notes").get(1).get("text").asText()).isEqualTo("second");
    assertThat(stored.get("noteCount").asLong()).isEqualTo(2);
  }

  @Test
  void appendToAFieldThatHoldsNoArray_isConditionFailedAndWritesNothing() {
    String pk = documentWithNotes(false);

    EffectStore.WriteResult inAWriteSet =
        store().apply(markerWithPatch(pk, pk + ":n1", note(pk, "lost")));
    EffectStore.UpdateResult alone = store().update(pk, note(pk, "lost"));

    assertThat(inAWriteSet).isEqualTo(new EffectStore.ConditionFailed(pk));
    assertThat(alone).isEqualTo(new EffectStore.ConditionFailed(pk));
    assertThat(store().read(pk, pk + ":n1")).isInstanceOf(EffectStore.Absent.class);
    assertThat(stored(pk, pk).has("notes")).isFalse();
    assertThat(stored(pk, pk).has("noteCount")).isFalse();
  }

  @Test
  void appendWithACondition_appliesOnlyWhenBothTheConditionAndTheArrayHold() {
    String pk = documentWithNotes(true);
    DocumentPatch inDollars =
        new DocumentPatch(
            pk,
            List.of(new DocumentPatch.AppendToArray("notes", JSON.textNode("usd"))),
            Optional.of(new DocumentPatch.FieldEquals("currency", JSON.textNode("USD"))));
    DocumentPatch inEuros =
        new DocumentPatch(
            pk,
            List.of(new DocumentPatch.AppendToArray("notes", JSON.textNode("eur"))),
            Optional.of(new DocumentPatch.FieldEquals("currency", JSON.textNode("EUR"))));

    assertThat(store().update(pk, inDollars)).isEqualTo(new EffectStore.ConditionFailed(pk));
    assertThat(store().update(pk, inEuros)).isInstanceOf(EffectStore.Applied.class);

    assertThat(stored(pk, pk).get("notes")).hasSize(1);
    assertThat(stored(pk, pk).get("notes").get(0).asText()).isEqualTo("eur");
  }
}
