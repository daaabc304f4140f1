package io.idemworker.emulator.cosmos;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosDatabase;
import com.azure.cosmos.models.CosmosQueryRequestOptions;
import com.azure.cosmos.models.ThroughputProperties;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * With {@code partitionKeyRangesFromThroughput()}, a container's partition key ranges follow its
 * dedicated throughput as the service's physical partitions do (one per started 10,000 RU/s), seen
 * through the real client's feed ranges.
 */
class CosmosEmulatorRangesFromThroughputTest {

  private static int ranges(CosmosDatabase db, String id, ThroughputProperties throughput) {
    if (throughput == null) {
      db.createContainer(Clients.containerProps(id, null));
    } else {
      db.createContainer(Clients.containerProps(id, null), throughput);
    }
    return db.getContainer(id).getFeedRanges().size();
  }

  @Test
  void rangesFollowDedicatedThroughput_andOthersKeepTheConfiguredCount() {
    try (CosmosEmulator emulator =
            CosmosEmulator.builder()
                .partitionKeyRanges(4)
                .partitionKeyRangesFromThroughput()
                .start();
        CosmosClient client = Clients.sync(emulator)) {
      client.createDatabase("tp-db");
      CosmosDatabase db = client.getDatabase("tp-db");

      assertThat(ranges(db, "small", ThroughputProperties.createManualThroughput(6_000)))
          .isEqualTo(1);
      assertThat(ranges(db, "exact", ThroughputProperties.createManualThroughput(10_000)))
          .isEqualTo(1);
      assertThat(ranges(db, "over", ThroughputProperties.createManualThroughput(10_100)))
          .isEqualTo(2);
      assertThat(ranges(db, "big", ThroughputProperties.createManualThroughput(25_000)))
          .isEqualTo(3);
      assertThat(ranges(db, "auto", ThroughputProperties.createAutoscaledThroughput(40_000)))
          .isEqualTo(4);
      assertThat(ranges(db, "shared", null)).isEqualTo(4);
    }
  }

  @Test
  void withoutTheSetting_everyContainerHasTheConfiguredCount() {
    try (CosmosEmulator emulator = CosmosEmulator.builder().partitionKeyRanges(3).start();
        CosmosClient client = Clients.sync(emulator)) {
      client.createDatabase("tp-db");
      CosmosDatabase db = client.getDatabase("tp-db");

      assertThat(ranges(db, "small", ThroughputProperties.createManualThroughput(6_000)))
          .isEqualTo(3);
      assertThat(ranges(db, "big", ThroughputProperties.createManualThroughput(25_000)))
          .isEqualTo(3);
    }
  }

  @Test
  void aTwoRangeContainer_servesCrossPartitionQueriesOverBothRanges() {
    try (CosmosEmulator emulator =
            CosmosEmulator.builder()
                .partitionKeyRanges(4)
                .partitionKeyRangesFromThroughput()
                .start();
        CosmosClient client = Clients.sync(emulator)) {
      client.createDatabase("tp-db");
      CosmosDatabase db = client.getDatabase("tp-db");
      assertThat(ranges(db, "orders", ThroughputProperties.createManualThroughput(20_000)))
          .isEqualTo(2);
      CosmosContainer orders = db.getContainer("orders");
      for (int i = 0; i < 30; i++) {
        orders.createItem(
            JsonNodeFactory.instance
                .objectNode()
                .put("id", "o-" + i)
                .put("orderId", "order-" + i)
                .put("n", i));
      }

      List<JsonNode> sorted =
          orders
              .queryItems(
                  "SELECT VALUE c.n FROM c ORDER BY c.n DESC",
                  new CosmosQueryRequestOptions(),
                  JsonNode.class)
              .stream()
              .toList();

      assertThat(sorted).hasSize(30);
      assertThat(sorted.get(0).asInt()).isEqualTo(29);
      assertThat(sorted.get(29).asInt()).isZero();
    }
  }
}
