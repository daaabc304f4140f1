package io.idemworker.emulator.cosmos;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosDatabase;
import com.azure.cosmos.models.CosmosContainerProperties;
import com.azure.cosmos.models.ExcludedPath;
import com.azure.cosmos.models.IncludedPath;
import com.azure.cosmos.models.IndexingMode;
import com.azure.cosmos.models.IndexingPolicy;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The write charge follows the container's indexing policy: unchanged under the default policy,
 * {@value IndexingCharges#PER_TERM_NOT_INDEXED} RU less per term a narrower policy leaves out,
 * never below {@value IndexingCharges#FLOOR_SHARE} of the default charge.
 */
class IndexingChargesTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static JsonNode order() throws Exception {
    return JSON.readTree(
        "{\"id\":\"o-1\",\"orderId\":\"o-1\",\"type\":\"order\",\"messageId\":\"o-1\","
            + "\"customerId\":\"c-1\",\"total\":\"19.98\",\"lines\":[{\"sku\":\"A\",\"quantity\":2},"
            + "{\"sku\":\"B\",\"quantity\":1}],\"payload\":{\"a\":1,\"b\":true,\"c\":null},"
            + "\"_ts\":1,\"_etag\":\"x\"}");
  }

  private static JsonNode policy(String json) throws Exception {
    return JSON.readTree(json);
  }

  @Test
  void defaultPolicy_chargesWhatTheSizeModelAlwaysCharged() throws Exception {
    IndexingCharges charges =
        IndexingCharges.of(
            policy(
                "{\"indexingMode\":\"consistent\",\"automatic\":true,"
                    + "\"includedPaths\":[{\"path\":\"/*\"}],"
                    + "\"excludedPaths\":[{\"path\":\"/\\\"_etag\\\"/?\"}]}"));

    assertThat(charges.write(900, order())).isEqualTo(RequestCharges.write(900));
    assertThat(IndexingCharges.of(null).write(3000, order())).isEqualTo(RequestCharges.write(3000));
    // 13 terms: id, orderId, type, messageId, customerId, total, 2 x (sku, quantity), a, b, c
    assertThat(charges.terms(order())).containsExactly(13, 0);
  }

  @Test
  void narrowPolicy_chargesLessPerTermLeftOut_theMostPrecisePathDeciding() throws Exception {
    IndexingCharges charges =
        IndexingCharges.of(
            policy(
                "{\"indexingMode\":\"consistent\",\"automatic\":true,"
                    + "\"includedPaths\":[{\"path\":\"/messageId/?\"},{\"path\":\"/type/?\"},"
                    + "{\"path\":\"/lines/[]/sku/?\"},{\"path\":\"/payload/*\"}],"
                    + "\"excludedPaths\":[{\"path\":\"/*\"},{\"path\":\"/payload/b/?\"}]}"));

    // indexed: id (always), messageId, type, 2 skus, payload a and c; left out: the other 6
    assertThat(charges.terms(order())).containsExactly(7, 6);
    assertThat(charges.write(900, order()))
        .isEqualTo(RequestCharges.round(RequestCharges.write(900) - 6 * 0.1));
  }

  @Test
  void indexingModeNone_leavesOutEveryTermButTheId_andNeverGoesBelowTheFloor() throws Exception {
    IndexingCharges charges = IndexingCharges.of(policy("{\"indexingMode\":\"none\"}"));
    assertThat(charges.terms(order())).containsExactly(1, 12);
    assertThat(charges.write(900, order()))
        .isEqualTo(RequestCharges.round(RequestCharges.write(900) - 12 * 0.1));

    ObjectNode wide = JSON.createObjectNode().put("id", "w");
    for (int i = 0; i < 200; i++) {
      wide.put("f" + i, i);
    }
    assertThat(charges.write(900, wide))
        .isEqualTo(RequestCharges.round(RequestCharges.write(900) * 0.5));
  }

  @Test
  void containerCreatedWithAPolicyThroughTheSdk_chargesItsWritesByIt() {
    try (CosmosEmulator emulator = CosmosEmulator.builder().port(0).start();
        CosmosClient client = Clients.sync(emulator)) {
      client.createDatabaseIfNotExists("idx");
      CosmosDatabase db = client.getDatabase("idx");
      db.createContainerIfNotExists(new CosmosContainerProperties("all", "/orderId"));
      IndexingPolicy narrow = new IndexingPolicy();
      narrow.setIndexingMode(IndexingMode.CONSISTENT);
      narrow.setIncludedPaths(List.of(new IncludedPath("/messageId/?")));
      narrow.setExcludedPaths(List.of(new ExcludedPath("/*")));
      db.createContainerIfNotExists(
          new CosmosContainerProperties("narrow", "/orderId").setIndexingPolicy(narrow));
      CosmosContainer all = db.getContainer("all");
      CosmosContainer few = db.getContainer("narrow");
      ObjectNode doc =
          JSON.createObjectNode()
              .put("id", "o-1")
              .put("orderId", "o-1")
              .put("messageId", "o-1")
              .put("customerId", "c-1")
              .put("total", "9.99");

      double everything = all.createItem(doc).getRequestCharge();
      double narrowCharge = few.createItem(doc).getRequestCharge();

      // orderId, customerId and total left out
      assertThat(narrowCharge).isEqualTo(RequestCharges.round(everything - 3 * 0.1));
      assertThat(few.read().getProperties().getIndexingPolicy().getExcludedPaths())
          .extracting(ExcludedPath::getPath)
          .containsExactly("/*");
    }
  }
}
