package io.idemworker.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class StoreFaultsTest {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  private static WriteSet writeSet(String anchorId) {
    ObjectNode anchor = JSON.objectNode().put("id", anchorId);
    return WriteSet.of("p", Fingerprint.of(anchor), anchor, List.of());
  }

  private static DocumentPatch patch(String id) {
    return new DocumentPatch(id, List.of(new DocumentPatch.Increment("n", 1)), Optional.empty());
  }

  @Test
  void failing_answersEveryCallWithTheFailure() {
    StoreFailure failure = new StoreFailure(StoreFailure.Kind.TRANSIENT, 503, "down");
    EffectStore store = StoreFaults.failing(failure);

    assertThat(store.apply(writeSet("a"))).isEqualTo(new EffectStore.Failed(failure));
    assertThat(store.update("p", patch("a"))).isEqualTo(new EffectStore.Failed(failure));
    assertThat(store.read("p", "a")).isEqualTo(new EffectStore.Failed(failure));
    assertThat(store.findAnchor("p", "a")).isEqualTo(new EffectStore.Failed(failure));
  }

  @Test
  void throwing_throwsFromEveryCall() {
    EffectStore store = StoreFaults.throwing(() -> new IllegalStateException("bug"));

    assertThatThrownBy(() -> store.apply(writeSet("a"))).hasMessage("bug");
    assertThatThrownBy(() -> store.update("p", patch("a"))).hasMessage("bug");
    assertThatThrownBy(() -> store.read("p", "a")).hasMessage("bug");
  }

  @Test
  void afterFirstCommit_runsOnceAfterTheFirstAppliedWrite_only() {
    InMemoryEffectStore memory = new InMemoryEffectStore();
    AtomicInteger runs = new AtomicInteger();
    AtomicInteger documentsWhenRun = new AtomicInteger(-1);
    EffectStore store =
        StoreFaults.afterFirstCommit(
            memory,
            () -> {
              runs.incrementAndGet();
              documentsWhenRun.set(memory.documentCount());
            });
    memory.apply(writeSet("a"));

    assertThat(store.apply(writeSet("a"))).isInstanceOf(EffectStore.AnchorExists.class);
    assertThat(runs).as("not after a write that applied nothing").hasValue(0);
    assertThat(store.apply(writeSet("b"))).isInstanceOf(EffectStore.Applied.class);
    assertThat(store.apply(writeSet("c"))).isInstanceOf(EffectStore.Applied.class);
    assertThat(runs).hasValue(1);
    assertThat(documentsWhenRun).as("after the commit").hasValue(2);
  }

  @Test
  void afterEachWrite_runsAfterEveryWrite_whateverItsAnswer() {
    InMemoryEffectStore memory = new InMemoryEffectStore();
    AtomicInteger runs = new AtomicInteger();
    EffectStore store = StoreFaults.afterEachWrite(memory, runs::incrementAndGet);

    store.apply(writeSet("a"));
    store.apply(writeSet("a"));
    store.read("p", "a");

    assertThat(runs).hasValue(2);
  }

  @Test
  void forwardingStore_looksUpAnchorsThroughItsOwnRead() {
    InMemoryEffectStore memory = new InMemoryEffectStore();
    memory.apply(writeSet("a"));
    EffectStore hiding =
        new ForwardingEffectStore(memory) {
          @Override
          public ReadResult read(String partitionKey, String id) {
            return new Absent();
          }
        };

    assertThat(hiding.findAnchor("p", "a")).isEqualTo(new EffectStore.Absent());
    assertThat(memory.findAnchor("p", "a")).isInstanceOf(EffectStore.Found.class);
  }
}
