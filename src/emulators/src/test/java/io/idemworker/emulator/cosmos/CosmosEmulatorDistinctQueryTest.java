package io.idemworker.emulator.cosmos;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.models.CosmosQueryRequestOptions;
import com.azure.cosmos.models.FeedResponse;
import com.azure.cosmos.models.PartitionKey;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * DISTINCT (unordered, and ordered with ORDER BY) and the computing operators ({@code ||}, {@code
 * ??}, arithmetic) and functions through the real SDK against four partition key ranges. Expected
 * answers are worked out in plain Java from the items written.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CosmosEmulatorDistinctQueryTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final List<String> CITIES = List.of("Oslo", "Lima", "Pune", "Kyiv");

  private CosmosEmulator emulator;
  private CosmosClient client;
  private CosmosContainer container;
  private final List<ObjectNode> written = new ArrayList<>();

  @BeforeAll
  void start() throws Exception {
    emulator = CosmosEmulator.builder().partitionKeyRanges(4).start();
    client = Clients.sync(emulator);
    client.createDatabaseIfNotExists("d-db");
    client.getDatabase("d-db").createContainerIfNotExists(Clients.containerProps("people", null));
    container = client.getDatabase("d-db").getContainer("people");
    for (int i = 0; i < 40; i++) {
      ObjectNode doc = MAPPER.createObjectNode();
      doc.put("id", "p-" + i).put("orderId", "pk-" + (i % 10)).put("name", "n" + (i % 7) + "x");
      doc.put("n", i % 6);
      if (i % 5 != 0) {
        doc.put("city", CITIES.get(i % CITIES.size()));
      }
      container.createItem(doc);
      written.add(doc);
    }
    // 5 and 5.0 in one partition (so one range): equal values, one DISTINCT row.
    for (String raw :
        List.of(
            "{\"id\":\"i2\",\"orderId\":\"pk-ints\",\"intprop\":5.0}",
            "{\"id\":\"i1\",\"orderId\":\"pk-ints\",\"intprop\":5}")) {
      container.createItem(MAPPER.readTree(raw));
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

  @Test
  void distinctWithinARangeTreatsFiveAndFivePointZeroAsOneValue() {
    // Across ranges the SDK de-duplicates with its own hash, which tells 5 from 5.0 (checked:
    // both come back when they lie in different ranges); within a range the emulator decides.
    List<JsonNode> inPartition =
        all(
            "SELECT DISTINCT VALUE c.intprop FROM c WHERE IS_DEFINED(c.intprop)",
            new CosmosQueryRequestOptions().setPartitionKey(new PartitionKey("pk-ints")));

    assertThat(inPartition).hasSize(1);
    assertThat(inPartition.get(0).isIntegralNumber())
        .as("written as the service writes it")
        .isTrue();
    assertThat(inPartition.get(0).intValue()).isEqualTo(5);
  }

  @Test
  void unorderedDistinctAcrossRangesReturnsEachValueOnce() {
    List<JsonNode> rows = all("SELECT DISTINCT c.city FROM c", new CosmosQueryRequestOptions());

    List<String> cities =
        rows.stream().map(r -> r.has("city") ? r.get("city").asText() : "(none)").toList();
    TreeSet<String> expected = new TreeSet<>();
    written.forEach(d -> expected.add(d.has("city") ? d.get("city").asText() : "(none)"));
    expected.add("(none)"); // the intprop items have no city either
    assertThat(cities).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(expected);
  }

  @Test
  void orderedDistinctAcrossRangesComesSortedAndOnceInSmallPages() {
    List<String> names = new ArrayList<>();
    for (FeedResponse<JsonNode> page :
        container
            .queryItems(
                "SELECT DISTINCT VALUE c.name FROM c WHERE IS_DEFINED(c.name) ORDER BY c.name DESC",
                new CosmosQueryRequestOptions(),
                JsonNode.class)
            .iterableByPage(2)) {
      page.getResults().forEach(n -> names.add(n.asText()));
    }

    TreeSet<String> expected = new TreeSet<>();
    written.forEach(d -> expected.add(d.get("name").asText()));
    assertThat(names).containsExactlyElementsOf(expected.descendingSet());
  }

  @Test
  void distinctOrderedByAnotherKeyStillReturnsEachValueOnce() {
    // Equal cities are not next to each other when sorted by n: the plan must say Unordered, or
    // the SDK (comparing each row with the previous one only) would return repeats.
    List<String> cities =
        all(
                "SELECT DISTINCT VALUE c.city FROM c WHERE IS_DEFINED(c.city) ORDER BY c.n",
                new CosmosQueryRequestOptions())
            .stream()
            .map(JsonNode::asText)
            .toList();

    TreeSet<String> expected = new TreeSet<>();
    written.stream().filter(d -> d.has("city")).forEach(d -> expected.add(d.get("city").asText()));
    assertThat(cities).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(expected);
  }

  @Test
  void orderedDistinctResumesFromItsContinuationToken() {
    String sql = "SELECT DISTINCT VALUE c.name FROM c WHERE IS_DEFINED(c.name) ORDER BY c.name";
    FeedResponse<JsonNode> first =
        container
            .queryItems(sql, new CosmosQueryRequestOptions(), JsonNode.class)
            .iterableByPage(3)
            .iterator()
            .next();
    List<String> names = new ArrayList<>();
    first.getResults().forEach(n -> names.add(n.asText()));
    for (FeedResponse<JsonNode> page :
        container
            .queryItems(sql, new CosmosQueryRequestOptions(), JsonNode.class)
            .iterableByPage(first.getContinuationToken(), 3)) {
      page.getResults().forEach(n -> names.add(n.asText()));
    }

    TreeSet<String> expected = new TreeSet<>();
    written.forEach(d -> expected.add(d.get("name").asText()));
    assertThat(names).containsExactlyElementsOf(expected);
  }

  @Test
  void operatorsAndFunctionsComputeValuesAcrossRanges() {
    List<JsonNode> rows =
        all(
            "SELECT VALUE {\"label\": LEFT(c.name, 2) || '-' || (c.city ?? 'none'),"
                + " \"twice\": c.n * 2 + 1, \"half\": c.n / 2, \"rest\": c.n % 4,"
                + " \"dist\": ABS(c.n - 3), \"len\": LENGTH(UPPER(c.name))}"
                + " FROM c WHERE IS_DEFINED(c.name) AND c.n * 2 >= 6",
            new CosmosQueryRequestOptions());

    List<String> expected = new ArrayList<>();
    for (ObjectNode d : written) {
      int n = d.get("n").asInt();
      if (n * 2 >= 6) {
        String name = d.get("name").asText();
        String city = d.has("city") ? d.get("city").asText() : "none";
        String half = n % 2 == 0 ? Integer.toString(n / 2) : Double.toString(n / 2.0);
        expected.add(
            name.substring(0, 2)
                + "-"
                + city
                + "|"
                + (n * 2 + 1)
                + "|"
                + half
                + "|"
                + (n % 4)
                + "|"
                + Math.abs(n - 3)
                + "|"
                + name.length());
      }
    }
    List<String> got =
        rows.stream()
            .map(
                r ->
                    r.get("label").asText()
                        + "|"
                        + r.get("twice").asText()
                        + "|"
                        + r.get("half").asText()
                        + "|"
                        + r.get("rest").asText()
                        + "|"
                        + r.get("dist").asText()
                        + "|"
                        + r.get("len").asText())
            .toList();
    assertThat(got).containsExactlyInAnyOrderElementsOf(expected);
  }
}
