package io.idemworker.relay;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosContainer;
import io.idemworker.emulator.cosmos.CosmosEmulator;
import io.idemworker.emulator.cosmos.Operation;
import io.idemworker.emulator.servicebus.ServiceBusEmulator;
import io.idemworker.testing.MutableClock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * How fast one relay drains a backlog of outbox events on the emulators, and what it costs in
 * Cosmos DB round trips. Run with {@code mvn -B verify -Pbench -Dtest=RelayBenchmark}.
 */
@Tag("benchmark")
class RelayBenchmark {
  private static final int ORDERS = 500;
  private static final int EVENTS_PER_ORDER = 2;

  @Test
  void drainingABacklog() {
    MutableClock clock = new MutableClock();
    try (CosmosEmulator cosmos =
            CosmosEmulator.builder()
                .port(0)
                .clock(clock)
                .purgeInterval(Duration.ofHours(1))
                .start();
        CosmosClient client = RelayFixture.cosmosClient(cosmos);
        ServiceBusEmulator serviceBus = ServiceBusEmulator.builder().port(0).start()) {
      CosmosContainer container = RelayFixture.freshContainer(client);
      String topic = RelayFixture.newTopic(serviceBus);
      for (int i = 0; i < ORDERS; i++) {
        RelayFixture.writeOrder(container, "ord-" + i);
        for (int e = 0; e < EVENTS_PER_ORDER; e++) {
          RelayFixture.writeEvent(container, "ord-" + i, clock);
        }
      }
      RelayFixture.Counts counts = new RelayFixture.Counts();
      OutboxRelay relay =
          OutboxRelay.create(
              container,
              new com.azure.messaging.servicebus.ServiceBusClientBuilder()
                  .connectionString(serviceBus.connectionString())
                  .sender()
                  .topicName(topic)
                  .buildClient(),
              new RelaySettings(
                  topic,
                  "bench",
                  Duration.ofSeconds(30),
                  Duration.ofDays(7),
                  100,
                  Duration.ofSeconds(1)),
              counts,
              clock,
              java.util.concurrent.Executors.newSingleThreadScheduledExecutor(
                  r -> {
                    Thread thread = new Thread(r, "relay-bench");
                    thread.setDaemon(true);
                    return thread;
                  }));
      cosmos.stats().reset();
      long start = System.nanoTime();
      OutboxRelay.Cycle cycle = relay.runOnce();
      double seconds = (System.nanoTime() - start) / 1e9;
      int events = ORDERS * EVENTS_PER_ORDER;
      System.out.printf(
          "relay drained %d events (among %d documents) in %.2f s = %.0f events/s;"
              + " Cosmos DB requests: change feed %d, patch %d, lease replace %d, read %d%n",
          events,
          ORDERS * (EVENTS_PER_ORDER + 1),
          seconds,
          events / seconds,
          cosmos.stats().count(Operation.CHANGE_FEED),
          cosmos.stats().count(Operation.PATCH),
          cosmos.stats().count(Operation.REPLACE),
          cosmos.stats().count(Operation.READ));
      assertThat(cycle).isEqualTo(OutboxRelay.Cycle.DRAINED);
      assertThat(counts.published).hasValue(events);
      List.of(relay).forEach(OutboxRelay::close);
    }
  }
}
