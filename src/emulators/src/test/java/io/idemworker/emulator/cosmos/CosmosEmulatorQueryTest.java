package io.idemworker.emulator.cosmos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.azure.cosmos.CosmosAsyncClient;
import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosException;
import com.azure.cosmos.models.CosmosQueryRequestOptions;
import com.azure.cosmos.models.FeedResponse;
import com.azure.cosmos.models.PartitionKey;
import com.azure.cosmos.models.SqlParameter;
import com.azure.cosmos.models.SqlQuerySpec;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** Single-partition queries, with the SDK's query-plan handshake and paging, through the client. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CosmosEmulatorQueryTest {
  private CosmosEmulator emulator;
  private CosmosClient client;
  private CosmosAsyncClient asyncClient;
  private CosmosContainer container;

  @BeforeAll
  void start() {
    emulator = CosmosEmulator.builder().start();
    client = Clients.sync(emulator);
    asyncClient = Clients.async(emulator);
    client.createDatabaseIfNotExists("query-db");
    client
        .getDatabase("query-db")
        .createContainerIfNotExists(Clients.containerProps("orders", null));
    container = client.getDatabase("query-db").getContainer("orders");
    line("p1", "a", "Placed", 30);
    line("p1", "b", "Paid", 10);
    line("p1", "c", "Placed", 50);
    line("p1", "d", "Shipped", 20);
    container.createItem(
        JsonNodeFactory.instance.objectNode().put("id", "e").put("orderId", "p1").put("note", "x"));
    line("p2", "z", "Placed", 99);
  }

  private void line(String orderId, String id, String status, int amount) {
    ObjectNode doc = JsonNodeFactory.instance.objectNode();
    doc.put("id", id).put("orderId", orderId).put("status", status).put("amount", amount);
    doc.putObject("customer").put("name", "cust-" + id);
    container.createItem(doc);
  }

  @AfterAll
  void stop() {
    asyncClient.close();
    client.close();
    emulator.close();
  }

  private static CosmosQueryRequestOptions in(String partition) {
    return new CosmosQueryRequestOptions().setPartitionKey(new PartitionKey(partition));
  }

  private <T> List<T> query(String sql, Class<T> type, SqlParameter... parameters) {
    return container.queryItems(new SqlQuerySpec(sql, List.of(parameters)), in("p1"), type).stream()
        .toList();
  }

  private List<String> ids(String sql, SqlParameter... parameters) {
    return query(sql, JsonNode.class, parameters).stream().map(d -> d.get("id").asText()).toList();
  }

  private static CosmosException cosmosError(ThrowingCallable call) {
    Throwable t = catchThrowable(call);
    assertThat(t).isInstanceOf(CosmosException.class);
    return (CosmosException) t;
  }

  @Test
  void selectStar_returnsTheWholeDocumentsOfThatPartitionOnly() {
    List<JsonNode> docs = query("SELECT * FROM c", JsonNode.class);

    assertThat(docs).extracting(d -> d.get("id").asText()).containsExactly("a", "b", "c", "d", "e");
    assertThat(docs.get(0).get("_etag").asText()).isNotEmpty();
    assertThat(docs.get(0).at("/customer/name").asText()).isEqualTo("cust-a");
  }

  @Test
  void where_withParameters_filtersWithCosmosSemantics() {
    assertThat(
            ids(
                "SELECT * FROM c WHERE c.status = @status AND c.amount >= @min",
                new SqlParameter("@status", "Placed"),
                new SqlParameter("@min", 40)))
        .containsExactly("c");
    assertThat(ids("SELECT * FROM c WHERE c.amount < 25")).containsExactly("b", "d");
    assertThat(ids("SELECT * FROM c WHERE NOT (c.amount < 25)")).containsExactly("a", "c");
    assertThat(ids("SELECT * FROM c WHERE NOT IS_DEFINED(c.amount)")).containsExactly("e");
    assertThat(ids("SELECT * FROM c WHERE STARTSWITH(c.customer.name, 'cust-') AND c.id != 'a'"))
        .containsExactly("b", "c", "d");
  }

  @Test
  void propertyList_projectsNamedFields_andLeavesUndefinedOnesOut() {
    List<JsonNode> rows =
        query("SELECT c.id, c.amount, c.customer.name AS who FROM c", JsonNode.class);

    assertThat(rows.get(0).toString()).isEqualTo("{\"id\":\"a\",\"amount\":30,\"who\":\"cust-a\"}");
    assertThat(rows.get(4).toString()).isEqualTo("{\"id\":\"e\"}");
  }

  @Test
  void selectValue_returnsBareValues() {
    List<Integer> amounts =
        query("SELECT VALUE c.amount FROM c WHERE c.status = 'Placed'", Integer.class);
    List<String> names =
        query("SELECT VALUE c.customer.name FROM c WHERE c.amount > 25", String.class);

    assertThat(amounts).containsExactly(30, 50);
    assertThat(names).containsExactly("cust-a", "cust-c");
  }

  @Test
  void orderBy_sortsAscendingAndDescending_undefinedFirst() {
    assertThat(ids("SELECT * FROM c ORDER BY c.amount DESC"))
        .containsExactly("c", "a", "d", "b", "e");
    assertThat(ids("SELECT * FROM c ORDER BY c.amount")).containsExactly("e", "b", "d", "a", "c");
    assertThat(ids("SELECT * FROM c ORDER BY c.status ASC"))
        .containsExactly("e", "b", "a", "c", "d");
  }

  @Test
  void topAndOffsetLimit_applyAfterOrdering() {
    assertThat(ids("SELECT TOP 2 * FROM c ORDER BY c.amount DESC")).containsExactly("c", "a");
    assertThat(
            ids(
                "SELECT * FROM c WHERE IS_DEFINED(c.amount) ORDER BY c.amount OFFSET @skip LIMIT @take",
                new SqlParameter("@skip", 1),
                new SqlParameter("@take", 2)))
        .containsExactly("d", "a");
    assertThat(ids("SELECT TOP @n c.id FROM c", new SqlParameter("@n", 3)))
        .containsExactly("a", "b", "c");
  }

  @Test
  void paging_honoursThePageSize_andResumesFromAContinuationToken() {
    List<FeedResponse<JsonNode>> pages = new ArrayList<>();
    container
        .queryItems("SELECT * FROM c ORDER BY c.id", in("p1"), JsonNode.class)
        .iterableByPage(2)
        .forEach(pages::add);
    String afterFirst = pages.get(0).getContinuationToken();

    List<String> resumed = new ArrayList<>();
    container
        .queryItems("SELECT * FROM c ORDER BY c.id", in("p1"), JsonNode.class)
        .iterableByPage(afterFirst, 2)
        .forEach(p -> p.getResults().forEach(d -> resumed.add(d.get("id").asText())));

    assertThat(pages).extracting(p -> p.getResults().size()).containsExactly(2, 2, 1);
    assertThat(pages.get(2).getContinuationToken()).isNull();
    assertThat(afterFirst).isNotNull();
    assertThat(resumed).containsExactly("c", "d", "e");
  }

  @Test
  void readAllItems_ofAPartition_isAQueryToo() {
    List<String> ids =
        container.readAllItems(new PartitionKey("p2"), JsonNode.class).stream()
            .map(d -> d.get("id").asText())
            .toList();

    assertThat(ids).containsExactly("z");
  }

  @Test
  void asyncClient_queriesWithParameters() {
    List<JsonNode> docs =
        asyncClient
            .getDatabase("query-db")
            .getContainer("orders")
            .queryItems(
                new SqlQuerySpec(
                    "SELECT * FROM o WHERE o.status = @s",
                    List.of(new SqlParameter("@s", "Placed"))),
                in("p1"),
                JsonNode.class)
            .collectList()
            .block(Duration.ofSeconds(30));

    assertThat(docs).extracting(d -> d.get("id").asText()).containsExactly("a", "c");
  }

  @Test
  void topOnAnAggregate_keepsOrDropsTheOneRow() {
    assertThat(query("SELECT TOP 0 VALUE COUNT(1) FROM c", JsonNode.class)).isEmpty();
    assertThat(query("SELECT TOP 1 VALUE COUNT(1) FROM c", JsonNode.class))
        .extracting(JsonNode::asLong)
        .containsExactly(5L);
    assertThat(query("SELECT VALUE MAX(c.amount) FROM c OFFSET 1 LIMIT 1", JsonNode.class))
        .isEmpty();
  }

  @Test
  void inAndBetween_filterLikeChainsOfComparisons() {
    assertThat(ids("SELECT * FROM c WHERE c.status IN ('Paid', 'Shipped')"))
        .containsExactly("b", "d");
    assertThat(
            ids(
                "SELECT * FROM c WHERE c.amount IN (@low, @high)",
                new SqlParameter("@low", 10),
                new SqlParameter("@high", 50)))
        .containsExactly("b", "c");
    // NOT IN keeps only documents whose value is defined and of a comparable type: "e" has no
    // status, so its IN is undefined and so is the negation.
    assertThat(ids("SELECT * FROM c WHERE c.status NOT IN ('Placed')")).containsExactly("b", "d");
    assertThat(ids("SELECT * FROM c WHERE c.amount BETWEEN 20 AND 30")).containsExactly("a", "d");
    assertThat(ids("SELECT * FROM c WHERE c.amount NOT BETWEEN 20 AND 30 AND c.id != 'b'"))
        .containsExactly("c");
    // A candidate of another type never equals: 30 is not '30'.
    assertThat(ids("SELECT * FROM c WHERE c.amount IN ('30')")).isEmpty();
  }

  @Test
  void constructsOutsideTheSubset_are400NamingThem() {
    List<String[]> cases =
        List.of(
            new String[] {"SELECT * FROM c WHERE COUNT(1) > 1", "SELECT clause only"},
            new String[] {"SELECT * FROM c, t", "a list of sources in FROM"},
            new String[] {"SELECT * FROM c.children x", "a path in FROM"},
            new String[] {"SELECT * FROM c GROUP BY c.status", "SELECT * with GROUP BY"},
            new String[] {"SELECT COUNT(1) FROM c ORDER BY c.id", "aggregate with ORDER BY"},
            new String[] {"SELECT * FROM c WHERE c.amount & 1 > 2", "'&'"},
            new String[] {"SELECT * FROM c WHERE c.status LIKE", "ends unexpectedly"},
            new String[] {"SELEC * FROM c", "SELECT"});

    for (String[] c : cases) {
      CosmosException e = cosmosError(() -> query(c[0], JsonNode.class));
      assertThat(e.getStatusCode()).as(c[0]).isEqualTo(400);
      assertThat(e.getMessage()).as(c[0]).contains(c[1]);
    }
  }

  @Test
  void queries_areCountedAndCharged() {
    emulator.stats().reset();

    query("SELECT * FROM c", JsonNode.class);

    // The SDK caches the plan of a single-partition query, so only the query itself may be sent.
    assertThat(emulator.stats().count(Operation.QUERY)).isGreaterThanOrEqualTo(1);
    assertThat(emulator.stats().totalRequestCharge()).isGreaterThan(2.0);
  }
}
