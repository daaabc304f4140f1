package io.idemworker.proof.demo;

import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.models.CosmosQueryRequestOptions;
import com.azure.cosmos.models.PartitionKey;
import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusReceiverClient;
import com.fasterxml.jackson.databind.JsonNode;
import io.idemworker.proof.audit.Check;
import io.idemworker.proof.audit.StateAudit;
import io.idemworker.proof.emulators.EventTopic;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the demo observed of its relay phase: the copies of each outbox event the topic's audit
 * subscription received (the re-sends inside the window dropped, those past it received again) and
 * the consumers' outcomes. What the stores hold (events behind the relay's checkpoint, the
 * consumers' projections) is {@link StateAudit}'s to check.
 */
final class DemoRelayAudit {
  private final CosmosContainer orders;
  private final Collection<String> orderIds;

  /** What the audit subscription held, message id → copies; filled by {@link #run}. */
  private Map<String, Integer> received = Map.of();

  DemoRelayAudit(CosmosContainer orders, Collection<String> orderIds) {
    this.orders = orders;
    this.orderIds = orderIds;
  }

  /**
   * Every {@code outbox} document, partition by partition (the emulator refuses cross-partition).
   */
  List<JsonNode> outbox() {
    return query("SELECT * FROM c WHERE c.type = 'outbox'");
  }

  private List<JsonNode> query(String sql) {
    List<JsonNode> found = new ArrayList<>();
    for (String orderId : orderIds) {
      orders
          .queryItems(
              sql,
              new CosmosQueryRequestOptions().setPartitionKey(new PartitionKey(orderId)),
              JsonNode.class)
          .forEach(found::add);
    }
    return found;
  }

  List<Check> run(DemoRelayPhase.Result result, String connectionString) {
    List<JsonNode> outbox = outbox();
    Map<String, Integer> received = drainAuditSubscription(connectionString);
    this.received = Map.copyOf(received);
    List<Check> checks = new ArrayList<>();
    checks.add(exactlyOnce(outbox, received, result));
    checks.add(republishedPastWindow(outbox, received, result));
    return checks;
  }

  /**
   * What the audit subscription held when {@link #run} drained it.
   *
   * @return message id → copies; empty before {@link #run}
   */
  Map<String, Integer> received() {
    return received;
  }

  private static Check exactlyOnce(
      List<JsonNode> outbox, Map<String, Integer> received, DemoRelayPhase.Result result) {
    Map<String, Integer> byType = new TreeMap<>();
    List<String> wrong = new ArrayList<>();
    for (JsonNode event : outbox) {
      String id = event.path("id").asText();
      byType.merge(event.path("eventType").asText(), 1, Integer::sum);
      int expected = result.resentPastWindow().contains(id) ? 2 : 1;
      int got = received.getOrDefault(id, 0);
      if (got != expected) {
        wrong.add(id + " received " + got + "x (expected " + expected + ")");
      }
    }
    received.keySet().stream()
        .filter(id -> outbox.stream().noneMatch(e -> e.path("id").asText().equals(id)))
        .forEach(id -> wrong.add(id + " received but not in the outbox"));
    boolean pass = wrong.isEmpty() && !outbox.isEmpty();
    return new Check(
        "relay: every outbox event ("
            + outbox.size()
            + ": "
            + byType.toString().replaceAll("[{}]", "")
            + ") reached the audit subscription exactly once after duplicate detection ("
            + result.resentInsideWindow().size()
            + " re-sent inside the window dropped)",
        pass,
        pass ? "" : first(wrong));
  }

  private static Check republishedPastWindow(
      List<JsonNode> outbox, Map<String, Integer> received, DemoRelayPhase.Result result) {
    long accepted =
        outbox.stream()
            .filter(e -> DemoRelayPhase.ORDER_ACCEPTED.equals(e.path("eventType").asText()))
            .count();
    List<String> wrong = new ArrayList<>();
    result
        .resentPastWindow()
        .forEach(
            id -> {
              if (received.getOrDefault(id, 0) != 2) {
                wrong.add(id + " reached the audit subscription " + received.get(id) + "x");
              }
            });
    // Each event applied by exactly one delivery, and every re-publish caught, whatever else the
    // interleaving added: a copy redelivered after a lost settlement is one more duplicate, a
    // transient fault one more retry; those are printed, not checked.
    List<String> figures = new ArrayList<>();
    result
        .consumers()
        .forEach(
            (role, c) -> {
              if (c.processed.get() != accepted
                  || c.duplicates.get() < result.resentPastWindow().size()) {
                wrong.add(role.roleName() + ": " + c + ", expected " + accepted + " processed");
              }
              figures.add(role.roleName() + " " + c);
            });
    boolean pass = wrong.isEmpty() && !result.resentPastWindow().isEmpty();
    return new Check(
        "relay re-publishes past the topic's window ("
            + result.resentPastWindow().size()
            + ") reached the subscriptions again; loyalty and customer-stats each applied every OrderAccepted once ("
            + accepted
            + ") and took each re-publish as a duplicate ("
            + String.join("; ", figures)
            + ")",
        pass,
        pass ? "" : first(wrong));
  }

  /** Receives everything the audit subscription holds: message id → copies. */
  private static Map<String, Integer> drainAuditSubscription(String connectionString) {
    Map<String, Integer> received = new HashMap<>();
    try (ServiceBusReceiverClient receiver =
        new ServiceBusClientBuilder()
            .connectionString(connectionString)
            .receiver()
            .topicName(EventTopic.NAME)
            .subscriptionName(EventTopic.AUDIT_SUBSCRIPTION)
            .buildClient()) {
      int emptyRounds = 0;
      while (emptyRounds < 2) {
        int got = 0;
        for (ServiceBusReceivedMessage message :
            receiver.receiveMessages(100, Duration.ofMillis(500))) {
          received.merge(message.getMessageId(), 1, Integer::sum);
          receiver.complete(message);
          got++;
        }
        emptyRounds = got == 0 ? emptyRounds + 1 : 0;
      }
    }
    return received;
  }

  private static String first(List<String> wrong) {
    if (wrong.isEmpty()) {
      return "nothing to compare";
    }
    return wrong.size() + " wrong, e.g. " + wrong.get(0);
  }
}
