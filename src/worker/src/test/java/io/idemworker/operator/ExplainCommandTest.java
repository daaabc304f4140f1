package io.idemworker.operator;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusReceiverClient;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import com.azure.messaging.servicebus.models.DeadLetterOptions;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.idemworker.app.Wiring;
import io.idemworker.core.DeliveryOrigin;
import io.idemworker.core.IdempotentConsumer;
import io.idemworker.core.Outcome;
import io.idemworker.core.TestFlow;
import io.idemworker.cosmos.CosmosEffectStore;
import io.idemworker.emulator.junit.AzureEmulators;
import io.idemworker.emulator.junit.Emulators;
import io.idemworker.orders.InboxMarkers;
import io.idemworker.orders.OrderDocumentIds;
import io.idemworker.orders.OrderMessageTypes;
import io.idemworker.orders.Orders;
import io.idemworker.testing.EmulatorClients;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code explain} through the real SDKs on both emulators: documents written by the real flow, a
 * copy dead-lettered by a real receiver.
 */
@AzureEmulators
class ExplainCommandTest {
  static Emulators azure; // injected by @AzureEmulators
  private final IdempotentConsumer consumer =
      TestFlow.of(
              OrderMessageTypes.decoder(
                  true, new InboxMarkers("orders", Optional.of(Duration.ofDays(14)))),
              new CosmosEffectStore(
                  EmulatorClients.orders(azure),
                  (operation, status, charge, latency) -> {},
                  OrderDocumentIds.PARTITION_KEY_PATH))
          .build();
  private String queue;
  private String orderId;
  private String creditId;

  @BeforeEach
  void placeAnOrderWithAStatusAndACredit() {
    queue = azure.newQueue("q");
    orderId = "ord-" + UUID.randomUUID().toString().substring(0, 12);
    creditId = orderId + "-cr";
    assertThat(
            consumer.handle(
                Orders.order(orderId),
                Optional.of(
                    new DeliveryOrigin(
                        17,
                        Instant.parse("2026-12-01T10:00:00Z"),
                        Instant.parse("2026-12-01T10:01:00Z"),
                        0,
                        DeliveryOrigin.Via.SEND,
                        2))))
        .isInstanceOf(Outcome.Processed.class);
    assertThat(consumer.handle(Orders.status(orderId, "Shipped", 3)))
        .isInstanceOf(Outcome.Processed.class);
    assertThat(
            consumer.handle(
                Orders.credit(orderId, creditId, "1.5", "EUR"),
                Optional.of(
                    new DeliveryOrigin(
                        40,
                        Instant.parse("2026-12-01T11:00:00Z"),
                        Instant.parse("2026-12-01T11:01:00Z"),
                        1,
                        DeliveryOrigin.Via.RESUBMIT,
                        0))))
        .isInstanceOf(Outcome.Processed.class);
  }

  private Map<String, String> env() {
    Map<String, String> env = new HashMap<>();
    env.put("SERVICEBUS_CONNECTION_STRING", azure.serviceBus().connectionString());
    env.put("SERVICEBUS_QUEUE_NAME", queue);
    env.put("COSMOS_ENDPOINT", azure.cosmos().endpoint());
    env.put("COSMOS_KEY", azure.cosmos().key());
    env.put("COSMOS_DATABASE", "it");
    env.put("COSMOS_CONTAINER", "orders");
    return env;
  }

  private record Run(int exit, String out, String err) {
    JsonNode json() {
      try {
        return new ObjectMapper().readTree(out);
      } catch (java.io.IOException e) {
        throw new AssertionError("not JSON: " + out, e);
      }
    }
  }

  private static Run explain(Map<String, String> env, Clock clock, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit =
        new CommandLine(
                new ExplainCommand(
                    env,
                    new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8),
                    clock,
                    Wiring::workerTarget))
            .execute(args);
    return new Run(
        exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  private void deadLetter(ServiceBusMessage message, String reason, String description) {
    try (ServiceBusSenderClient sender = EmulatorClients.sender(azure, queue);
        ServiceBusReceiverClient receiver =
            EmulatorClients.serviceBusClient(azure)
                .receiver()
                .queueName(queue)
                .disableAutoComplete()
                .buildClient()) {
      sender.sendMessage(message);
      List<ServiceBusReceivedMessage> received = new ArrayList<>();
      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (received.isEmpty() && System.nanoTime() < deadline) {
        receiver.receiveMessages(1, Duration.ofSeconds(1)).forEach(received::add);
      }
      assertThat(received).hasSize(1);
      receiver.deadLetter(
          received.get(0),
          new DeadLetterOptions()
              .setDeadLetterReason(reason)
              .setDeadLetterErrorDescription(description));
    }
  }

  @Test
  void orderId_printsTheTimelineOfWhatIsStored_andExitsZero() {
    Run run = explain(env(), Clock.systemUTC(), orderId);

    assertThat(run.exit()).as(run.err()).isZero();
    assertThat(run.out())
        .contains(orderId + ": order " + orderId + " (id taken as the orderId)")
        .contains("from message " + orderId + ", fingerprint sha256:")
        .contains("status    Shipped (version 3)")
        .contains(
            "written by delivery seq 17 (deliveryCount 0, enqueued 2026-12-01T10:00:00Z, locked"
                + " until 2026-12-01T10:01:00Z, wrote after ")
        .contains(" ms, producer attempt 2)")
        .contains("written by an unstamped delivery")
        .contains("written by delivery seq 40 (deliveryCount 1, enqueued 2026-12-01T11:00:00Z")
        .contains(", via resubmit)")
        .contains("credits   1 credit(s), creditedUnits 15000")
        .contains("inbox:orders:" + creditId + "  OrderCredited")
        .contains("TTL left 13d 23h")
        .contains("OrderAccepted, not yet published (pending), caused by " + orderId)
        .contains("timeline")
        .contains("order accepted from message " + orderId);
  }

  @Test
  void json_hasTheDocumentedShape_andTheTtlLeftFollowsTheClock() {
    Clock thirteenDaysLater = Clock.offset(Clock.systemUTC(), Duration.ofDays(13));

    Run run = explain(env(), thirteenDaysLater, creditId, "--order", orderId, "--json");

    assertThat(run.exit()).as(run.err()).isZero();
    JsonNode json = run.json();
    assertThat(json.get("query").asText()).isEqualTo(creditId);
    assertThat(json.get("orderId").asText()).isEqualTo(orderId);
    assertThat(json.get("resolvedBy").asText()).isEqualTo("--order");
    assertThat(json.get("found").asBoolean()).isTrue();
    assertThat(json.at("/order/fingerprint").asText()).startsWith("sha256:");
    assertThat(json.at("/order/messageId").asText()).isEqualTo(orderId);
    assertThat(json.at("/order/statusVersion").asInt()).isEqualTo(3);
    assertThat(json.at("/order/matches").asBoolean()).isFalse();
    assertThat(json.get("lines").asInt()).isPositive();
    JsonNode marker = json.at("/markers/0");
    assertThat(marker.get("id").asText()).isEqualTo("inbox:orders:" + creditId);
    assertThat(marker.get("matches").asBoolean()).isTrue();
    assertThat(marker.at("/writtenBy/seq").asLong()).isEqualTo(40);
    assertThat(marker.at("/writtenBy/via").asText()).isEqualTo("resubmit");
    assertThat(json.at("/order/writtenBy/pa").asInt()).isEqualTo(2);
    assertThat(marker.get("ttlLeftSeconds").asLong()).isBetween(86_400L - 3_600, 86_400L);
    assertThat(json.at("/outbox/0/eventType").asText()).isEqualTo("OrderAccepted");
    assertThat(json.at("/outbox/0/published").asBoolean()).isFalse();
    assertThat(json.at("/outbox/0/relay").asText()).isEqualTo("pending");
    assertThat(json.get("payments")).isEmpty();
    assertThat(json.get("deadLetters")).isEmpty();
    assertThat(json.get("timeline").size()).isGreaterThanOrEqualTo(4);
    assertThat(json.at("/outbox/0").has("payload")).isFalse();
  }

  @Test
  void deadLetteredCreditWithoutOrder_isFoundThroughItsCopy_withReasonButNotBody() {
    String rejected = orderId + "-cr-usd";
    ServiceBusMessage credit =
        new ServiceBusMessage(
            """
            {"orderId":"%s","creditId":"%s","amount":77.77,"currency":"USD","reason":"secret-note"}"""
                .formatted(orderId, rejected));
    credit.setMessageId(rejected);
    credit.setSubject("OrderCredited");
    deadLetter(credit, "CurrencyMismatch", "currency must equal the currency of order " + orderId);

    Run text = explain(env(), Clock.systemUTC(), rejected);
    Run json = explain(env(), Clock.systemUTC(), rejected, "--json");

    assertThat(text.exit()).as(text.err()).isZero();
    assertThat(text.out())
        .contains("(dead-lettered copy)")
        .contains(queue + "/$deadletterqueue  " + rejected + " (this message)  OrderCredited")
        .contains("CurrencyMismatch: currency must equal the currency of order " + orderId)
        .doesNotContain("secret-note")
        .doesNotContain("77.77");
    assertThat(json.exit()).isZero();
    JsonNode copy = json.json().at("/deadLetters/0");
    assertThat(json.json().get("orderId").asText()).isEqualTo(orderId);
    assertThat(copy.get("reason").asText()).isEqualTo("CurrencyMismatch");
    assertThat(copy.get("entity").asText()).isEqualTo(queue);
    assertThat(copy.get("matches").asBoolean()).isTrue();
    assertThat(json.out()).doesNotContain("secret-note").doesNotContain("77.77");
  }

  @Test
  void processedCreditIdWithoutOrder_isFoundByACrossPartitionQuery_withItsCost() {
    Run run = explain(env(), Clock.systemUTC(), creditId);
    Run json = explain(env(), Clock.systemUTC(), creditId, "--json");

    assertThat(run.exit()).as(run.err()).isZero();
    assertThat(run.out())
        .containsPattern(
            creditId
                + ": order "
                + orderId
                + " \\(cross-partition query by key, \\d+\\.\\d\\d RU\\)")
        .contains("inbox:orders:" + creditId + " (this message)  OrderCredited");
    assertThat(json.json().get("orderId").asText()).isEqualTo(orderId);
    assertThat(json.json().get("resolvedBy").asText()).startsWith("cross-partition query by key");
  }

  @Test
  void crossPartitionLookUp_costsRequestUnits_andFindsTheOrderOnce() {
    OrderExplainer.Lookup lookup = OrderExplainer.lookUp(EmulatorClients.orders(azure), creditId);

    assertThat(lookup.orderIds()).containsExactly(orderId);
    assertThat(lookup.requestCharge()).isPositive();
  }

  @Test
  void statusChangeId_findsItsOrder() {
    Run run = explain(env(), Clock.systemUTC(), orderId + ":status:3", "--json");

    assertThat(run.exit()).isZero();
    assertThat(run.json().get("resolvedBy").asText()).isEqualTo("status-change id");
    assertThat(run.json().at("/order/status").asText()).isEqualTo("Shipped");
  }

  @Test
  void unknownId_exitsOne_andSaysWhatWasSearched() {
    Run run = explain(env(), Clock.systemUTC(), "cr-nowhere-" + UUID.randomUUID());
    Run json = explain(env(), Clock.systemUTC(), "cr-nowhere-" + UUID.randomUUID(), "--json");

    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.err()).contains("nothing found for cr-nowhere-");
    assertThat(run.out())
        .containsPattern(
            "note: a cross-partition query for documents keyed by cr-nowhere-\\S+ found none \\(\\d+\\.\\d\\d RU\\)");
    assertThat(json.exit()).isEqualTo(1);
    assertThat(json.json().get("found").asBoolean()).isFalse();
    assertThat(json.json().get("order").isNull()).isTrue();
  }

  @Test
  void missingContainer_exitsTwo_namingIt() {
    Map<String, String> env = env();
    env.put("COSMOS_CONTAINER", "no-such-container");

    Run run = explain(env, Clock.systemUTC(), orderId);

    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.err()).contains("Cosmos DB answered 404").contains("it/no-such-container");
  }

  @Test
  void withoutConfiguration_exitsTwo_namingTheVariables() {
    Run run = explain(Map.of(), Clock.systemUTC(), orderId);

    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.err()).contains("COSMOS_ENDPOINT").contains("SERVICEBUS_CONNECTION_STRING");
  }
}
