package io.idemworker.relay;

import com.azure.cosmos.CosmosClient;
import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import io.idemworker.emulator.cosmos.CosmosEmulator;
import io.idemworker.emulator.junit.AzureEmulators;
import io.idemworker.emulator.junit.Emulators;
import io.idemworker.testing.EmulatorClients;
import io.idemworker.testing.MutableClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/**
 * What the relay's emulator tests share: a Cosmos DB emulator of their own on a clock they move
 * (its background purge once an hour), a client of it, the shared Service Bus emulator, and the
 * relays a test starts, closed after it with the faults it injected.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@AzureEmulators(cosmos = false)
abstract class RelayEmulatorTest {
  static Emulators azure; // injected by @AzureEmulators
  final MutableClock clock = new MutableClock();
  ServiceBusClientBuilder serviceBus;
  final List<OutboxRelay> relays = new ArrayList<>();
  CosmosEmulator cosmos;
  CosmosClient client;

  @BeforeAll
  void start() {
    serviceBus = EmulatorClients.serviceBusClient(azure);
    cosmos =
        CosmosEmulator.builder().port(0).clock(clock).purgeInterval(Duration.ofHours(1)).start();
    client = RelayFixture.cosmosClient(cosmos);
  }

  @AfterEach
  void closeRelays() {
    cosmos.faults().clear();
    relays.forEach(OutboxRelay::close);
    relays.clear();
  }

  @AfterAll
  void stop() {
    client.close();
    cosmos.close();
  }
}
