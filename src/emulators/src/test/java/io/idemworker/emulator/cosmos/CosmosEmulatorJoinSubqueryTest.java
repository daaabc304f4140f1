package io.idemworker.emulator.cosmos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosException;
import com.azure.cosmos.models.CosmosContainerProperties;
import com.azure.cosmos.models.CosmosQueryRequestOptions;
import com.azure.cosmos.models.PartitionKey;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * JOIN (over arrays, self-joins, sub-queries), EXISTS / ARRAY / scalar sub-queries, sub-queries in
 * FROM, LIKE and queries without FROM, through the SDK's queryItems against a container of four
 * partition key ranges (so every cross-partition answer is merged by the SDK from four), and in one
 * logical partition.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CosmosEmulatorJoinSubqueryTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private CosmosEmulator emulator;
  private CosmosClient client;
  private CosmosContainer orders;

  @BeforeAll
  void start() throws Exception {
    emulator = CosmosEmulator.builder().partitionKeyRanges(4).start();
    client = Clients.sync(emulator);
    client.createDatabaseIfNotExists("sql");
    client.getDatabase("sql").createContainer(new CosmosContainerProperties("orders", "/id"));
    orders = client.getDatabase("sql").getContainer("orders");
    String[] docs = {
      "{'id':'o1','n':1,'name':'Ada','color':'red','tags':['red','blue'],"
          + "'lines':[{'sku':'a','qty':1},{'sku':'b','qty':3}]}",
      "{'id':'o2','n':2,'name':'Adam','color':'blue','tags':['blue'],'lines':[{'sku':'a','qty':2}]}",
      "{'id':'o3','n':3,'name':'Bea','color':'red','tags':[],'lines':[]}",
      "{'id':'o4','n':4,'name':'Cy','color':'green','tags':['green','red','blue'],"
          + "'lines':[{'sku':'c','qty':5}]}",
      "{'id':'o5','n':5,'name':'Dora','color':'red','lines':[{'sku':'b','qty':1}]}",
      "{'id':'o6','n':6,'name':'100% Eve','color':'blue','tags':['x'],'lines':[]}",
      "{'id':'o7','n':7,'name':'Fay','color':'green','tags':['red'],'lines':[{'sku':'d','qty':9}]}",
      "{'id':'o8','n':8,'name':'Gus','color':'red','tags':['blue','x'],'lines':[]}"
    };
    for (String doc : docs) {
      orders.createItem(JSON.readTree(doc.replace('\'', '"')));
    }
  }

  @AfterAll
  void stop() {
    client.close();
    emulator.close();
  }

  private List<JsonNode> query(String sql) {
    return orders.queryItems(sql, new CosmosQueryRequestOptions(), JsonNode.class).stream()
        .toList();
  }

  private List<String> texts(String sql) {
    return query(sql).stream().map(JsonNode::asText).toList();
  }

  private static JsonNode json(String text) {
    try {
      return JSON.readTree(text.replace('\'', '"'));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void join_repeatsEachDocumentForEachElementOfItsArray() {
    assertThat(query("SELECT c.id, t AS tag FROM c JOIN t IN c.tags"))
        .hasSize(10)
        .contains(json("{'id':'o1','tag':'red'}"), json("{'id':'o4','tag':'green'}"))
        .noneMatch(row -> row.path("id").asText().equals("o3"));
    assertThat(texts("SELECT VALUE l.sku FROM o JOIN l IN o.lines WHERE l.qty > 1"))
        .containsExactlyInAnyOrder("b", "a", "c", "d");
  }

  @Test
  void selfJoin_pairsTheElementsOfOneArray() {
    assertThat(
            query(
                "SELECT VALUE [a, b] FROM c JOIN a IN c.tags JOIN b IN c.tags"
                    + " WHERE c.id = 'o4' AND a < b"))
        .containsExactlyInAnyOrder(
            json("['green','red']"), json("['blue','green']"), json("['blue','red']"));
    assertThat(
            query(
                "SELECT c.id FROM c JOIN a IN c.lines JOIN b IN c.lines"
                    + " WHERE a.sku != b.sku AND a.qty < b.qty"))
        .containsExactly(json("{'id':'o1'}"));
  }

  @Test
  void selectStarWithAJoin_isAnObjectOfEveryAlias() {
    assertThat(query("SELECT * FROM c JOIN l IN c.lines WHERE l.qty = 9"))
        .singleElement()
        .satisfies(
            row -> {
              assertThat(row.path("c").path("id").asText()).isEqualTo("o7");
              assertThat(row.path("l")).isEqualTo(json("{'sku':'d','qty':9}"));
            });
    assertThat(texts("SELECT VALUE t FROM t IN c.tags")).hasSize(10);
  }

  @Test
  void joinsMergeAcrossRanges_withOrderByAggregatesAndDistinct() {
    assertThat(texts("SELECT VALUE l.sku FROM c JOIN l IN c.lines ORDER BY c.n DESC"))
        .containsExactly("d", "b", "c", "a", "a", "b");
    assertThat(texts("SELECT VALUE COUNT(1) FROM c JOIN t IN c.tags")).containsExactly("10");
    assertThat(texts("SELECT DISTINCT VALUE t FROM c JOIN t IN c.tags"))
        .containsExactlyInAnyOrder("red", "blue", "green", "x");
    assertThat(
            texts("SELECT VALUE COUNT(1) FROM (SELECT DISTINCT VALUE t FROM c JOIN t IN c.tags)"))
        .containsExactly("4");
  }

  @Test
  void joinOfASubquery_bindsItsRows() {
    assertThat(
            query(
                "SELECT c.id, n AS tags FROM c JOIN (SELECT VALUE COUNT(1) FROM t IN c.tags) n"
                    + " WHERE n >= 2"))
        .containsExactlyInAnyOrder(
            json("{'id':'o1','tags':2}"),
            json("{'id':'o4','tags':3}"),
            json("{'id':'o8','tags':2}"));
  }

  @Test
  void exists_keepsTheDocumentsWhoseSubqueryYieldsARow() {
    assertThat(
            texts(
                "SELECT VALUE c.id FROM c WHERE EXISTS(SELECT VALUE t FROM t IN c.tags WHERE t ="
                    + " 'red')"))
        .containsExactlyInAnyOrder("o1", "o4", "o7");
    assertThat(
            texts(
                "SELECT VALUE c.id FROM c WHERE NOT EXISTS(SELECT VALUE l FROM l IN c.lines)"
                    + " AND c.n < 7"))
        .containsExactlyInAnyOrder("o3", "o6");
  }

  @Test
  void array_collectsTheSubquerysRows() {
    assertThat(
            query(
                "SELECT c.id, ARRAY(SELECT VALUE l.sku FROM l IN c.lines WHERE l.qty > 1) AS big"
                    + " FROM c WHERE c.n <= 2"))
        .containsExactlyInAnyOrder(
            json("{'id':'o1','big':['b']}"), json("{'id':'o2','big':['a']}"));
  }

  @Test
  void scalarSubqueries_giveTheirFirstValue_orLeaveThePropertyOut() {
    assertThat(
            query(
                "SELECT c.id, (SELECT VALUE MAX(l.qty) FROM l IN c.lines) AS most,"
                    + " (SELECT VALUE t FROM t IN c.tags WHERE t = 'green') AS green"
                    + " FROM c WHERE c.n IN (3, 4)"))
        .containsExactlyInAnyOrder(
            json("{'id':'o3'}"), json("{'id':'o4','most':5,'green':'green'}"));
    assertThat(texts("SELECT VALUE c.id FROM c WHERE (SELECT VALUE COUNT(1) FROM t IN c.tags) = 1"))
        .containsExactlyInAnyOrder("o2", "o6", "o7");
    assertThat(query("SELECT p.name, (SELECT VALUE p.n) AS n FROM p WHERE p.id = 'o5'"))
        .containsExactly(json("{'name':'Dora','n':5}"));
  }

  @Test
  void subqueryInFrom_isReadLikeTheContainer() {
    assertThat(texts("SELECT VALUE p.id FROM (SELECT * FROM c WHERE c.n > 5) p WHERE p.n < 8"))
        .containsExactlyInAnyOrder("o6", "o7");
  }

  @Test
  void like_matchesPercentUnderscoreSetsAndEscapes() {
    assertThat(texts("SELECT VALUE c.name FROM c WHERE c.name LIKE 'Ad%'"))
        .containsExactlyInAnyOrder("Ada", "Adam");
    assertThat(texts("SELECT VALUE c.name FROM c WHERE c.name LIKE '_ea'")).containsExactly("Bea");
    assertThat(texts("SELECT VALUE c.name FROM c WHERE c.name LIKE '[CD]%'"))
        .containsExactlyInAnyOrder("Cy", "Dora");
    assertThat(texts("SELECT VALUE c.name FROM c WHERE c.name LIKE '[^A-E]%'"))
        .containsExactlyInAnyOrder("Fay", "Gus", "100% Eve");
    assertThat(texts("SELECT VALUE c.name FROM c WHERE c.name LIKE '100!%%' ESCAPE '!'"))
        .containsExactly("100% Eve");
    assertThat(texts("SELECT VALUE c.name FROM c WHERE c.name NOT LIKE '%a%' AND c.n < 5"))
        .containsExactlyInAnyOrder("Cy");
    assertThat(texts("SELECT VALUE c.name FROM c WHERE c.n LIKE '1%'")).isEmpty();
  }

  @Test
  void queriesWithoutFrom_answerOnceAcrossFourRanges() {
    assertThat(query("SELECT 1")).containsExactly(json("{'$1':1}"));
    assertThat(query("SELECT VALUE 1+1")).containsExactly(json("2"));
    assertThat(query("SELECT VALUE 'a'")).containsExactly(json("'a'"));
    assertThat(query("SELECT 'a' AS p, [1, 2] AS q")).containsExactly(json("{'p':'a','q':[1,2]}"));
    // The Java SDK hands a VALUE array out as its elements, with DISTINCT or without.
    assertThat(query("SELECT DISTINCT VALUE [null, true, 1]"))
        .hasSize(3)
        .containsExactlyElementsOf(query("SELECT VALUE [null, true, 1]"));
    assertThat(texts("SELECT VALUE COUNT(1) FROM (SELECT DISTINCT VALUE 'a')"))
        .containsExactly("1");
    assertThat(
            orders
                .queryItems(
                    "SELECT VALUE 1+1",
                    new CosmosQueryRequestOptions().setPartitionKey(new PartitionKey("o1")),
                    JsonNode.class)
                .stream()
                .toList())
        .containsExactly(json("2"));
  }

  @Test
  void distinctMaxAndDistinctCounts_mergeAcrossRanges() {
    assertThat(texts("SELECT DISTINCT VALUE MAX(c.n) FROM c")).containsExactly("8");
    assertThat(texts("SELECT VALUE COUNT(1) FROM (SELECT DISTINCT VALUE c.color FROM c)"))
        .containsExactly("3");
    assertThat(query("SELECT COUNT(1) AS colors FROM (SELECT DISTINCT c.color FROM c)"))
        .singleElement()
        .satisfies(row -> assertThat(row.path("colors").asInt()).isEqualTo(3));
  }

  @Test
  void inOneLogicalPartition_joinsAndSubqueriesRunTheSame() {
    assertThat(
            orders
                .queryItems(
                    "SELECT VALUE t FROM c JOIN t IN c.tags WHERE t LIKE 'r%'"
                        + " AND EXISTS(SELECT VALUE 1 FROM l IN c.lines)",
                    new CosmosQueryRequestOptions().setPartitionKey(new PartitionKey("o4")),
                    String.class)
                .stream()
                .toList())
        .containsExactly("red");
  }

  @Test
  void whatIsNotServed_isA400NamingIt() {
    assertThatThrownBy(() -> query("SELECT * FROM a, b"))
        .isInstanceOfSatisfying(
            CosmosException.class,
            e -> {
              assertThat(e.getStatusCode()).isEqualTo(400);
              assertThat(e.getMessage()).contains("a list of sources in FROM");
            });
    assertThatThrownBy(() -> query("SELECT *"))
        .isInstanceOfSatisfying(
            CosmosException.class,
            e -> assertThat(e.getMessage()).contains("FROM clause is omitted"));
    assertThatThrownBy(() -> query("SELECT VALUE x.id FROM c"))
        .isInstanceOfSatisfying(
            CosmosException.class, e -> assertThat(e.getMessage()).contains("'x'"));
  }
}
