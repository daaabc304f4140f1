package io.idemworker.emulator.cosmos;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * Readers never see a transactional batch half applied. Driven at the store, below HTTP: through
 * the SDK each read is a round trip, far too slow to hit the window between two item writes.
 */
class CosmosEmulatorBatchVisibilityTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void pointReadsDuringBatches_seeEachBatchWholeOrNotAtAll() throws Exception {
    Store store = new Store(JSON, Clock.systemUTC());
    Database db = store.createDatabase((ObjectNode) JSON.readTree("{\"id\":\"db\"}"));
    Container container =
        store.createContainer(
            db,
            (ObjectNode) JSON.readTree("{\"id\":\"c\",\"partitionKey\":{\"paths\":[\"/pk\"]}}"));
    String pk = container.partitionKeyOf((ObjectNode) JSON.readTree("{\"id\":\"a\",\"pk\":\"p\"}"));
    container.execute(pk, List.of(upsert("a", 0), upsert("b", 0)), true);
    AtomicBoolean stop = new AtomicBoolean();
    CountDownLatch writing = new CountDownLatch(1);
    Thread writer =
        new Thread(
            () -> {
              writing.countDown();
              for (long v = 1; !stop.get(); v++) {
                container.execute(pk, List.of(upsert("a", v), upsert("b", v)), true);
              }
            });
    writer.start();
    assertThat(writing.await(10, TimeUnit.SECONDS)).isTrue();

    int torn = 0;
    for (int i = 0; i < 200_000; i++) {
      // The batch writes a, then b: b read after a is older only if the batch was half applied.
      long a = JSON.readTree(container.read(pk, "a").json()).get("v").asLong();
      long b = JSON.readTree(container.read(pk, "b").json()).get("v").asLong();
      if (b < a) {
        torn++;
      }
    }
    stop.set(true);
    writer.join(TimeUnit.SECONDS.toMillis(10));

    assertThat(torn).isZero();
  }

  private static Container.ItemOp upsert(String id, long version) {
    ObjectNode item = JSON.createObjectNode().put("id", id).put("pk", "p").put("v", version);
    return new Container.ItemOp(Container.Kind.UPSERT, id, item, null);
  }
}
