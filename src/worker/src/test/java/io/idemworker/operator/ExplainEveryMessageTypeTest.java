package io.idemworker.operator;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosClientBuilder;
import com.azure.cosmos.CosmosContainer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.idemworker.app.Wiring;
import io.idemworker.core.IdempotentConsumer;
import io.idemworker.core.Outcome;
import io.idemworker.core.TestFlow;
import io.idemworker.cosmos.CosmosContainers;
import io.idemworker.cosmos.CosmosEffectStore;
import io.idemworker.emulator.cosmos.CosmosEmulator;
import io.idemworker.emulator.junit.AzureEmulators;
import io.idemworker.emulator.junit.Emulators;
import io.idemworker.emulator.payments.PaymentProviderEmulator;
import io.idemworker.orders.OrderDocumentIds;
import io.idemworker.orders.Orders;
import io.idemworker.testing.OrderFlows;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import picocli.CommandLine;

/**
 * {@code explain <messageId>} without {@code --order} finds the order of every message type of the
 * contract (DESIGN.md's table), on an account whose container has four partition key ranges, so the
 * look-ups that need a cross-partition query really fan out. Each id is the MessageId the producer
 * sends.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@AzureEmulators(cosmos = false)
class ExplainEveryMessageTypeTest {
  static Emulators azure; // injected by @AzureEmulators
  private static final String ORDER = "ord-every-type";
  private static final String CREDIT = "cr-every-type";
  private static final String PAYMENT = "pr-every-type";

  private CosmosEmulator cosmos;
  private CosmosClient client;
  private PaymentProviderEmulator provider;
  private String queue;

  @BeforeAll
  void processOneMessageOfEachType() {
    cosmos = CosmosEmulator.builder().partitionKeyRanges(4).start();
    client =
        new CosmosClientBuilder()
            .endpoint(cosmos.endpoint())
            .key(cosmos.key())
            .gatewayMode()
            .buildClient();
    CosmosContainer orders =
        CosmosContainers.ensureExists(client, "it", "orders", OrderDocumentIds.PARTITION_KEY_PATH);
    provider = PaymentProviderEmulator.builder().port(0).start();
    queue = azure.newQueue("q");
    IdempotentConsumer consumer =
        TestFlow.of(
                OrderFlows.withPayments(OrderFlows.http(provider), Duration.ofSeconds(30)),
                new CosmosEffectStore(
                    orders,
                    (operation, status, charge, latency) -> {},
                    OrderDocumentIds.PARTITION_KEY_PATH))
            .build();
    // Other orders in other partitions, so a look-up has to pick the right one.
    for (int i = 0; i < 12; i++) {
      assertThat(consumer.handle(Orders.order("ord-other-" + i)))
          .isInstanceOf(Outcome.Processed.class);
    }
    assertThat(consumer.handle(Orders.order(ORDER))).isInstanceOf(Outcome.Processed.class);
    assertThat(consumer.handle(Orders.status(ORDER, "Shipped", 2)))
        .isInstanceOf(Outcome.Processed.class);
    assertThat(consumer.handle(Orders.credit(ORDER, CREDIT, "1.5", "EUR")))
        .isInstanceOf(Outcome.Processed.class);
    assertThat(consumer.handle(Orders.payment(ORDER, PAYMENT, "12.5", "EUR")))
        .isInstanceOf(Outcome.Processed.class);
  }

  @AfterAll
  void stop() {
    client.close();
    cosmos.close();
    provider.close();
  }

  @Test
  void theContainerHasFourRanges() {
    assertThat(client.getDatabase("it").getContainer("orders").getFeedRanges()).hasSize(4);
  }

  @Test
  void orderPlaced_messageIdIsTheOrderId() {
    JsonNode json = explainJson(ORDER);

    assertThat(json.get("orderId").asText()).isEqualTo(ORDER);
    assertThat(json.get("resolvedBy").asText()).isEqualTo("id taken as the orderId");
  }

  @Test
  void orderStatusChanged_isFoundByItsIdPrefix() {
    JsonNode json = explainJson(ORDER + ":status:2");

    assertThat(json.get("orderId").asText()).isEqualTo(ORDER);
    assertThat(json.get("resolvedBy").asText()).isEqualTo("status-change id");
  }

  @Test
  void orderCredited_isFoundByACrossPartitionQuery_andPrintsItsCost() {
    String out = explainText(CREDIT);

    assertThat(out)
        .containsPattern(
            CREDIT + ": order " + ORDER + " \\(cross-partition query by key, \\d+\\.\\d\\d RU\\)");
  }

  @Test
  void paymentCaptureRequested_isFoundByACrossPartitionQuery_andPrintsItsCost() {
    String out = explainText(PAYMENT);
    JsonNode json = explainJson(PAYMENT);

    assertThat(out)
        .containsPattern(
            PAYMENT + ": order " + ORDER + " \\(cross-partition query by key, \\d+\\.\\d\\d RU\\)");
    assertThat(json.get("orderId").asText()).isEqualTo(ORDER);
    assertThat(json.get("payments")).hasSize(1);
  }

  private String explainText(String id) {
    return explain(id);
  }

  private JsonNode explainJson(String id) {
    try {
      return new ObjectMapper().readTree(explain(id, "--json"));
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  private String explain(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    Map<String, String> env =
        Map.of(
            "SERVICEBUS_CONNECTION_STRING",
            azure.serviceBus().connectionString(),
            "SERVICEBUS_QUEUE_NAME",
            queue,
            "COSMOS_ENDPOINT",
            cosmos.endpoint(),
            "COSMOS_KEY",
            cosmos.key(),
            "COSMOS_DATABASE",
            "it",
            "COSMOS_CONTAINER",
            "orders");
    int exit =
        new CommandLine(
                new ExplainCommand(
                    env,
                    new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8),
                    Clock.systemUTC(),
                    Wiring::workerTarget))
            .execute(args);
    assertThat(exit).as(err.toString(StandardCharsets.UTF_8)).isZero();
    return out.toString(StandardCharsets.UTF_8);
  }
}
