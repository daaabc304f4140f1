package io.idemworker.emulator.cosmos;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.cosmos.CosmosAsyncClient;
import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosDatabase;
import com.azure.cosmos.models.CosmosBatch;
import com.azure.cosmos.models.CosmosChangeFeedRequestOptions;
import com.azure.cosmos.models.FeedRange;
import com.azure.cosmos.models.FeedResponse;
import com.azure.cosmos.models.PartitionKey;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** The latest-version change feed through the Java SDK's pull model (sync and async). */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CosmosEmulatorChangeFeedTest {
  private final MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
  private CosmosEmulator emulator;
  private CosmosClient client;
  private CosmosAsyncClient asyncClient;
  private CosmosDatabase database;

  @BeforeAll
  void start() {
    emulator = CosmosEmulator.builder().clock(clock).purgeInterval(Duration.ofHours(1)).start();
    client = Clients.sync(emulator);
    asyncClient = Clients.async(emulator);
    client.createDatabaseIfNotExists("feed-db");
    database = client.getDatabase("feed-db");
  }

  @AfterAll
  void stop() {
    asyncClient.close();
    client.close();
    emulator.close();
  }

  private CosmosContainer freshContainer(Integer defaultTtl) {
    String id = "c-" + UUID.randomUUID();
    database.createContainer(Clients.containerProps(id, defaultTtl));
    return database.getContainer(id);
  }

  private static ObjectNode order(String id, int version) {
    return JsonNodeFactory.instance
        .objectNode()
        .put("id", id)
        .put("orderId", id)
        .put("version", version);
  }

  /** Every page the SDK hands out until the feed has no more changes. */
  private static List<FeedResponse<JsonNode>> pages(
      CosmosContainer container, CosmosChangeFeedRequestOptions options, int pageSize) {
    List<FeedResponse<JsonNode>> pages = new ArrayList<>();
    container.queryChangeFeed(options, JsonNode.class).iterableByPage(pageSize).forEach(pages::add);
    return pages;
  }

  private static List<String> ids(List<FeedResponse<JsonNode>> pages) {
    List<String> ids = new ArrayList<>();
    pages.forEach(p -> p.getResults().forEach(doc -> ids.add(doc.get("id").asText())));
    return ids;
  }

  private static String lastContinuation(List<FeedResponse<JsonNode>> pages) {
    return pages.get(pages.size() - 1).getContinuationToken();
  }

  @Test
  void fromBeginning_returnsEachLiveItemOnceInItsLatestVersion_inWriteOrder() {
    CosmosContainer container = freshContainer(null);
    container.createItem(order("a", 1));
    container.createItem(order("b", 1));
    container.createItem(order("c", 1));
    container.upsertItem(order("a", 2));
    container.deleteItem("b", new PartitionKey("b"), null);

    List<FeedResponse<JsonNode>> pages =
        pages(
            container,
            CosmosChangeFeedRequestOptions.createForProcessingFromBeginning(
                FeedRange.forFullRange()),
            100);

    assertThat(ids(pages)).containsExactly("c", "a");
    JsonNode a =
        pages.stream()
            .flatMap(p -> p.getResults().stream())
            .filter(d -> d.get("id").asText().equals("a"))
            .findFirst()
            .orElseThrow();
    assertThat(a.get("version").intValue()).isEqualTo(2);
    assertThat(a.get("_lsn").longValue()).isPositive();
  }

  @Test
  void pageSize_isHonoured_andTheLoopEndsWhenNothingIsNew() {
    CosmosContainer container = freshContainer(null);
    for (int i = 0; i < 5; i++) {
      container.createItem(order("item-" + i, 1));
    }

    List<FeedResponse<JsonNode>> pages =
        pages(
            container,
            CosmosChangeFeedRequestOptions.createForProcessingFromBeginning(
                FeedRange.forFullRange()),
            2);

    List<Integer> sizes =
        pages.stream().map(p -> p.getResults().size()).filter(s -> s > 0).toList();
    assertThat(sizes).containsExactly(2, 2, 1);
    assertThat(ids(pages)).containsExactly("item-0", "item-1", "item-2", "item-3", "item-4");
  }

  @Test
  void fromNow_skipsEarlierChanges_andItsContinuationSeesLaterOnes() {
    CosmosContainer container = freshContainer(null);
    container.createItem(order("before", 1));

    List<FeedResponse<JsonNode>> now =
        pages(
            container,
            CosmosChangeFeedRequestOptions.createForProcessingFromNow(FeedRange.forFullRange()),
            10);
    container.createItem(order("after", 1));
    List<FeedResponse<JsonNode>> later =
        pages(
            container,
            CosmosChangeFeedRequestOptions.createForProcessingFromContinuation(
                lastContinuation(now)),
            10);

    assertThat(ids(now)).isEmpty();
    assertThat(ids(later)).containsExactly("after");
  }

  @Test
  void fromContinuation_returnsOnlyChangesAfterIt_updatedItemsOnce() {
    CosmosContainer container = freshContainer(null);
    container.createItem(order("a", 1));
    container.createItem(order("b", 1));
    List<FeedResponse<JsonNode>> first =
        pages(
            container,
            CosmosChangeFeedRequestOptions.createForProcessingFromBeginning(
                FeedRange.forFullRange()),
            10);
    container.upsertItem(order("a", 2));
    container.upsertItem(order("a", 3));
    container.createItem(order("c", 1));
    container.deleteItem("b", new PartitionKey("b"), null);

    List<FeedResponse<JsonNode>> second =
        pages(
            container,
            CosmosChangeFeedRequestOptions.createForProcessingFromContinuation(
                lastContinuation(first)),
            10);
    List<FeedResponse<JsonNode>> third =
        pages(
            container,
            CosmosChangeFeedRequestOptions.createForProcessingFromContinuation(
                lastContinuation(second)),
            10);

    assertThat(ids(first)).containsExactly("a", "b");
    assertThat(ids(second)).containsExactly("a", "c");
    assertThat(second.get(0).getResults().get(0).get("version").intValue()).isEqualTo(3);
    assertThat(ids(third)).isEmpty();
  }

  @Test
  void aBatch_isNeverSplitAcrossPages() {
    CosmosContainer container = freshContainer(null);
    CosmosBatch batch = CosmosBatch.createCosmosBatch(new PartitionKey("p"));
    for (int i = 0; i < 3; i++) {
      batch.createItemOperation(
          JsonNodeFactory.instance.objectNode().put("id", "line-" + i).put("orderId", "p"));
    }
    container.executeCosmosBatch(batch);
    container.createItem(order("single", 1));

    List<FeedResponse<JsonNode>> pages =
        pages(
            container,
            CosmosChangeFeedRequestOptions.createForProcessingFromBeginning(
                FeedRange.forFullRange()),
            1);

    List<Integer> sizes =
        pages.stream().map(p -> p.getResults().size()).filter(s -> s > 0).toList();
    assertThat(sizes).containsExactly(3, 1);
  }

  @Test
  void expiredItems_doNotAppear() {
    CosmosContainer container = freshContainer(60);
    container.createItem(order("short", 1).put("ttl", 10));
    container.createItem(order("long", 1));
    clock.advance(Duration.ofSeconds(30));

    List<FeedResponse<JsonNode>> pages =
        pages(
            container,
            CosmosChangeFeedRequestOptions.createForProcessingFromBeginning(
                FeedRange.forFullRange()),
            10);

    assertThat(ids(pages)).containsExactly("long");
  }

  @Test
  void fromPointInTime_returnsOnlyVersionsWrittenSinceThen() {
    CosmosContainer container = freshContainer(null);
    container.createItem(order("old", 1));
    clock.advance(Duration.ofMinutes(1));
    Instant since = clock.instant();
    container.createItem(order("new", 1));

    List<FeedResponse<JsonNode>> pages =
        pages(
            container,
            CosmosChangeFeedRequestOptions.createForProcessingFromPointInTime(
                since, FeedRange.forFullRange()),
            10);

    assertThat(ids(pages)).containsExactly("new");
  }

  @Test
  void logicalPartitionFeedRange_returnsOnlyThatPartition() {
    CosmosContainer container = freshContainer(null);
    container.createItem(order("x", 1));
    container.createItem(order("y", 1));

    List<FeedResponse<JsonNode>> pages =
        pages(
            container,
            CosmosChangeFeedRequestOptions.createForProcessingFromBeginning(
                FeedRange.forLogicalPartition(new PartitionKey("y"))),
            10);

    assertThat(ids(pages)).containsExactly("y");
  }

  @Test
  void asyncClient_readsTheFeed() {
    CosmosContainer container = freshContainer(null);
    container.createItem(order("a", 1));
    container.createItem(order("b", 1));

    List<JsonNode> docs =
        asyncClient
            .getDatabase("feed-db")
            .getContainer(container.getId())
            .queryChangeFeed(
                CosmosChangeFeedRequestOptions.createForProcessingFromBeginning(
                    FeedRange.forFullRange()),
                JsonNode.class)
            .collectList()
            .block(Duration.ofSeconds(30));

    assertThat(docs).extracting(d -> d.get("id").asText()).containsExactly("a", "b");
  }
}
