package io.idemworker.consumers;

import static org.assertj.core.api.Assertions.assertThat;

import io.idemworker.core.IdempotentConsumer;
import io.idemworker.core.InMemoryEffectStore;
import io.idemworker.core.MessageDecoder;
import io.idemworker.core.Outcome;
import io.idemworker.core.SubjectRouter;
import io.idemworker.core.TestFlow;
import io.idemworker.orders.InboxMarkers;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Two independent consumers of one event, sharing one store: what a marker keyed by the message id
 * alone loses, and what the pair (consumer, message id) keeps.
 */
class SharedStoreKeyingTest {
  private static final String BODY = Events.body("ord-1", "cust-1", "EUR", "42.50");

  private final InMemoryEffectStore store = new InMemoryEffectStore();

  private IdempotentConsumer consumer(MessageDecoder decoder) {
    return TestFlow.of(decoder, store).build();
  }

  private static InboxMarkers markers(String consumer) {
    return new InboxMarkers(consumer, Optional.of(Duration.ofDays(14)));
  }

  /** The unsafe variant, test-only: the marker id is the message id alone. */
  private static MessageDecoder keyedByMessageIdAlone(String consumer, CustomerEffect effect) {
    return new SubjectRouter(
        Map.of(
            "OrderAccepted",
            new OrderAcceptedDecoder(markers(consumer), key -> "inbox:" + key.value(), effect)));
  }

  @Test
  void markerKeyedByMessageIdAlone_silentlyLosesTheSecondConsumersEffect() {
    IdempotentConsumer loyalty =
        consumer(keyedByMessageIdAlone("loyalty", new CustomerEffect.LoyaltyPoints()));
    IdempotentConsumer stats =
        consumer(keyedByMessageIdAlone("customer-stats", new CustomerEffect.CustomerStats()));

    Outcome first = loyalty.handle(Events.message("evt-1", BODY));
    Outcome second = stats.handle(Events.message("evt-1", BODY));

    assertThat(first).isInstanceOf(Outcome.Processed.class);
    // The second consumer finds the first one's marker, with the same fingerprint: a "duplicate".
    // Its message is completed and its effect never happens; no error, no dead letter.
    assertThat(second).isInstanceOf(Outcome.Duplicate.class);
    assertThat(store.document("cust-1", "cust-1").orElseThrow().path("loyaltyPoints").asLong())
        .isEqualTo(42);
    assertThat(store.document("cust-1", "cust-1:stats:EUR")).isEmpty();
  }

  @Test
  void markerKeyedByConsumerAndMessageId_appliesBothEffectsExactlyOnce() {
    IdempotentConsumer loyalty =
        consumer(CustomerConsumers.decoder(CustomerConsumers.Role.LOYALTY, markers("loyalty")));
    IdempotentConsumer stats =
        consumer(
            CustomerConsumers.decoder(
                CustomerConsumers.Role.CUSTOMER_STATS, markers("customer-stats")));

    Outcome first = loyalty.handle(Events.message("evt-1", BODY));
    Outcome second = stats.handle(Events.message("evt-1", BODY));
    Outcome loyaltyAgain = loyalty.handle(Events.message("evt-1", BODY));
    Outcome statsAgain = stats.handle(Events.message("evt-1", BODY));

    assertThat(first).isInstanceOf(Outcome.Processed.class);
    assertThat(second).isInstanceOf(Outcome.Processed.class);
    assertThat(loyaltyAgain).isInstanceOf(Outcome.Duplicate.class);
    assertThat(statsAgain).isInstanceOf(Outcome.Duplicate.class);
    assertThat(store.document("cust-1", "cust-1").orElseThrow().path("loyaltyPoints").asLong())
        .isEqualTo(42);
    com.fasterxml.jackson.databind.node.ObjectNode statsDocument =
        store.document("cust-1", "cust-1:stats:EUR").orElseThrow();
    assertThat(statsDocument.path("orderCount").asLong()).isEqualTo(1);
    assertThat(statsDocument.path("spentUnits").asLong()).isEqualTo(425_000);
    assertThat(store.document("cust-1", "inbox:loyalty:evt-1")).isPresent();
    assertThat(store.document("cust-1", "inbox:customer-stats:evt-1")).isPresent();
  }
}
