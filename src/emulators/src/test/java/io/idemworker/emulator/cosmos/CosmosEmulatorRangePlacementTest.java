package io.idemworker.emulator.cosmos;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.implementation.routing.PartitionKeyInternalHelper;
import com.azure.cosmos.models.CosmosChangeFeedRequestOptions;
import com.azure.cosmos.models.CosmosItemIdentity;
import com.azure.cosmos.models.CosmosQueryRequestOptions;
import com.azure.cosmos.models.FeedRange;
import com.azure.cosmos.models.ModelBridgeInternal;
import com.azure.cosmos.models.PartitionKey;
import com.azure.cosmos.models.PartitionKeyDefinition;
import com.azure.cosmos.models.PartitionKeyDefinitionVersion;
import com.azure.cosmos.models.PartitionKind;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * With several partition key ranges, each logical partition must sit in the range the SDK itself
 * computes for it, because the SDK scopes some requests to a range by its own hashing: read-many
 * groups the identities by range and sends one range-scoped query per group.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CosmosEmulatorRangePlacementTest {
  private static final int RANGES = 4;

  private CosmosEmulator emulator;
  private CosmosClient client;
  private CosmosContainer container;
  private final List<ObjectNode> written = new ArrayList<>();

  @BeforeAll
  void start() {
    emulator = CosmosEmulator.builder().partitionKeyRanges(RANGES).start();
    client = Clients.sync(emulator);
    client.createDatabaseIfNotExists("placement-db");
    client
        .getDatabase("placement-db")
        .createContainerIfNotExists(Clients.containerProps("orders", null));
    container = client.getDatabase("placement-db").getContainer("orders");
    for (int i = 0; i < 40; i++) {
      ObjectNode doc = JsonNodeFactory.instance.objectNode();
      doc.put("id", "line-" + i).put("orderId", "order-" + (i % 13));
      container.createItem(doc);
      written.add(doc);
    }
  }

  @AfterAll
  void stop() {
    client.close();
    emulator.close();
  }

  @Test
  void effectivePartitionKey_isTheOneTheSdkComputes() {
    PartitionKeyDefinition definition = new PartitionKeyDefinition();
    definition.setPaths(List.of("/orderId"));
    definition.setKind(PartitionKind.HASH);
    definition.setVersion(PartitionKeyDefinitionVersion.V2);
    ObjectMapper mapper = new ObjectMapper();
    Random random = new Random(7);
    List<Object> values = new ArrayList<>(List.of("", "é-ü", 0, -1, 5.5, 1e300, true, false));
    for (int i = 0; i < 50; i++) {
      // Lengths around the hash's 16-byte blocks and their tails.
      values.add("k".repeat(random.nextInt(40)) + random.nextInt());
      values.add(random.nextLong());
    }
    values.add(null);

    for (Object value : values) {
      PartitionKey key = new PartitionKey(value);
      String sdk =
          PartitionKeyInternalHelper.getEffectivePartitionKeyString(
              ModelBridgeInternal.getPartitionKeyInternal(key), definition);
      JsonNode node = mapper.valueToTree(value);
      assertThat(EffectivePartitionKey.of(PartitionKeys.canonical(List.of(node))))
          .as("value %s", value)
          .isEqualTo(sdk);
    }
  }

  @Test
  void readMany_acrossEveryRange_findsEveryItem() {
    List<CosmosItemIdentity> identities =
        written.stream()
            .map(
                d ->
                    new CosmosItemIdentity(
                        new PartitionKey(d.get("orderId").asText()), d.get("id").asText()))
            .toList();

    List<JsonNode> found = container.readMany(identities, JsonNode.class).getResults();

    assertThat(found)
        .extracting(d -> d.get("id").asText())
        .containsExactlyInAnyOrderElementsOf(
            written.stream().map(d -> d.get("id").asText()).toList());
  }

  @Test
  void readMany_ofOneLogicalPartition_findsAllItsItems_andSkipsMissingOnes() {
    List<CosmosItemIdentity> identities = new ArrayList<>();
    Set<String> expected = new HashSet<>();
    for (ObjectNode d : written) {
      if (d.get("orderId").asText().equals("order-3")) {
        identities.add(new CosmosItemIdentity(new PartitionKey("order-3"), d.get("id").asText()));
        expected.add(d.get("id").asText());
      }
    }
    identities.add(new CosmosItemIdentity(new PartitionKey("order-3"), "no-such-line"));

    List<JsonNode> found = container.readMany(identities, JsonNode.class).getResults();

    assertThat(found)
        .extracting(d -> d.get("id").asText())
        .containsExactlyInAnyOrderElementsOf(expected);
  }

  @Test
  void queriesScopedToEachFeedRange_partitionTheItems() {
    List<FeedRange> ranges = container.getFeedRanges();
    assertThat(ranges).hasSize(RANGES);
    List<String> seen = new ArrayList<>();
    int nonEmpty = 0;
    for (FeedRange range : ranges) {
      List<String> ids =
          container
              .queryItems(
                  "SELECT * FROM c",
                  new CosmosQueryRequestOptions().setFeedRange(range),
                  JsonNode.class)
              .stream()
              .map(d -> d.get("id").asText())
              .toList();
      nonEmpty += ids.isEmpty() ? 0 : 1;
      seen.addAll(ids);
    }

    assertThat(seen)
        .containsExactlyInAnyOrderElementsOf(
            written.stream().map(d -> d.get("id").asText()).toList());
    assertThat(nonEmpty).isGreaterThan(1);
  }

  @Test
  void changeFeed_overHalvesOfARange_splitsItsPartitionsByEffectivePartitionKey() {
    // Range 0 covers "" to "10…"; its two halves are feed ranges narrower than any range, which
    // the SDK sends as x-ms-start-epk / x-ms-end-epk.
    String middle = "08" + "0".repeat(30);
    String end = "10" + "0".repeat(30);
    List<String> lower = changes(epkRange("", middle));
    List<String> upper = changes(epkRange(middle, end));
    List<String> whole = changes(container.getFeedRanges().get(0));

    assertThat(lower).doesNotContainAnyElementsOf(upper);
    List<String> both = new ArrayList<>(lower);
    both.addAll(upper);
    assertThat(both).containsExactlyInAnyOrderElementsOf(whole);
    for (ObjectNode d : written) {
      String epk = EffectivePartitionKey.of(PartitionKeys.canonical(List.of(d.get("orderId"))));
      String id = d.get("id").asText();
      assertThat(lower.contains(id)).as(id).isEqualTo(epk.compareTo(middle) < 0);
    }
  }

  private static FeedRange epkRange(String min, String max) {
    return FeedRange.fromString(
        java.util.Base64.getEncoder()
            .encodeToString(
                ("{\"Range\":{\"min\":\""
                        + min
                        + "\",\"max\":\""
                        + max
                        + "\",\"isMinInclusive\":true,\"isMaxInclusive\":false}}")
                    .getBytes(java.nio.charset.StandardCharsets.UTF_8)));
  }

  private List<String> changes(FeedRange range) {
    return container
        .queryChangeFeed(
            CosmosChangeFeedRequestOptions.createForProcessingFromBeginning(range), JsonNode.class)
        .stream()
        .map(d -> d.get("id").asText())
        .toList();
  }
}
