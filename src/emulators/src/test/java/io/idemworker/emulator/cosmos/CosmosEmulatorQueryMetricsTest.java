package io.idemworker.emulator.cosmos;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.cosmos.BridgeInternal;
import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.implementation.QueryMetrics;
import com.azure.cosmos.models.CosmosQueryRequestOptions;
import com.azure.cosmos.models.FeedResponse;
import com.azure.cosmos.models.PartitionKey;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Query metrics ({@code x-ms-documentdb-query-metrics}) as the real client reads them: per page,
 * per range, only when asked for.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CosmosEmulatorQueryMetricsTest {
  private static final int PER_PARTITION = 6;
  private static final int PARTITIONS = 8;

  private CosmosEmulator emulator;
  private CosmosClient client;
  private CosmosContainer container;

  @BeforeAll
  void start() {
    emulator = CosmosEmulator.builder().partitionKeyRanges(4).start();
    client = Clients.sync(emulator);
    client.createDatabaseIfNotExists("metrics-db");
    client
        .getDatabase("metrics-db")
        .createContainerIfNotExists(Clients.containerProps("orders", null));
    container = client.getDatabase("metrics-db").getContainer("orders");
    for (int p = 0; p < PARTITIONS; p++) {
      for (int i = 0; i < PER_PARTITION; i++) {
        container.createItem(
            JsonNodeFactory.instance
                .objectNode()
                .put("id", "line-" + i)
                .put("orderId", "order-" + p)
                .put("qty", i));
      }
    }
  }

  @AfterAll
  void stop() {
    client.close();
    emulator.close();
  }

  private List<FeedResponse<JsonNode>> pages(
      String sql, CosmosQueryRequestOptions options, int pageSize) {
    List<FeedResponse<JsonNode>> pages = new ArrayList<>();
    container.queryItems(sql, options, JsonNode.class).iterableByPage(pageSize).forEach(pages::add);
    return pages;
  }

  private static QueryMetrics merged(FeedResponse<JsonNode> page) {
    Map<String, QueryMetrics> byRange = BridgeInternal.queryMetricsFromFeedResponse(page);
    assertThat(byRange).as("query metrics of the page").isNotEmpty();
    return QueryMetrics.createFromCollection(byRange.values());
  }

  @Test
  void singlePartitionPage_reportsWhatItRead_whatItReturned_andMeasuredTimes() {
    CosmosQueryRequestOptions options =
        new CosmosQueryRequestOptions()
            .setPartitionKey(new PartitionKey("order-3"))
            .setQueryMetricsEnabled(true);

    List<FeedResponse<JsonNode>> pages = pages("SELECT * FROM c WHERE c.qty >= 2", options, 3);

    assertThat(pages).hasSize(2);
    QueryMetrics first = merged(pages.get(0));
    assertThat(first.getRetrievedDocumentCount()).isEqualTo(PER_PARTITION);
    assertThat(first.getRetrievedDocumentSize()).isPositive();
    assertThat(first.getOutputDocumentCount()).isEqualTo(3);
    assertThat(first.getOutputDocumentSize()).isPositive();
    assertThat(first.getTotalQueryExecutionTime()).isGreaterThan(Duration.ZERO);
    assertThat(first.getVMExecutionTime()).isGreaterThan(Duration.ZERO);
    assertThat(first.getQueryPreparationTimes().getQueryCompilationTime())
        .isGreaterThan(Duration.ZERO);
    assertThat(first.getQueryPreparationTimes().getLogicalPlanBuildTime())
        .isGreaterThan(Duration.ZERO);
    assertThat(first.getTotalQueryExecutionTime())
        .isGreaterThanOrEqualTo(first.getVMExecutionTime());
    // The VM time spans loading and writing, so the engine's own time the SDK derives is not
    // negative.
    assertThat(first.getVMExecutionTime())
        .isGreaterThanOrEqualTo(first.getDocumentLoadTime().plus(first.getDocumentWriteTime()));
    assertThat(first.getRuntimeExecutionTimes().getQueryEngineExecutionTime())
        .isGreaterThanOrEqualTo(Duration.ZERO);
    assertThat(BridgeInternal.getClientSideMetrics(first).getRequestCharge()).isPositive();
    assertThat(merged(pages.get(1)).getOutputDocumentCount()).isEqualTo(1);
  }

  @Test
  void crossPartitionQuery_hasMetricsOfEveryRangeItRead() {
    CosmosQueryRequestOptions options =
        new CosmosQueryRequestOptions().setQueryMetricsEnabled(true);

    List<FeedResponse<JsonNode>> pages = pages("SELECT * FROM c", options, 100);

    long output = 0;
    long retrieved = 0;
    for (FeedResponse<JsonNode> page : pages) {
      if (!page.getResults().isEmpty()) {
        QueryMetrics metrics = merged(page);
        output += metrics.getOutputDocumentCount();
        retrieved += metrics.getRetrievedDocumentCount();
      }
    }
    assertThat(output).isEqualTo(PARTITIONS * PER_PARTITION);
    assertThat(retrieved).isEqualTo(PARTITIONS * PER_PARTITION);
  }

  @Test
  void metricsTurnedOff_areNotSent() {
    CosmosQueryRequestOptions options =
        new CosmosQueryRequestOptions()
            .setPartitionKey(new PartitionKey("order-1"))
            .setQueryMetricsEnabled(false);

    List<FeedResponse<JsonNode>> pages = pages("SELECT * FROM c", options, 100);

    assertThat(pages).hasSize(1);
    assertThat(pages.get(0).getResults()).hasSize(PER_PARTITION);
    assertThat(BridgeInternal.queryMetricsFromFeedResponse(pages.get(0))).isEmpty();
  }
}
