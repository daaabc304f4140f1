package io.idemworker.emulator.cosmos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosClientBuilder;
import com.azure.cosmos.CosmosException;
import com.azure.cosmos.models.CosmosContainerProperties;
import com.azure.cosmos.models.CosmosDatabaseProperties;
import com.azure.cosmos.models.SqlParameter;
import com.azure.cosmos.models.SqlQuerySpec;
import com.azure.cosmos.models.ThroughputProperties;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Databases, containers and offers as the SDK lists, queries, reads, replaces and deletes them, and
 * the refusal of direct mode, through the real client.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CosmosEmulatorControlPlaneTest {
  private CosmosEmulator emulator;
  private CosmosClient client;

  @BeforeAll
  void start() {
    emulator = CosmosEmulator.builder().start();
    client = Clients.sync(emulator);
  }

  @AfterAll
  void stop() {
    client.close();
    emulator.close();
  }

  @Test
  void queryDatabases_withStartsWithParameter_findsOnlyMatchingOnes() {
    client.createDatabase("stale_1");
    client.createDatabase("stale_2");
    client.createDatabase("kept");

    List<String> ids =
        client
            .queryDatabases(
                new SqlQuerySpec(
                    "SELECT * FROM c WHERE STARTSWITH(c.id, @PREFIX)",
                    List.of(new SqlParameter("@PREFIX", "stale_"))),
                null)
            .stream()
            .map(CosmosDatabaseProperties::getId)
            .toList();

    assertThat(ids).containsExactlyInAnyOrder("stale_1", "stale_2");
    assertThat(client.readAllDatabases().stream().map(CosmosDatabaseProperties::getId))
        .contains("stale_1", "stale_2", "kept");
  }

  @Test
  void queryContainers_andReadAll_listTheDatabasesContainers() {
    client.createDatabaseIfNotExists("cp-db");
    var db = client.getDatabase("cp-db");
    db.createContainerIfNotExists(new CosmosContainerProperties("a1", "/pk"));
    db.createContainerIfNotExists(new CosmosContainerProperties("a2", "/pk"));
    db.createContainerIfNotExists(new CosmosContainerProperties("b1", "/pk"));

    List<String> queried =
        db.queryContainers("SELECT * FROM root WHERE root.id = 'a2'").stream()
            .map(CosmosContainerProperties::getId)
            .toList();
    List<String> all =
        db.readAllContainers().stream().map(CosmosContainerProperties::getId).toList();

    assertThat(queried).containsExactly("a2");
    assertThat(all).containsExactlyInAnyOrder("a1", "a2", "b1");
  }

  @Test
  void containerThroughput_isStoredReadAndReplaced_neverEnforced() {
    client.createDatabaseIfNotExists("tp-db");
    var db = client.getDatabase("tp-db");
    db.createContainer(
        new CosmosContainerProperties("provisioned", "/pk"),
        ThroughputProperties.createManualThroughput(700));

    var container = db.getContainer("provisioned");
    var read = container.readThroughput();
    container.replaceThroughput(ThroughputProperties.createManualThroughput(1200));
    var after = container.readThroughput();

    assertThat(read.getProperties().getManualThroughput()).isEqualTo(700);
    assertThat(read.getMinThroughput()).isEqualTo(Offers.MIN_THROUGHPUT);
    assertThat(after.getProperties().getManualThroughput()).isEqualTo(1200);
  }

  @Test
  void containerWithoutThroughput_readThroughput_isTheSdksNoOfferAnswer() {
    client.createDatabaseIfNotExists("tp-db2");
    var db = client.getDatabase("tp-db2");
    db.createContainerIfNotExists(new CosmosContainerProperties("shared", "/pk"));

    Throwable t = catchThrowable(() -> db.getContainer("shared").readThroughput());

    assertThat(t).isInstanceOf(CosmosException.class);
    // The offer query finds nothing; the SDK itself turns that into a 400.
    assertThat(((CosmosException) t).getStatusCode()).isEqualTo(400);
    assertThat(t.getMessage()).containsIgnoringCase("offer");
  }

  @Test
  void scriptQueries_answerAnEmptyFeed_whileCreatingScriptsIsRefused() {
    client.createDatabaseIfNotExists("scripts-db");
    var db = client.getDatabase("scripts-db");
    db.createContainerIfNotExists(new CosmosContainerProperties("c", "/pk"));
    var scripts = db.getContainer("c").getScripts();

    assertThat(scripts.queryStoredProcedures("SELECT * FROM root", null).stream()).isEmpty();
    assertThat(scripts.queryTriggers("SELECT * FROM root", null).stream()).isEmpty();
    assertThat(scripts.queryUserDefinedFunctions("SELECT * FROM root", null).stream()).isEmpty();
    assertThat(scripts.readAllStoredProcedures().stream()).isEmpty();
    Throwable t =
        catchThrowable(
            () ->
                scripts.createStoredProcedure(
                    new com.azure.cosmos.models.CosmosStoredProcedureProperties(
                        "sp", "function () {}")));
    assertThat(((CosmosException) t).getStatusCode()).isEqualTo(501);
  }

  @Test
  void deletedDatabase_disappearsFromQueriesAndReads() {
    client.createDatabase("doomed");

    client.getDatabase("doomed").delete();

    assertThat(client.queryDatabases("SELECT * FROM c WHERE c.id = 'doomed'", null).stream())
        .isEmpty();
    Throwable t = catchThrowable(() -> client.getDatabase("doomed").read());
    assertThat(((CosmosException) t).getStatusCode()).isEqualTo(404);
  }

  @Test
  void directModeClient_isRefusedNamingGatewayMode_notAsAWrongKey() {
    Throwable t =
        catchThrowable(
            () -> {
              try (CosmosClient direct =
                  new CosmosClientBuilder()
                      .endpoint(emulator.endpoint())
                      .key(emulator.key())
                      .directMode()
                      .buildClient()) {
                direct.createDatabaseIfNotExists("direct-db");
                direct
                    .getDatabase("direct-db")
                    .createContainerIfNotExists(new CosmosContainerProperties("c", "/pk"));
                direct
                    .getDatabase("direct-db")
                    .getContainer("c")
                    .createItem(java.util.Map.of("id", "1", "pk", "1"));
              }
            });

    CosmosException e = cosmosException(t);
    assertThat(e.getStatusCode()).isEqualTo(501);
    assertThat(e.getMessage())
        .contains("Direct (TCP) connection mode is not served", "gatewayMode()");
  }

  private static CosmosException cosmosException(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof CosmosException e) {
        return e;
      }
      for (Throwable s : c.getSuppressed()) {
        if (s instanceof CosmosException e) {
          return e;
        }
      }
    }
    throw new AssertionError("no CosmosException in " + chain(t));
  }

  private static String chain(Throwable t) {
    StringBuilder sb = new StringBuilder();
    for (Throwable c = t; c != null; c = c.getCause()) {
      sb.append(c).append('\n');
      for (Throwable s : c.getSuppressed()) {
        sb.append(s).append('\n');
      }
    }
    return sb.toString();
  }
}
