package io.idemworker.simulation;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.core.DocumentPatch;
import io.idemworker.core.EffectStore;
import io.idemworker.core.EffectStoreContract;
import io.idemworker.core.Fingerprint;
import io.idemworker.core.WriteSet;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The simulated store keeps the store contract every adapter keeps, and adds TTL on the virtual
 * clock.
 */
class SimulatedStoreTest extends EffectStoreContract {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  /** The snapshot store behind the port, one call at a time. */
  private static final class Serialised implements EffectStore {
    private SimulatedStore snapshot = SimulatedStore.empty();

    private synchronized Object call(StoreCall call) {
      SimulatedStore.Executed executed = snapshot.execute(call, 0);
      snapshot = executed.after();
      return executed.result();
    }

    @Override
    public WriteResult apply(WriteSet writeSet) {
      return (WriteResult) call(new StoreCall.Apply(writeSet));
    }

    @Override
    public UpdateResult update(String partitionKey, DocumentPatch patch) {
      return (UpdateResult) call(new StoreCall.Update(partitionKey, patch));
    }

    @Override
    public ReadResult read(String partitionKey, String id) {
      return (ReadResult) call(new StoreCall.Read(partitionKey, id));
    }
  }

  private final Serialised store = new Serialised();

  @Override
  protected EffectStore store() {
    return store;
  }

  private static WriteSet marker(String id, long ttl) {
    ObjectNode fields = JSON.objectNode().put("key", id);
    return WriteSet.of(
        "ord-1",
        Fingerprint.of(fields),
        fields.deepCopy().put("id", id).put("ttl", ttl),
        List.of());
  }

  @Test
  void documentWithTtl_isVisibleUntilItsLastWritePlusTtl() {
    // given a marker written at second 10 with a TTL of 60 s
    SimulatedStore store =
        SimulatedStore.empty().execute(new StoreCall.Apply(marker("m", 60)), 10).after();

    // then it is there at second 69 and gone at second 70, for readers and for creates
    assertThat(store.visible("ord-1", "m", 69)).isPresent();
    assertThat(store.visible("ord-1", "m", 70)).isEmpty();
    assertThat(store.execute(new StoreCall.Apply(marker("m", 60)), 69).result())
        .isInstanceOf(EffectStore.AnchorExists.class);
    assertThat(store.execute(new StoreCall.Apply(marker("m", 60)), 70).result())
        .isInstanceOf(EffectStore.Applied.class);
  }

  @Test
  void documentWithoutPositiveTtl_neverExpires() {
    SimulatedStore store =
        SimulatedStore.empty().execute(new StoreCall.Apply(marker("m", -1)), 0).after();

    assertThat(store.visible("ord-1", "m", Long.MAX_VALUE / 2)).isPresent();
  }

  @Test
  void blindWrite_replacesAnExistingAnchorAndCountsASecondWrite() {
    // given an anchor
    SimulatedStore store =
        SimulatedStore.empty().execute(new StoreCall.Apply(marker("m", -1)), 0).after();

    // when the same write set is written blind
    SimulatedStore.Executed executed = store.execute(new StoreCall.Upsert(marker("m", -1)), 5);

    // then it is applied, not refused, and the document counts two writes
    assertThat(executed.result()).isInstanceOf(EffectStore.Applied.class);
    assertThat(executed.after().writes("ord-1", "m")).isEqualTo(2);
    assertThat(store.writes("ord-1", "m")).isEqualTo(1);
  }

  @Test
  void failedBlindWrite_leavesTheReplacedDocumentInPlace() {
    // given an anchor, and a blind write of it with a patch of a missing document
    SimulatedStore store =
        SimulatedStore.empty().execute(new StoreCall.Apply(marker("m", -1)), 0).after();
    ObjectNode fields = JSON.objectNode().put("key", "m");
    WriteSet withPatch =
        WriteSet.of(
            "ord-1",
            Fingerprint.of(fields),
            fields.deepCopy().put("id", "m"),
            List.of(),
            List.of(
                new DocumentPatch(
                    "missing", List.of(new DocumentPatch.Increment("n", 1)), Optional.empty())));

    // when it is written
    SimulatedStore.Executed executed = store.execute(new StoreCall.Upsert(withPatch), 1);

    // then nothing changed
    assertThat(executed.result()).isInstanceOf(EffectStore.TargetMissing.class);
    assertThat(executed.after().visible("ord-1", "m", 1)).isPresent();
    assertThat(executed.after().writes("ord-1", "m")).isEqualTo(1);
  }
}
