package io.idemworker.emulator.cosmos;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosContainer;
import io.idemworker.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/** The background purge removes expired items from memory without any request touching them. */
class CosmosEmulatorBackgroundPurgeTest {

  @Test
  void expiredItems_arePurgedInTheBackground() {
    MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
    try (CosmosEmulator emulator =
            CosmosEmulator.builder().clock(clock).purgeInterval(Duration.ofMillis(20)).start();
        CosmosClient client = Clients.sync(emulator)) {
      client.createDatabaseIfNotExists("db");
      client.getDatabase("db").createContainerIfNotExists(Clients.containerProps("c", 5));
      CosmosContainer c = client.getDatabase("db").getContainer("c");
      for (int i = 0; i < 3; i++) {
        c.createItem(CosmosEmulatorSyncClientTest.order("item-" + i, "p"));
      }
      assertThat(storedItems(emulator)).isEqualTo(3);

      clock.advance(Duration.ofSeconds(6));

      // Bounded poll for the purge thread; never a fixed sleep.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (storedItems(emulator) > 0 && System.nanoTime() < deadline) {
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
      }
      assertThat(storedItems(emulator)).isZero();
    }
  }

  private static int storedItems(CosmosEmulator emulator) {
    return emulator.store().databases().stream()
        .flatMap(db -> db.containersByName.values().stream())
        .mapToInt(Container::storedItemCount)
        .sum();
  }
}
