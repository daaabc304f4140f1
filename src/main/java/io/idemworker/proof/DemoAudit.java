package io.idemworker.proof;

import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosException;
import com.azure.cosmos.models.PartitionKey;
import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusReceiverClient;
import com.azure.messaging.servicebus.models.SubQueue;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.app.TelemetryCounts;
import io.idemworker.core.IdempotencyKey;
import io.idemworker.core.Outcome;
import io.idemworker.emulator.payments.PaymentProviderEmulator;
import io.idemworker.orders.OrderDocumentIds;
import io.idemworker.orders.OrderReasons;
import io.idemworker.proof.DemoTally.Delivery;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Reads the results back from Cosmos DB and the dead-letter queue and checks them against what the
 * producer sent: the demo's claims are verified, not assumed.
 */
final class DemoAudit {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One audited claim. */
  record Check(String claim, boolean pass, String detail) {}

  private final DemoScenario scenario;
  private final DemoTally tally;
  private final TelemetryCounts metrics;
  private final CosmosContainer container;
  private final String connectionString;
  private final String queue;
  private final PaymentProviderEmulator provider;
  final List<ServiceBusReceivedMessage> deadLetters = new ArrayList<>();

  DemoAudit(
      DemoScenario scenario,
      DemoTally tally,
      TelemetryCounts metrics,
      CosmosContainer container,
      String connectionString,
      String queue,
      PaymentProviderEmulator provider) {
    this.scenario = scenario;
    this.tally = tally;
    this.metrics = metrics;
    this.container = container;
    this.connectionString = connectionString;
    this.queue = queue;
    this.provider = provider;
  }

  List<Check> run(boolean settledInTime) throws InterruptedException {
    List<Delivery> deliveries = tally.deliveries();
    readDeadLetterQueue();
    List<Check> checks = new ArrayList<>();
    checks.add(
        new Check(
            "every phase settled within the timeout",
            settledInTime,
            settledInTime ? "" : "the workers had not finished when the timeout passed"));
    checks.add(onePerOrder(deliveries));
    checks.add(noneLost());
    checks.add(conflictsKeptOriginals());
    checks.add(poisonDeadLettered(deliveries));
    checks.addAll(
        new DemoLifecycleAudit(
                scenario.lifecycle,
                deliveries,
                deadLetters,
                (partitionKey, id) -> read(partitionKey, id),
                DemoCommand.MARKER_TTL)
            .run());
    checks.addAll(
        new DemoPaymentsAudit(
                scenario.payments,
                deliveries,
                deadLetters,
                (partitionKey, id) -> read(partitionKey, id),
                DemoPaymentsAudit.ledger(provider.baseUrl(), provider.apiKey()),
                provider.stats().replays())
            .run());
    checks.add(balance(deliveries));
    checks.add(metricsBalance(deliveries));
    return checks;
  }

  private Check onePerOrder(List<Delivery> deliveries) {
    Map<String, Long> created =
        deliveries.stream()
            .filter(d -> DemoCommand.isType(d, DemoCommand.ORDER_PLACED) && DemoCommand.applied(d))
            .collect(
                Collectors.groupingBy(
                    d -> d.outcome().knownEntityId().orElse("?"),
                    TreeMap::new,
                    Collectors.counting()));
    List<String> problems = new ArrayList<>();
    created.forEach(
        (orderId, count) -> {
          if (count != 1) {
            problems.add(orderId + " created " + count + " times");
          }
          if (!scenario.orders.containsKey(orderId)) {
            problems.add(orderId + " should not have been created");
          }
        });
    return new Check(
        "one order per orderId: "
            + created.size()
            + " orders, each created by exactly one delivery",
        problems.isEmpty() && created.size() == scenario.orders.size(),
        problems.isEmpty()
            ? (created.size() == scenario.orders.size()
                ? ""
                : created.size() + " of " + scenario.orders.size() + " created")
            : String.join("; ", problems.subList(0, Math.min(5, problems.size()))));
  }

  private Check noneLost() {
    List<String> problems = new ArrayList<>();
    int documents = 0;
    for (Map.Entry<String, String> order : scenario.orders.entrySet()) {
      String orderId = order.getKey();
      Optional<ObjectNode> stored = read(orderId, orderId);
      if (stored.isEmpty()) {
        problems.add(orderId + " missing");
        continue;
      }
      documents++;
      JsonNode sent = parse(order.getValue());
      if (!stored.get().path("customerId").asText().equals(sent.path("customerId").asText())) {
        problems.add(orderId + " has the wrong customerId");
      }
      int lines = sent.path("lines").size();
      for (int n = 1; n <= lines; n++) {
        if (read(orderId, OrderDocumentIds.line(orderId, n)).isEmpty()) {
          problems.add(orderId + " line " + n + " missing");
        } else {
          documents++;
        }
      }
      if (read(orderId, OrderDocumentIds.outboxEvent(new IdempotencyKey(orderId))).isEmpty()) {
        problems.add(orderId + " OrderAccepted outbox event missing");
      } else {
        documents++;
      }
    }
    for (DemoScenario.Poison poison : scenario.poisons) {
      if (read(poison.orderId(), poison.orderId()).isPresent()) {
        problems.add("poison " + poison.orderId() + " was written");
      }
    }
    return new Check(
        "none lost: every order, its lines and its OrderAccepted event read back from Cosmos DB ("
            + documents
            + " documents); no poison written",
        problems.isEmpty(),
        String.join("; ", problems.subList(0, Math.min(5, problems.size()))));
  }

  private Check conflictsKeptOriginals() {
    List<String> problems = new ArrayList<>();
    Map<String, String> reasonById = new HashMap<>();
    deadLetters.forEach(m -> reasonById.put(m.getMessageId(), m.getDeadLetterReason()));
    for (String orderId : scenario.conflicts) {
      if (read(orderId, orderId)
          .map(d -> d.path("customerId").asText())
          .orElse("")
          .equals("cust-other")) {
        problems.add(orderId + " was overwritten");
      }
      if (!"IdempotencyConflict".equals(reasonById.get(orderId))) {
        problems.add(orderId + " not dead-lettered as IdempotencyConflict");
      }
    }
    return new Check(
        "every reused key ("
            + scenario.conflicts.size()
            + ") dead-lettered as IdempotencyConflict, original untouched",
        problems.isEmpty(),
        String.join("; ", problems));
  }

  private Check poisonDeadLettered(List<Delivery> deliveries) {
    Map<String, Long> expected = new TreeMap<>();
    scenario.poisons.forEach(p -> expected.merge(p.expected().code(), 1L, Long::sum));
    expected.merge(
        "IdempotencyConflict",
        (long) scenario.conflicts.size() + scenario.payments.reusedKeys.size(),
        Long::sum);
    expected.merge(
        OrderReasons.CURRENCY_MISMATCH.code(),
        (long) scenario.lifecycle.wrongCurrency.size(),
        Long::sum);
    expected.merge(OrderReasons.ORDER_NOT_FOUND.code(), 1L, Long::sum);
    Map<String, Long> actual =
        deadLetters.stream()
            .collect(
                Collectors.groupingBy(
                    m -> String.valueOf(m.getDeadLetterReason()),
                    TreeMap::new,
                    Collectors.counting()));
    long poisonRedelivered =
        deliveries.stream()
            .filter(
                d ->
                    d.outcome() instanceof Outcome.DeadLettered dl
                        && !dl.reason().equals(OrderReasons.ORDER_NOT_FOUND))
            .filter(d -> d.message().deliveryCount() > 0)
            .count();
    boolean pass = expected.equals(actual) && poisonRedelivered == 0;
    return new Check(
        "every poison message ("
            + scenario.poisons.size()
            + ") dead-lettered at first delivery with its reason; the dead-letter queue holds exactly the expected messages",
        pass,
        pass
            ? ""
            : "expected "
                + expected
                + ", dead-letter queue holds "
                + actual
                + (poisonRedelivered > 0
                    ? ", " + poisonRedelivered + " dead-lettered only after redelivery"
                    : ""));
  }

  private Check balance(List<Delivery> deliveries) {
    long processed =
        deliveries.stream().filter(d -> d.outcome() instanceof Outcome.Processed).count();
    long duplicates = DemoCommand.duplicates(deliveries);
    long deadLettered = DemoCommand.deadLettered(deliveries);
    long stale = DemoCommand.stale(deliveries);
    long retried = deliveries.stream().filter(d -> d.outcome() instanceof Outcome.Retry).count();
    long sum = processed + duplicates + stale + deadLettered + retried;
    return new Check(
        "every delivery accounted for: "
            + deliveries.size()
            + " delivered = "
            + processed
            + " applied + "
            + duplicates
            + " duplicates + "
            + stale
            + " stale + "
            + deadLettered
            + " dead-lettered + "
            + retried
            + " retried",
        sum == deliveries.size(),
        "");
  }

  private Check metricsBalance(List<Delivery> deliveries) {
    long finished =
        metrics.processed()
            + metrics.duplicates()
            + metrics.stale()
            + metrics.deadLetteredTotal()
            + metrics.retriedTotal();
    boolean pass =
        metrics.received() == deliveries.size()
            && finished == metrics.received()
            && metrics.processed()
                == deliveries.stream().filter(d -> d.outcome() instanceof Outcome.Processed).count()
            && metrics.duplicates() == DemoCommand.duplicates(deliveries)
            && metrics.stale() == DemoCommand.stale(deliveries)
            && metrics.deadLetteredTotal() == DemoCommand.deadLettered(deliveries);
    return new Check(
        "OpenTelemetry counters balance: received "
            + metrics.received()
            + " = sum of outcomes "
            + finished
            + ", matching the deliveries the demo saw",
        pass,
        pass ? "" : "metrics " + metrics + " vs " + deliveries.size() + " deliveries");
  }

  private void readDeadLetterQueue() {
    try (ServiceBusReceiverClient receiver =
        new ServiceBusClientBuilder()
            .connectionString(connectionString)
            .receiver()
            .queueName(queue)
            .subQueue(SubQueue.DEAD_LETTER_QUEUE)
            .buildClient()) {
      int emptyRounds = 0;
      while (emptyRounds < 2) {
        int got = 0;
        for (ServiceBusReceivedMessage message :
            receiver.receiveMessages(100, Duration.ofMillis(500))) {
          deadLetters.add(message);
          receiver.complete(message);
          got++;
        }
        emptyRounds = got == 0 ? emptyRounds + 1 : 0;
      }
    }
  }

  /** Reads one document back; empty if it does not exist. */
  Optional<ObjectNode> read(String orderId, String id) {
    try {
      return Optional.of(
          container.readItem(id, new PartitionKey(orderId), ObjectNode.class).getItem());
    } catch (CosmosException e) {
      if (e.getStatusCode() == 404) {
        return Optional.empty();
      }
      throw e;
    }
  }

  private static JsonNode parse(String json) {
    try {
      return JSON.readTree(json);
    } catch (IOException e) {
      throw new IllegalStateException("the demo generated invalid JSON", e);
    }
  }
}
