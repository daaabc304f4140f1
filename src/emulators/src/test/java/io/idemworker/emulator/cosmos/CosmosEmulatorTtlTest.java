package io.idemworker.emulator.cosmos;

import static io.idemworker.emulator.cosmos.CosmosEmulatorSyncClientTest.cosmosError;
import static io.idemworker.emulator.cosmos.CosmosEmulatorSyncClientTest.order;
import static io.idemworker.emulator.cosmos.CosmosEmulatorSyncClientTest.unique;
import static org.assertj.core.api.Assertions.assertThat;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.models.PartitionKey;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** Time to live, driven by an injected clock: no test waits for time to pass. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CosmosEmulatorTtlTest {
  private final MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
  private CosmosEmulator emulator;
  private CosmosClient client;
  private CosmosContainer tenSeconds;
  private CosmosContainer foreverByDefault;
  private CosmosContainer ttlOff;

  @BeforeAll
  void start() {
    emulator = CosmosEmulator.builder().clock(clock).purgeInterval(Duration.ofHours(1)).start();
    client = Clients.sync(emulator);
    client.createDatabaseIfNotExists("db");
    var db = client.getDatabase("db");
    db.createContainerIfNotExists(Clients.containerProps("ten", 10));
    db.createContainerIfNotExists(Clients.containerProps("forever", -1));
    db.createContainerIfNotExists(Clients.containerProps("off", null));
    tenSeconds = db.getContainer("ten");
    foreverByDefault = db.getContainer("forever");
    ttlOff = db.getContainer("off");
  }

  @AfterAll
  void stop() {
    client.close();
    emulator.close();
  }

  @Test
  void expiredItem_isAbsentAtOnce_andItsIdCanBeCreatedAgain() {
    String id = unique();
    tenSeconds.createItem(order(id, id));
    clock.advance(Duration.ofSeconds(9));
    assertThat(tenSeconds.readItem(id, new PartitionKey(id), ObjectNode.class).getStatusCode())
        .isEqualTo(200);

    clock.advance(Duration.ofSeconds(1));

    assertThat(
            cosmosError(() -> tenSeconds.readItem(id, new PartitionKey(id), ObjectNode.class))
                .getStatusCode())
        .isEqualTo(404);
    assertThat(tenSeconds.createItem(order(id, id)).getStatusCode()).isEqualTo(201);
  }

  @Test
  void itemTtl_overridesContainerDefault() {
    String shortLived = unique();
    String immortal = unique();
    tenSeconds.createItem(order(shortLived, shortLived).put("ttl", 2));
    tenSeconds.createItem(order(immortal, immortal).put("ttl", -1));

    clock.advance(Duration.ofSeconds(3));
    assertThat(
            cosmosError(
                    () ->
                        tenSeconds.readItem(
                            shortLived, new PartitionKey(shortLived), ObjectNode.class))
                .getStatusCode())
        .isEqualTo(404);
    clock.advance(Duration.ofDays(400));
    assertThat(
            tenSeconds
                .readItem(immortal, new PartitionKey(immortal), ObjectNode.class)
                .getStatusCode())
        .isEqualTo(200);
  }

  @Test
  void containerDefaultMinusOne_keepsItemsUnlessTheySetTtl() {
    String kept = unique();
    String expiring = unique();
    foreverByDefault.createItem(order(kept, kept));
    foreverByDefault.createItem(order(expiring, expiring).put("ttl", 5));

    clock.advance(Duration.ofSeconds(6));

    assertThat(
            foreverByDefault
                .readItem(kept, new PartitionKey(kept), ObjectNode.class)
                .getStatusCode())
        .isEqualTo(200);
    assertThat(
            cosmosError(
                    () ->
                        foreverByDefault.readItem(
                            expiring, new PartitionKey(expiring), ObjectNode.class))
                .getStatusCode())
        .isEqualTo(404);
  }

  @Test
  void containerWithoutDefaultTtl_ignoresItemTtl() {
    String id = unique();
    ttlOff.createItem(order(id, id).put("ttl", 1));

    clock.advance(Duration.ofSeconds(5));

    assertThat(ttlOff.readItem(id, new PartitionKey(id), ObjectNode.class).getStatusCode())
        .isEqualTo(200);
  }

  @Test
  void expiredItems_areReplacedByUpsertAndRejectedByReplace() {
    String id = unique();
    tenSeconds.createItem(order(id, id));
    clock.advance(Duration.ofSeconds(11));

    assertThat(
            cosmosError(() -> tenSeconds.replaceItem(order(id, id), id, new PartitionKey(id), null))
                .getStatusCode())
        .isEqualTo(404);
    assertThat(tenSeconds.upsertItem(order(id, id)).getStatusCode()).isEqualTo(201);
  }

  @Test
  void switchingTtlOnByReplacingTheContainer_appliesToExistingItems() {
    var db = client.getDatabase("db");
    db.createContainerIfNotExists(Clients.containerProps("later", null));
    CosmosContainer later = db.getContainer("later");
    String id = unique();
    later.createItem(order(id, id));
    clock.advance(Duration.ofSeconds(30));

    // The SDK replaces by the properties' self link, so start from what the service returned.
    var props = later.read().getProperties();
    props.setDefaultTimeToLiveInSeconds(20);
    later.replace(props);

    assertThat(later.read().getProperties().getDefaultTimeToLiveInSeconds()).isEqualTo(20);
    assertThat(
            cosmosError(() -> later.readItem(id, new PartitionKey(id), ObjectNode.class))
                .getStatusCode())
        .isEqualTo(404);
  }

  @Test
  void purge_removesExpiredItemsFromTheStore() {
    String id = unique();
    tenSeconds.createItem(order(id, id));
    clock.advance(Duration.ofSeconds(11));

    int purged = emulator.purgeExpiredNow();

    assertThat(purged).isPositive();
    assertThat(emulator.purgeExpiredNow()).isZero();
  }

  @Test
  void purge_removesItemsWrittenBeforeTtlWasSwitchedOn() {
    var db = client.getDatabase("db");
    db.createContainerIfNotExists(Clients.containerProps("switched", null));
    CosmosContainer switched = db.getContainer("switched");
    String id = unique();
    switched.createItem(order(id, id));
    emulator.purgeExpiredNow();
    var props = switched.read().getProperties();
    props.setDefaultTimeToLiveInSeconds(20);
    switched.replace(props);
    clock.advance(Duration.ofSeconds(21));

    emulator.purgeExpiredNow();

    Store store = emulator.store();
    assertThat(store.container(store.database("db"), "switched").storedItemCount()).isZero();
  }

  @Test
  void purge_keepsAnItemRewrittenAfterItsFirstExpiry_untilTheNewOneIsDue() {
    String id = unique();
    tenSeconds.createItem(order(id, id));
    clock.advance(Duration.ofSeconds(5));
    tenSeconds.upsertItem(order(id, id).put("note", "rewritten"));
    clock.advance(Duration.ofSeconds(6));

    emulator.purgeExpiredNow();

    ObjectNode kept = tenSeconds.readItem(id, new PartitionKey(id), ObjectNode.class).getItem();
    assertThat(kept.path("note").asText()).isEqualTo("rewritten");
    clock.advance(Duration.ofSeconds(5));
    assertThat(emulator.purgeExpiredNow()).isPositive();
    assertThat(
            cosmosError(() -> tenSeconds.readItem(id, new PartitionKey(id), ObjectNode.class))
                .getStatusCode())
        .isEqualTo(404);
  }

  @Test
  void invalidItemTtl_is400() {
    String id = unique();

    assertThat(
            cosmosError(() -> tenSeconds.createItem(order(id, id).put("ttl", 0))).getStatusCode())
        .isEqualTo(400);
  }
}
