package io.idemworker.relay;

import static io.idemworker.relay.RelayFixture.freshContainer;
import static io.idemworker.relay.RelayFixture.read;
import static io.idemworker.relay.RelayFixture.receive;
import static io.idemworker.relay.RelayFixture.writeEvent;
import static org.assertj.core.api.Assertions.assertThat;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.models.CosmosChangeFeedRequestOptions;
import com.azure.cosmos.models.PartitionKey;
import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.fasterxml.jackson.databind.JsonNode;
import io.idemworker.emulator.cosmos.CosmosEmulator;
import io.idemworker.emulator.cosmos.Fault;
import io.idemworker.emulator.cosmos.Operation;
import io.idemworker.testing.Emulators;
import io.idemworker.testing.MutableClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The marks of a page run concurrently ({@link RelayFixture#MARK_PARALLELISM} at once): when one of
 * them fails, the checkpoint stays before the page and the next cycle re-sends exactly the events
 * left unmarked, under their own MessageIds, which the topic's duplicate detection absorbs.
 */
class RelayConcurrentMarksTest {
  private final MutableClock clock = new MutableClock();
  private final ServiceBusClientBuilder serviceBus = Emulators.serviceBusClient();

  @Test
  void oneMarkOfAConcurrentPageFailing_keepsTheCheckpoint_andTheNextCycleResendsOnlyTheUnmarked() {
    try (CosmosEmulator cosmos =
            CosmosEmulator.builder()
                .port(0)
                .clock(clock)
                .purgeInterval(Duration.ofHours(1))
                .start();
        CosmosClient client = RelayFixture.cosmosClient(cosmos)) {
      // given a relay with a checkpoint after one published event, and a page of eight more
      CosmosContainer container = freshContainer(client);
      String topic = RelayFixture.newTopic(Emulators.serviceBus());
      RelayFixture.Counts counts = new RelayFixture.Counts();
      try (OutboxRelay relay =
          RelayFixture.relay(container, serviceBus, topic, "relay-a", counts, clock)) {
        List<String> all = new ArrayList<>();
        all.add(writeEvent(container, "ord-first", clock));
        assertThat(relay.runOnce()).isEqualTo(OutboxRelay.Cycle.DRAINED);
        List<String> page = new ArrayList<>();
        List<String> orders = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
          orders.add("ord-" + i);
          page.add(writeEvent(container, "ord-" + i, clock));
        }
        all.addAll(page);

        // when the third of the page's marks to reach Cosmos DB fails
        cosmos.faults().failNth(Operation.PATCH, 3, Fault.status(503));
        assertThat(relay.runOnce()).isEqualTo(OutboxRelay.Cycle.FAILED);

        // then the stored checkpoint is still before the page, and the lease names it as being sent
        JsonNode failed = lease(container, topic);
        assertThat(feedAfter(container, failed.path("continuation").asText()))
            .extracting(document -> document.path("id").asText())
            .containsAll(page);
        List<String> sending = new ArrayList<>();
        failed.path("sending").forEach(id -> sending.add(id.asText()));
        assertThat(sending).containsExactlyInAnyOrderElementsOf(page);
        // and the failed mark, and any not started after it, left their events pending
        List<String> unmarked = new ArrayList<>();
        for (int i = 0; i < page.size(); i++) {
          if (status(container, orders.get(i), page.get(i)).equals("pending")) {
            unmarked.add(page.get(i));
          }
        }
        assertThat(unmarked).hasSizeBetween(1, page.size() - 2);
        assertThat(counts.published).hasValue(1 + page.size());

        // when the next cycle runs
        assertThat(relay.runOnce()).isEqualTo(OutboxRelay.Cycle.DRAINED);

        // then it re-sent only the unmarked events, counted as re-publishes, and marked them
        assertThat(counts.published).hasValue(1 + page.size() + unmarked.size());
        assertThat(counts.republished).hasValue(unmarked.size());
        for (int i = 0; i < page.size(); i++) {
          assertThat(status(container, orders.get(i), page.get(i))).isEqualTo("published");
        }
        assertThat(feedAfter(container, lease(container, topic).path("continuation").asText()))
            .noneMatch(document -> document.path("status").asText().equals("pending"));
        // and the subscriber got each event once: the re-sends carried the same MessageIds
        List<ServiceBusReceivedMessage> received =
            receive(serviceBus, topic, all.size(), Duration.ofSeconds(30), Duration.ofSeconds(1));
        assertThat(received)
            .extracting(ServiceBusReceivedMessage::getMessageId)
            .containsExactlyInAnyOrderElementsOf(all);
      }
    }
  }

  private static JsonNode lease(CosmosContainer container, String topic) {
    return container
        .readItem(RelayLease.DOCUMENT_ID, new PartitionKey("relay:" + topic), JsonNode.class)
        .getItem();
  }

  /** Every document the change feed holds after a checkpoint, read with the SDK. */
  private static List<JsonNode> feedAfter(CosmosContainer container, String continuation) {
    List<JsonNode> documents = new ArrayList<>();
    container
        .queryChangeFeed(
            CosmosChangeFeedRequestOptions.createForProcessingFromContinuation(continuation),
            JsonNode.class)
        .iterableByPage()
        .forEach(response -> documents.addAll(response.getResults()));
    return documents;
  }

  private static String status(CosmosContainer container, String orderId, String id) {
    return read(container, orderId, id).get("status").asText();
  }
}
