package io.idemworker.proof.bench;

import com.azure.cosmos.CosmosContainer;
import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import io.idemworker.emulator.cosmos.CosmosEmulator;
import io.idemworker.emulator.servicebus.ServiceBusEmulator;
import io.idemworker.emulator.servicebus.SubscriptionSettings;
import io.idemworker.emulator.servicebus.TopicSettings;
import io.idemworker.relay.OutboxRelay;
import io.idemworker.relay.RelayListener;
import io.idemworker.relay.RelaySettings;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The relay's share of a bench run: after this worker's run, one relay drains the outbox events the
 * run wrote in its container to a topic (duplicate detection on, as deployed), and the phase
 * measures what that costs: Cosmos DB request charge (everything the emulator billed while the
 * relay ran: change-feed pages and lease writes) and the process's CPU, per relayed event.
 */
final class RelayPhase {
  private RelayPhase() {}

  /**
   * What relaying one run's events cost.
   *
   * @param events events the topic accepted
   * @param requestCharge RU the emulator billed while the relay drained them
   * @param cpuMillis the process's CPU meanwhile
   * @param seconds wall time from start to caught up
   */
  record Figures(int events, double requestCharge, double cpuMillis, double seconds) {
    double requestChargeEach() {
      return events == 0 ? Double.NaN : requestCharge / events;
    }

    double cpuMillisEach() {
      return events == 0 ? Double.NaN : cpuMillis / events;
    }
  }

  /**
   * Drains the container's outbox to a new topic named after the run.
   *
   * @return the figures, or empty figures when the relay did not catch up within the timeout
   */
  static Figures drain(
      ServiceBusEmulator serviceBus,
      CosmosEmulator cosmos,
      CosmosContainer container,
      String name,
      Duration timeout)
      throws InterruptedException {
    String topic = name + "-events";
    serviceBus.createTopic(
        TopicSettings.defaults(topic)
            .withRequiresDuplicateDetection(true)
            .withSubscription(SubscriptionSettings.defaults("audit")));
    AtomicInteger published = new AtomicInteger();
    RelayListener listener =
        new RelayListener() {
          @Override
          public void published(String eventType, int count, int republished) {
            published.addAndGet(count);
          }

          @Override
          public void publishFailed(String reason, int count) {}
        };
    ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor();
    double chargeBefore = cosmos.stats().totalRequestCharge();
    long cpuStart = BenchSupport.processCpuNanos();
    long start = System.nanoTime();
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
                100,
                Duration.ofMillis(200)),
            listener,
            Clock.systemUTC(),
            executor)) {
      relay.start();
      boolean caughtUp = relay.awaitCaughtUp(timeout);
      double seconds = (System.nanoTime() - start) / 1e9;
      double cpuMillis = (BenchSupport.processCpuNanos() - cpuStart) / 1e6;
      double charge = cosmos.stats().totalRequestCharge() - chargeBefore;
      return caughtUp
          ? new Figures(published.get(), charge, cpuMillis, seconds)
          : new Figures(0, charge, cpuMillis, seconds);
    } finally {
      executor.shutdownNow();
    }
  }
}
