package io.idemworker.emulator.cosmos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosException;
import com.azure.cosmos.models.CosmosQueryRequestOptions;
import com.azure.cosmos.models.FeedResponse;
import com.azure.cosmos.models.PartitionKey;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * GROUP BY through the real SDK against a container of four partition key ranges: the plan's {@code
 * groupByExpressions}, aliases and aggregate types, the per-range rewrite returning {@code
 * groupByItems} and partial aggregates, and the SDK's merge of the groups of every range. Expected
 * answers come from a plain Java grouping of the items the test wrote.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CosmosEmulatorGroupByQueryTest {
  private static final List<String> CITIES = List.of("Oslo", "Lima", "Pune");

  private CosmosEmulator emulator;
  private CosmosClient client;
  private CosmosContainer container;
  private final List<ObjectNode> written = new ArrayList<>();

  @BeforeAll
  void start() {
    emulator = CosmosEmulator.builder().partitionKeyRanges(4).start();
    client = Clients.sync(emulator);
    client.createDatabaseIfNotExists("gb-db");
    client.getDatabase("gb-db").createContainerIfNotExists(Clients.containerProps("people", null));
    container = client.getDatabase("gb-db").getContainer("people");
    Random random = new Random(28);
    for (int i = 0; i < 48; i++) {
      ObjectNode doc = JsonNodeFactory.instance.objectNode();
      doc.put("id", "p-" + i).put("orderId", "pk-" + (i % 16)).put("age", random.nextInt(90));
      if (i % 7 != 0) {
        doc.put("city", CITIES.get(random.nextInt(CITIES.size())));
      }
      container.createItem(doc);
      written.add(doc);
    }
  }

  @AfterAll
  void stop() {
    client.close();
    emulator.close();
  }

  private List<JsonNode> all(String sql, CosmosQueryRequestOptions options) {
    return container.queryItems(sql, options, JsonNode.class).stream().toList();
  }

  private static String cityOf(ObjectNode d) {
    return d.has("city") ? d.get("city").asText() : "(undefined)";
  }

  private Map<String, List<ObjectNode>> byCity(List<ObjectNode> docs) {
    return docs.stream().collect(Collectors.groupingBy(CosmosEmulatorGroupByQueryTest::cityOf));
  }

  private static Map<String, JsonNode> keyed(List<JsonNode> rows, Function<JsonNode, String> key) {
    Map<String, JsonNode> out = new TreeMap<>();
    for (JsonNode r : rows) {
      assertThat(out.put(key.apply(r), r)).as("one row per group").isNull();
    }
    return out;
  }

  @Test
  void crossPartitionGroupByMergesEveryRangesPartialAggregatesPerGroup() {
    List<JsonNode> rows =
        all(
            "SELECT c.city, SUM(c.age) AS total, COUNT(1) AS n, MIN(c.age) AS youngest,"
                + " MAX(c.age) AS oldest, AVG(c.age) AS mean FROM c GROUP BY c.city",
            new CosmosQueryRequestOptions());

    Map<String, JsonNode> got =
        keyed(rows, r -> r.has("city") ? r.get("city").asText() : "(undefined)");
    Map<String, List<ObjectNode>> expected = byCity(written);
    assertThat(got.keySet()).containsExactlyInAnyOrderElementsOf(expected.keySet());
    assertThat(expected).containsKey("(undefined)"); // an undefined key is a group of its own
    for (var e : expected.entrySet()) {
      List<Integer> ages = e.getValue().stream().map(d -> d.get("age").asInt()).toList();
      JsonNode row = got.get(e.getKey());
      assertThat(row.get("total").asLong()).isEqualTo(ages.stream().mapToLong(a -> a).sum());
      assertThat(row.get("n").asLong()).isEqualTo(ages.size());
      assertThat(row.get("youngest").asInt())
          .isEqualTo(ages.stream().mapToInt(a -> a).min().orElseThrow());
      assertThat(row.get("oldest").asInt())
          .isEqualTo(ages.stream().mapToInt(a -> a).max().orElseThrow());
      assertThat(row.get("mean").asDouble())
          .isCloseTo(
              ages.stream().mapToInt(a -> a).average().orElseThrow(),
              org.assertj.core.data.Offset.offset(1e-9));
    }
  }

  @Test
  void groupByOnAUniqueKeyPagesThroughMoreGroupsThanOnePage() {
    List<JsonNode> rows = new ArrayList<>();
    for (FeedResponse<JsonNode> page :
        container
            .queryItems(
                "SELECT COUNT(1) AS n, c.id FROM c GROUP BY c.id",
                new CosmosQueryRequestOptions(),
                JsonNode.class)
            .iterableByPage(10)) {
      assertThat(page.getResults().size()).isLessThanOrEqualTo(10);
      rows.addAll(page.getResults());
    }

    Map<String, JsonNode> got = keyed(rows, r -> r.get("id").asText());
    assertThat(got.keySet())
        .containsExactlyInAnyOrderElementsOf(
            written.stream().map(d -> d.get("id").asText()).toList());
    assertThat(rows).allSatisfy(r -> assertThat(r.get("n").asInt()).isEqualTo(1));
  }

  @Test
  void selectValueGroupByReturnsOneValuePerGroup() {
    List<JsonNode> counts =
        all(
            "SELECT VALUE COUNT(1) FROM c WHERE IS_DEFINED(c.city) GROUP BY c.city",
            new CosmosQueryRequestOptions());
    List<JsonNode> cities =
        all(
            "SELECT VALUE c.city FROM c WHERE IS_DEFINED(c.city) GROUP BY c.city",
            new CosmosQueryRequestOptions());

    Map<String, List<ObjectNode>> expected = byCity(written);
    expected.remove("(undefined)");
    assertThat(counts.stream().map(JsonNode::asInt).toList())
        .containsExactlyInAnyOrderElementsOf(expected.values().stream().map(List::size).toList());
    assertThat(cities.stream().map(JsonNode::asText).toList())
        .containsExactlyInAnyOrderElementsOf(expected.keySet());
  }

  @Test
  void groupByOnTwoKeysWithAFilterGroupsOnTheirCombination() {
    List<JsonNode> rows =
        all(
            "SELECT c.city, c.age >= 45 AS senior, COUNT(1) AS n FROM c WHERE c.age > 10"
                + " GROUP BY c.city, c.age >= 45",
            new CosmosQueryRequestOptions());

    Map<String, Integer> expected = new HashMap<>();
    for (ObjectNode d : written) {
      if (d.get("age").asInt() > 10) {
        expected.merge(cityOf(d) + "/" + (d.get("age").asInt() >= 45), 1, Integer::sum);
      }
    }
    Map<String, JsonNode> got =
        keyed(
            rows,
            r ->
                (r.has("city") ? r.get("city").asText() : "(undefined)")
                    + "/"
                    + r.get("senior").asBoolean());
    assertThat(got.keySet()).containsExactlyInAnyOrderElementsOf(expected.keySet());
    expected.forEach((k, n) -> assertThat(got.get(k).get("n").asInt()).as(k).isEqualTo(n));
  }

  @Test
  void groupByScopedToOnePartitionIsGroupedByTheEmulatorItself() {
    CosmosQueryRequestOptions options =
        new CosmosQueryRequestOptions().setPartitionKey(new PartitionKey("pk-3"));
    List<JsonNode> rows = all("SELECT c.city, SUM(c.age) AS total FROM c GROUP BY c.city", options);

    List<ObjectNode> inPartition =
        written.stream().filter(d -> d.get("orderId").asText().equals("pk-3")).toList();
    Map<String, List<ObjectNode>> expected = byCity(inPartition);
    Map<String, JsonNode> got =
        keyed(rows, r -> r.has("city") ? r.get("city").asText() : "(undefined)");
    assertThat(got.keySet()).containsExactlyInAnyOrderElementsOf(expected.keySet());
    expected.forEach(
        (city, docs) ->
            assertThat(got.get(city).get("total").asInt())
                .isEqualTo(docs.stream().mapToInt(d -> d.get("age").asInt()).sum()));
  }

  @Test
  void distinctWithGroupByAcrossPartitionsIsRefusedNamingTheForm() {
    CosmosException e =
        catchThrowableOfType(
            CosmosException.class,
            () ->
                all(
                    "SELECT DISTINCT c.city FROM c GROUP BY c.city",
                    new CosmosQueryRequestOptions()));

    assertThat(e.getStatusCode()).isEqualTo(400);
    assertThat(e.getMessage()).contains("GROUP BY without DISTINCT");
  }
}
