package io.idemworker.relay;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosContainer;
import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import io.idemworker.emulator.cosmos.CosmosEmulator;
import io.idemworker.emulator.cosmos.Operation;
import io.idemworker.emulator.servicebus.ServiceBusEmulator;
import io.idemworker.testing.MutableClock;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * How fast one relay drains a backlog of outbox events on the emulators, and what it costs in
 * Cosmos DB round trips, request charge and CPU. Run with {@code mvn -B verify -Pbench
 * -Dtest=RelayBenchmark}; the page size can be changed with {@code -Drelay.bench.batchSize=…}.
 *
 * <p>Two backlogs of the same size are drained one after the other by the same relay: the first on
 * a cold JVM (what this benchmark measured before it had a second backlog), the second once the JIT
 * compiler has seen the code, which is what a relay keeping up with a long run looks like. The CPU
 * time is the whole process's (relay, both emulators, the SDKs' threads, GC): on a machine that has
 * nothing else to run, events/s cannot exceed cores / CPU per event.
 */
@Tag("benchmark")
class RelayBenchmark {
  private static final int ORDERS = 500;
  private static final int EVENTS_PER_ORDER = 2;
  private static final int BATCH_SIZE = Integer.getInteger("relay.bench.batchSize", 100);

  @Test
  void drainingABacklog() {
    MutableClock clock = new MutableClock();
    ScheduledExecutorService executor =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread thread = new Thread(r, "relay-bench");
              thread.setDaemon(true);
              return thread;
            });
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
      RelayFixture.Counts counts = new RelayFixture.Counts();
      try (OutboxRelay relay =
          OutboxRelay.create(
              container,
              new ServiceBusClientBuilder()
                  .connectionString(serviceBus.connectionString())
                  .sender()
                  .topicName(topic)
                  .buildClient(),
              new RelaySettings(
                  topic,
                  "bench",
                  Duration.ofSeconds(30),
                  Duration.ofDays(7),
                  BATCH_SIZE,
                  Duration.ofSeconds(1)),
              counts,
              clock,
              executor)) {
        for (String run : new String[] {"cold", "warm"}) {
          writeBacklog(container, run, clock);
          cosmos.stats().reset();
          int before = counts.published.get();
          long cpuStart = processCpuNanos();
          long start = System.nanoTime();
          OutboxRelay.Cycle cycle = relay.runOnce();
          double seconds = (System.nanoTime() - start) / 1e9;
          double cpuSeconds = (processCpuNanos() - cpuStart) / 1e9;
          int events = ORDERS * EVENTS_PER_ORDER;
          System.out.printf(
              "relay %s (page %d) drained %d events (among %d documents) in"
                  + " %.2f s = %.0f events/s; CPU %.2f s = %.2f ms/event; %.2f RU/event;"
                  + " load average %s;"
                  + " Cosmos DB requests: change feed %d, patch %d, lease replace %d, read %d%n",
              run,
              BATCH_SIZE,
              events,
              ORDERS * (EVENTS_PER_ORDER + 1),
              seconds,
              events / seconds,
              cpuSeconds,
              cpuSeconds * 1000 / events,
              cosmos.stats().totalRequestCharge() / events,
              loadAverage(),
              cosmos.stats().count(Operation.CHANGE_FEED),
              cosmos.stats().count(Operation.PATCH),
              cosmos.stats().count(Operation.REPLACE),
              cosmos.stats().count(Operation.READ));
          assertThat(cycle).isEqualTo(OutboxRelay.Cycle.DRAINED);
          assertThat(counts.published.get() - before).isEqualTo(events);
        }
      }
    } finally {
      executor.shutdownNow();
    }
  }

  private static void writeBacklog(CosmosContainer container, String run, MutableClock clock) {
    for (int i = 0; i < ORDERS; i++) {
      String orderId = "ord-" + run + "-" + i;
      RelayFixture.writeOrder(container, orderId);
      for (int e = 0; e < EVENTS_PER_ORDER; e++) {
        RelayFixture.writeEvent(container, orderId, clock);
      }
    }
  }

  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  private static String loadAverage() {
    return String.format(
        "%.2f", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
  }
}
