package io.idemworker.relay;

import static io.idemworker.relay.RelayFixture.freshContainer;
import static io.idemworker.relay.RelayFixture.read;
import static io.idemworker.relay.RelayFixture.receive;
import static io.idemworker.relay.RelayFixture.writeEvent;
import static org.assertj.core.api.Assertions.assertThat;

import com.azure.core.amqp.AmqpRetryMode;
import com.azure.core.amqp.AmqpRetryOptions;
import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosContainer;
import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import io.idemworker.emulator.cosmos.CosmosEmulator;
import io.idemworker.emulator.servicebus.ServiceBusEmulator;
import io.idemworker.testing.MutableClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;

/**
 * A topic outage: the Service Bus namespace goes away (the emulator stops; connections are refused)
 * and comes back on the same port. The relay's lag grows while it cannot send, then drains; no
 * event is lost.
 */
class RelayTopicOutageTest {
  private static final String TOPIC = "order-events";

  @Test
  void duringAnOutage_theLagGrows_andAfterItEverythingIsPublished() throws Exception {
    MutableClock clock = new MutableClock();
    try (CosmosEmulator cosmos =
            CosmosEmulator.builder()
                .port(0)
                .clock(clock)
                .purgeInterval(Duration.ofHours(1))
                .start();
        CosmosClient client = RelayFixture.cosmosClient(cosmos)) {
      ServiceBusEmulator serviceBus =
          ServiceBusEmulator.builder().port(0).topic(RelayFixture.topic(TOPIC)).start();
      int port = serviceBus.port();
      String connectionString = serviceBus.connectionString();
      ServiceBusClientBuilder clients =
          new ServiceBusClientBuilder()
              .connectionString(connectionString)
              .retryOptions(
                  new AmqpRetryOptions()
                      .setMode(AmqpRetryMode.FIXED)
                      .setMaxRetries(1)
                      .setDelay(Duration.ofMillis(100))
                      .setTryTimeout(Duration.ofSeconds(3)));
      CosmosContainer container = freshContainer(client);
      RelayFixture.Counts counts = new RelayFixture.Counts();
      OutboxRelay relay =
          OutboxRelay.create(
              container,
              clients.sender().topicName(TOPIC).buildClient(),
              RelayFixture.settings(TOPIC, "relay-a"),
              counts,
              clock,
              Executors.newSingleThreadScheduledExecutor(
                  r -> {
                    Thread thread = new Thread(r, "relay-outage");
                    thread.setDaemon(true);
                    return thread;
                  }));
      try {
        // given a relay that published two events while the topic was up
        List<String> ids = new ArrayList<>();
        ids.add(writeEvent(container, "ord-1", clock));
        ids.add(writeEvent(container, "ord-1", clock));
        assertThat(relay.runOnce()).isEqualTo(OutboxRelay.Cycle.DRAINED);
        List<ServiceBusReceivedMessage> beforeOutage =
            receive(clients, TOPIC, 2, Duration.ofSeconds(30), Duration.ofMillis(200));

        // when the namespace goes away while three more events are written
        serviceBus.close();
        ids.add(writeEvent(container, "ord-2", clock));
        ids.add(writeEvent(container, "ord-3", clock));
        ids.add(writeEvent(container, "ord-3", clock));
        assertThat(relay.runOnce()).isEqualTo(OutboxRelay.Cycle.FAILED);
        clock.advance(Duration.ofSeconds(30));
        Duration lagAfter30s = relay.lag().orElseThrow();
        assertThat(relay.runOnce()).isEqualTo(OutboxRelay.Cycle.FAILED);
        clock.advance(Duration.ofSeconds(30));
        Duration lagAfter60s = relay.lag().orElseThrow();

        // then the lag grows, the failures are counted, the checkpoint stays, and it stays ready
        assertThat(lagAfter30s).isEqualTo(Duration.ofSeconds(30));
        assertThat(lagAfter60s).isEqualTo(Duration.ofSeconds(60));
        assertThat(counts.failures("transient")).isEqualTo(6);
        assertThat(
                RelayProgress.read(container, TOPIC, 100).of(read(container, "ord-2", ids.get(2))))
            .isEqualTo(RelayProgress.State.SENDING);
        assertThat(relay.status().ready()).isTrue();

        // and when the namespace is back, the lag drains and every event arrives once
        serviceBus =
            ServiceBusEmulator.builder().port(port).topic(RelayFixture.topic(TOPIC)).start();
        try {
          assertThat(relay.runOnce()).isEqualTo(OutboxRelay.Cycle.DRAINED);
          assertThat(relay.lag()).contains(Duration.ZERO);
          List<ServiceBusReceivedMessage> afterOutage =
              receive(clients, TOPIC, 3, Duration.ofSeconds(30), Duration.ofMillis(500));
          List<String> all = new ArrayList<>();
          beforeOutage.forEach(m -> all.add(m.getMessageId()));
          afterOutage.forEach(m -> all.add(m.getMessageId()));
          assertThat(all).containsExactlyInAnyOrderElementsOf(ids);
          assertThat(counts.published).hasValue(5);
          RelayProgress progress = RelayProgress.read(container, TOPIC, 100);
          for (int i = 2; i < 5; i++) {
            String orderId = i == 2 ? "ord-2" : "ord-3";
            assertThat(progress.of(read(container, orderId, ids.get(i))))
                .isEqualTo(RelayProgress.State.PUBLISHED);
          }
        } finally {
          relay.close();
          serviceBus.close();
        }
      } finally {
        relay.close();
      }
    }
  }
}
