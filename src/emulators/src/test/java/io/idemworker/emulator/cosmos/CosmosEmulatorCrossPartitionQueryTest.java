package io.idemworker.emulator.cosmos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.azure.cosmos.CosmosAsyncClient;
import com.azure.cosmos.CosmosAsyncContainer;
import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosException;
import com.azure.cosmos.models.CosmosQueryRequestOptions;
import com.azure.cosmos.models.FeedResponse;
import com.azure.cosmos.models.SqlParameter;
import com.azure.cosmos.models.SqlQuerySpec;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Cross-partition queries through the real SDK against a container of four partition key ranges:
 * the plan handshake, the SDK's fan-out to each range and its merge of ORDER BY, TOP, OFFSET/LIMIT,
 * DISTINCT and aggregates, and continuation tokens. Expected answers come from a plain Java
 * evaluation over the items the test wrote.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CosmosEmulatorCrossPartitionQueryTest {
  private static final int RANGES = 4;
  private static final List<String> STATUSES = List.of("Placed", "Paid", "Shipped");

  private CosmosEmulator emulator;
  private CosmosClient client;
  private CosmosAsyncClient asyncClient;
  private CosmosContainer container;
  private CosmosAsyncContainer asyncContainer;
  private final List<ObjectNode> written = new ArrayList<>();

  @BeforeAll
  void start() {
    emulator = CosmosEmulator.builder().partitionKeyRanges(RANGES).start();
    client = Clients.sync(emulator);
    asyncClient = Clients.async(emulator);
    client.createDatabaseIfNotExists("xp-db");
    client.getDatabase("xp-db").createContainerIfNotExists(Clients.containerProps("orders", null));
    container = client.getDatabase("xp-db").getContainer("orders");
    asyncContainer = asyncClient.getDatabase("xp-db").getContainer("orders");
    Random random = new Random(28);
    for (int i = 0; i < 60; i++) {
      ObjectNode doc = JsonNodeFactory.instance.objectNode();
      doc.put("id", "item-" + i)
          .put("orderId", "ord-" + (i % 17))
          .put("status", STATUSES.get(random.nextInt(STATUSES.size())))
          .put("amount", random.nextInt(40));
      if (i % 9 != 0) {
        doc.put("weight", random.nextInt(1000) / 10.0);
      }
      container.createItem(doc);
      written.add(doc);
    }
  }

  @AfterAll
  void stop() {
    asyncClient.close();
    client.close();
    emulator.close();
  }

  private List<JsonNode> all(String sql, SqlParameter... parameters) {
    return container
        .queryItems(
            new SqlQuerySpec(sql, List.of(parameters)),
            new CosmosQueryRequestOptions(),
            JsonNode.class)
        .stream()
        .toList();
  }

  private List<JsonNode> inPages(String sql, int pageSize) {
    List<JsonNode> out = new ArrayList<>();
    for (FeedResponse<JsonNode> page :
        container
            .queryItems(sql, new CosmosQueryRequestOptions(), JsonNode.class)
            .iterableByPage(pageSize)) {
      assertThat(page.getResults().size()).isLessThanOrEqualTo(pageSize);
      out.addAll(page.getResults());
    }
    return out;
  }

  private static <T> List<T> reversed(List<T> list) {
    List<T> copy = new ArrayList<>(list);
    java.util.Collections.reverse(copy);
    return copy;
  }

  private static List<String> ids(List<JsonNode> docs) {
    return docs.stream().map(d -> d.get("id").asText()).toList();
  }

  private List<ObjectNode> byAmountThenId() {
    // The SDK breaks ties between ranges by range; compare on (amount, id) only where unique.
    return written.stream()
        .sorted(
            Comparator.comparingInt((ObjectNode d) -> d.get("amount").asInt())
                .thenComparing(d -> d.get("id").asText()))
        .toList();
  }

  @Test
  void containerHasTheConfiguredRanges_andItemsSpreadOverThem() {
    assertThat(container.getFeedRanges()).hasSize(RANGES);
    Set<Integer> used = new LinkedHashSet<>();
    PartitionKeyRanges ranges = new PartitionKeyRanges(RANGES);
    for (ObjectNode d : written) {
      used.add(ranges.rangeOf(PartitionKeys.canonical(List.of(d.get("orderId")))));
    }
    assertThat(used).hasSize(RANGES);
  }

  @Test
  void selectStar_withoutPartitionKey_returnsEveryItemOnce_fromEveryRange() {
    emulator.stats().reset();

    List<JsonNode> docs = all("SELECT * FROM c");

    assertThat(ids(docs)).containsExactlyInAnyOrderElementsOf(ids(List.copyOf(written)));
    // One plan, then at least one page per range.
    assertThat(emulator.stats().count(Operation.QUERY)).isGreaterThanOrEqualTo(RANGES + 1);
  }

  @Test
  void filterAndProjection_acrossPartitions() {
    List<JsonNode> rows =
        all(
            "SELECT c.id, c.amount AS a FROM c WHERE c.status = @s AND c.amount >= 20",
            new SqlParameter("@s", "Paid"));

    List<String> expected =
        written.stream()
            .filter(d -> d.get("status").asText().equals("Paid") && d.get("amount").asInt() >= 20)
            .map(d -> d.get("id").asText())
            .toList();
    assertThat(ids(rows)).containsExactlyInAnyOrderElementsOf(expected);
    assertThat(rows).allSatisfy(r -> assertThat(r.has("a")).isTrue());
    assertThat(rows).allSatisfy(r -> assertThat(r.has("status")).isFalse());
  }

  @Test
  void orderBy_mergesRangesInOrder_acrossSmallPages() {
    List<JsonNode> asc = inPages("SELECT * FROM c ORDER BY c.amount", 7);
    List<JsonNode> desc = inPages("SELECT * FROM c ORDER BY c.amount DESC", 5);

    List<Integer> expected = byAmountThenId().stream().map(d -> d.get("amount").asInt()).toList();
    assertThat(asc).extracting(d -> d.get("amount").asInt()).containsExactlyElementsOf(expected);
    assertThat(ids(asc)).containsExactlyInAnyOrderElementsOf(ids(List.copyOf(written)));
    assertThat(desc)
        .extracting(d -> d.get("amount").asInt())
        .containsExactlyElementsOf(reversed(expected));
  }

  @Test
  void orderByTwoKeys_andValueProjection() {
    List<JsonNode> rows = all("SELECT VALUE c.id FROM c ORDER BY c.amount ASC, c.id DESC");

    List<String> expected =
        written.stream()
            .sorted(
                Comparator.comparingInt((ObjectNode d) -> d.get("amount").asInt())
                    .thenComparing(d -> d.get("id").asText(), Comparator.reverseOrder()))
            .map(d -> d.get("id").asText())
            .toList();
    assertThat(rows).extracting(JsonNode::asText).containsExactlyElementsOf(expected);
  }

  @Test
  void orderByWithUndefinedKeys_putsThemFirst() {
    List<JsonNode> rows = all("SELECT c.id, c.weight FROM c ORDER BY c.weight");

    long undefinedCount = written.stream().filter(d -> !d.has("weight")).count();
    assertThat(rows).hasSize(written.size());
    assertThat(rows.subList(0, (int) undefinedCount))
        .allSatisfy(r -> assertThat(r.has("weight")).isFalse());
    List<Double> weights =
        rows.subList((int) undefinedCount, rows.size()).stream()
            .map(r -> r.get("weight").asDouble())
            .toList();
    assertThat(weights).isSorted();
  }

  @Test
  void topAndOffsetLimit_applyToTheMergedOrder() {
    List<Integer> expected = byAmountThenId().stream().map(d -> d.get("amount").asInt()).toList();

    List<JsonNode> top = all("SELECT TOP 5 * FROM c ORDER BY c.amount");
    List<JsonNode> page =
        all(
            "SELECT * FROM c ORDER BY c.amount OFFSET @o LIMIT @l",
            new SqlParameter("@o", 10),
            new SqlParameter("@l", 8));
    List<JsonNode> unordered = all("SELECT TOP 7 * FROM c");
    List<JsonNode> unorderedPage = all("SELECT * FROM c OFFSET 50 LIMIT 20");

    assertThat(top)
        .extracting(d -> d.get("amount").asInt())
        .containsExactlyElementsOf(expected.subList(0, 5));
    assertThat(page)
        .extracting(d -> d.get("amount").asInt())
        .containsExactlyElementsOf(expected.subList(10, 18));
    assertThat(unordered).hasSize(7);
    assertThat(unorderedPage).hasSize(10);
  }

  @Test
  void distinct_removesDuplicatesAcrossRanges() {
    List<JsonNode> statuses = all("SELECT DISTINCT VALUE c.status FROM c");
    List<JsonNode> ordered = all("SELECT DISTINCT VALUE c.status FROM c ORDER BY c.status");

    Set<String> expected = new LinkedHashSet<>();
    written.forEach(d -> expected.add(d.get("status").asText()));
    assertThat(statuses).extracting(JsonNode::asText).containsExactlyInAnyOrderElementsOf(expected);
    assertThat(ordered)
        .extracting(JsonNode::asText)
        .containsExactlyElementsOf(expected.stream().sorted().toList());
  }

  @Test
  void valueAggregates_combineThePartialResultOfEveryRange() {
    long paid = written.stream().filter(d -> d.get("status").asText().equals("Paid")).count();
    long sum = written.stream().mapToLong(d -> d.get("amount").asLong()).sum();
    int min = written.stream().mapToInt(d -> d.get("amount").asInt()).min().orElseThrow();
    int max = written.stream().mapToInt(d -> d.get("amount").asInt()).max().orElseThrow();
    double avg = written.stream().mapToInt(d -> d.get("amount").asInt()).average().orElseThrow();

    assertThat(all("SELECT VALUE COUNT(1) FROM c WHERE c.status = 'Paid'"))
        .extracting(JsonNode::asLong)
        .containsExactly(paid);
    assertThat(all("SELECT VALUE SUM(c.amount) FROM c").get(0).asDouble()).isEqualTo(sum);
    assertThat(all("SELECT VALUE MIN(c.amount) FROM c").get(0).asInt()).isEqualTo(min);
    assertThat(all("SELECT VALUE MAX(c.amount) FROM c").get(0).asInt()).isEqualTo(max);
    assertThat(all("SELECT VALUE AVG(c.amount) FROM c").get(0).asDouble())
        .isCloseTo(avg, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(all("SELECT VALUE COUNT(1) FROM c WHERE c.status = 'none'"))
        .extracting(JsonNode::asLong)
        .containsExactly(0L);
  }

  @Test
  void continuationToken_resumesAnOrderedQueryWhereItStopped() {
    String sql = "SELECT * FROM c ORDER BY c.amount DESC";
    FeedResponse<JsonNode> first =
        container
            .queryItems(sql, new CosmosQueryRequestOptions(), JsonNode.class)
            .iterableByPage(11)
            .iterator()
            .next();
    List<JsonNode> rest = new ArrayList<>();
    for (FeedResponse<JsonNode> page :
        container
            .queryItems(sql, new CosmosQueryRequestOptions(), JsonNode.class)
            .iterableByPage(first.getContinuationToken(), 11)) {
      rest.addAll(page.getResults());
    }

    List<JsonNode> together = new ArrayList<>(first.getResults());
    together.addAll(rest);
    assertThat(first.getResults()).hasSize(11);
    assertThat(ids(together)).doesNotHaveDuplicates().hasSize(written.size());
    assertThat(together)
        .extracting(d -> d.get("amount").asInt())
        .isSortedAccordingTo(Comparator.reverseOrder());
  }

  @Test
  void continuationTokens_resumeOrderedQueriesWithManyTies_inBothDirections() {
    // More than 255 items, so the SDK's reading of the _rid (little-endian) differs from the
    // creation order; three values, so almost every row ties with its neighbours.
    client.getDatabase("xp-db").createContainerIfNotExists(Clients.containerProps("ties", null));
    CosmosContainer ties = client.getDatabase("xp-db").getContainer("ties");
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      ObjectNode doc = JsonNodeFactory.instance.objectNode();
      doc.put("id", "t-" + i).put("orderId", "o-" + (i % 23)).put("rank", i % 3);
      ties.createItem(doc);
      expected.add("t-" + i);
    }

    for (String direction : List.of("ASC", "DESC")) {
      String sql = "SELECT * FROM c ORDER BY c.rank " + direction;
      List<JsonNode> together = new ArrayList<>();
      String continuation = null;
      do {
        FeedResponse<JsonNode> page =
            ties.queryItems(sql, new CosmosQueryRequestOptions(), JsonNode.class)
                .iterableByPage(continuation, 37)
                .iterator()
                .next();
        together.addAll(page.getResults());
        continuation = page.getContinuationToken();
      } while (continuation != null);

      assertThat(ids(together)).as(direction).containsExactlyInAnyOrderElementsOf(expected);
      List<Integer> ranks = together.stream().map(d -> d.get("rank").asInt()).toList();
      assertThat(ranks)
          .as(direction)
          .isSortedAccordingTo(
              direction.equals("ASC") ? Comparator.naturalOrder() : Comparator.reverseOrder());
    }
  }

  @Test
  void continuationToken_resumesAnUnorderedQuery() {
    String sql = "SELECT * FROM c WHERE c.amount > 5";
    FeedResponse<JsonNode> first =
        container
            .queryItems(sql, new CosmosQueryRequestOptions(), JsonNode.class)
            .iterableByPage(4)
            .iterator()
            .next();
    List<JsonNode> together = new ArrayList<>(first.getResults());
    for (FeedResponse<JsonNode> page :
        container
            .queryItems(sql, new CosmosQueryRequestOptions(), JsonNode.class)
            .iterableByPage(first.getContinuationToken(), 4)) {
      together.addAll(page.getResults());
    }

    long expected = written.stream().filter(d -> d.get("amount").asInt() > 5).count();
    assertThat(ids(together)).doesNotHaveDuplicates().hasSize((int) expected);
  }

  @Test
  void asyncClient_runsTheSameMergedQuery() {
    List<JsonNode> docs =
        asyncContainer
            .queryItems(
                "SELECT * FROM c ORDER BY c.amount",
                new CosmosQueryRequestOptions(),
                JsonNode.class)
            .byPage(9)
            .flatMapIterable(FeedResponse::getResults)
            .collectList()
            .block(Duration.ofSeconds(30));
    Long count =
        asyncContainer
            .queryItems("SELECT VALUE COUNT(1) FROM c", new CosmosQueryRequestOptions(), Long.class)
            .collectList()
            .block(Duration.ofSeconds(30))
            .get(0);

    assertThat(docs).extracting(d -> d.get("amount").asInt()).isSorted();
    assertThat(docs).hasSize(written.size());
    assertThat(count).isEqualTo(written.size());
  }

  @Test
  void aggregateLists_acrossPartitions_combineEachAliasOverEveryRange() {
    long sum = written.stream().mapToLong(d -> d.get("amount").asLong()).sum();
    int min = written.stream().mapToInt(d -> d.get("amount").asInt()).min().orElseThrow();
    int max = written.stream().mapToInt(d -> d.get("amount").asInt()).max().orElseThrow();
    double avg = written.stream().mapToInt(d -> d.get("amount").asInt()).average().orElseThrow();
    long weighed = written.stream().filter(d -> d.has("weight")).count();

    List<JsonNode> unnamed = all("SELECT MIN(c.amount), MAX(c.amount) FROM c");
    List<JsonNode> named =
        all(
            "SELECT COUNT(c.weight) AS n, AVG(c.amount) AS mean, SUM(c.amount) AS total FROM c"
                + " WHERE c.amount >= 0");

    assertThat(unnamed).hasSize(1);
    assertThat(unnamed.get(0).get("$1").asInt()).isEqualTo(min);
    assertThat(unnamed.get(0).get("$2").asInt()).isEqualTo(max);
    assertThat(named).hasSize(1);
    assertThat(named.get(0).get("n").asLong()).isEqualTo(weighed);
    assertThat(named.get(0).get("mean").asDouble())
        .isCloseTo(avg, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(named.get(0).get("total").asDouble()).isEqualTo(sum);
  }

  @Test
  void top_onAValueAggregate_appliesToTheCombinedRow() {
    double avg = written.stream().mapToInt(d -> d.get("amount").asInt()).average().orElseThrow();

    assertThat(all("SELECT TOP 0 VALUE AVG(c.amount) FROM c")).isEmpty();
    List<JsonNode> one = all("SELECT TOP 1 VALUE AVG(c.amount) FROM c");
    assertThat(one).hasSize(1);
    assertThat(one.get(0).asDouble()).isCloseTo(avg, org.assertj.core.data.Offset.offset(1e-9));
  }

  @Test
  void offsetLimit_onAValueAggregate_appliesToTheCombinedRow() {
    int max = written.stream().mapToInt(d -> d.get("amount").asInt()).max().orElseThrow();

    assertThat(all("SELECT VALUE MAX(c.amount) FROM c OFFSET 0 LIMIT 10"))
        .extracting(JsonNode::asInt)
        .containsExactly(max);
    assertThat(all("SELECT VALUE MAX(c.amount) FROM c OFFSET 1 LIMIT 10")).isEmpty();
    assertThat(all("SELECT VALUE MAX(c.amount) FROM c OFFSET 0 LIMIT 0")).isEmpty();
  }

  @Test
  void aggregateNextToAnotherProjection_acrossPartitions_is400NamingTheServedForm() {
    CosmosException e =
        catchThrowableOfType(
            CosmosException.class,
            () -> all("SELECT COUNT(1) AS n, MAX(c.id) AS m FROM c ORDER BY c.id"));
    CosmosException mixed =
        catchThrowableOfType(CosmosException.class, () -> all("SELECT TOP 1 COUNT(1) AS n FROM c"));

    assertThat(e.getStatusCode()).isEqualTo(400);
    assertThat(mixed.getStatusCode()).isEqualTo(400);
    assertThat(mixed.getMessage()).contains("VALUE COUNT|SUM|MIN|MAX|AVG");
  }
}
