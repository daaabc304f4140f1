package io.idemworker.proof.audit;

import com.azure.cosmos.CosmosContainer;
import com.fasterxml.jackson.databind.JsonNode;
import io.idemworker.consumers.CustomerDocumentIds;
import io.idemworker.core.IdempotencyKey;
import io.idemworker.orders.OrderDocumentIds;
import io.idemworker.proof.producer.DemoPayments;
import io.idemworker.relay.RelayProgress;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BiFunction;

/**
 * {@link StateAudit}'s checks of what left the orders container: every outbox event on the topic
 * and behind the relay's checkpoint, and the topic consumers' projections in the {@code customers}
 * container computed from what the producer sent. Counts lost and doubled effects like the rest of
 * the audit.
 *
 * <p>Not thread-safe; used once, by {@link StateAudit#run}.
 */
final class ProjectionAudit {
  private final Map<String, String> orders;
  private final DemoPayments payments;
  private final BiFunction<String, String, Optional<JsonNode>> doc;
  private final Map<String, Integer> eventsReceived;
  private final RelayProgress relayProgress;
  private final CosmosContainer customers;
  long lost;
  long doubled;

  /**
   * @param orders every order that must exist, id → body as sent
   * @param payments the payment requests sent
   * @param doc a document of the orders container by partition and id, as the audit read it
   * @param eventsReceived event id → copies the topic's audit subscription received
   * @param relayProgress where the relay's checkpoint stands
   * @param customers the consumers' container
   */
  ProjectionAudit(
      Map<String, String> orders,
      DemoPayments payments,
      BiFunction<String, String, Optional<JsonNode>> doc,
      Map<String, Integer> eventsReceived,
      RelayProgress relayProgress,
      CosmosContainer customers) {
    this.orders = orders;
    this.payments = payments;
    this.doc = doc;
    this.eventsReceived = eventsReceived;
    this.relayProgress = relayProgress;
    this.customers = customers;
  }

  private Optional<JsonNode> doc(String orderId, String id) {
    return doc.apply(orderId, id);
  }

  Check relay() {
    List<String> problems = new ArrayList<>();
    Set<String> expected = new LinkedHashSet<>();
    Map<String, String> orderOf = new HashMap<>();
    orders
        .keySet()
        .forEach(
            id -> {
              String event = OrderDocumentIds.outboxEvent(new IdempotencyKey(id));
              expected.add(event);
              orderOf.put(event, id);
            });
    payments.requests.forEach(
        r -> {
          expected.add(r.eventId());
          orderOf.put(r.eventId(), r.orderId());
        });
    long copies = 0;
    for (String event : expected) {
      int received = eventsReceived.getOrDefault(event, 0);
      copies += received;
      Optional<JsonNode> outbox = doc(orderOf.get(event), event);
      if (outbox.isEmpty()) {
        continue; // counted by the orders and payments checks
      }
      if (received == 0) {
        lost++;
        problems.add(event + " never reached the topic");
      }
      RelayProgress.State state = relayProgress.of(outbox.get());
      if (state != RelayProgress.State.PUBLISHED) {
        lost++;
        problems.add(event + " is " + state + " by the relay's checkpoint");
      }
    }
    eventsReceived.keySet().stream()
        .filter(id -> !expected.contains(id))
        .forEach(
            id -> {
              doubled++;
              problems.add(id + " published but not an expected event");
            });
    return StateAudit.check(
        "every outbox event ("
            + expected.size()
            + ") reached the topic's audit subscription at least once ("
            + copies
            + " copies after duplicate detection) and is behind the relay's checkpoint",
        problems);
  }

  Check consumers() {
    Map<String, Long> points = new TreeMap<>();
    Map<String, long[]> stats = new TreeMap<>();
    orders.forEach(
        (orderId, json) -> {
          JsonNode body = StateAudit.parse(json);
          String customer = body.path("customerId").asText();
          BigDecimal total = StateAudit.total(body);
          points.merge(customer, total.setScale(0, RoundingMode.FLOOR).longValueExact(), Long::sum);
          long[] s =
              stats.computeIfAbsent(
                  customer + " " + body.path("currency").asText(), k -> new long[2]);
          s[0]++;
          s[1] += total.movePointRight(4).setScale(0, RoundingMode.UNNECESSARY).longValueExact();
        });
    List<String> problems = new ArrayList<>();
    points.forEach(
        (customer, expected) -> {
          long got =
              StateAudit.read(customers, customer, CustomerDocumentIds.customer(customer))
                  .map(d -> d.path(CustomerDocumentIds.LOYALTY_POINTS).asLong())
                  .orElse(0L);
          if (got != expected) {
            if (got > expected) {
              doubled++;
            } else {
              lost++;
            }
            problems.add(customer + " has " + got + " points, expected " + expected);
          }
        });
    stats.forEach(
        (key, expected) -> {
          String[] k = key.split(" ");
          Optional<JsonNode> d =
              StateAudit.read(customers, k[0], CustomerDocumentIds.stats(k[0], k[1]));
          long count = d.map(x -> x.path(CustomerDocumentIds.ORDER_COUNT).asLong()).orElse(0L);
          long spent = d.map(x -> x.path(CustomerDocumentIds.SPENT_UNITS).asLong()).orElse(0L);
          boolean over = count > expected[0] || spent > expected[1];
          if (over) {
            doubled += Math.max(1, count - expected[0]);
          } else if (count < expected[0] || spent < expected[1]) {
            lost += Math.max(1, expected[0] - count);
          }
          if (over || count < expected[0] || spent < expected[1]) {
            problems.add(
                key
                    + ": "
                    + count
                    + "/"
                    + spent
                    + " orders/units, expected "
                    + expected[0]
                    + "/"
                    + expected[1]);
          }
        });
    return StateAudit.check(
        "loyalty points per customer ("
            + points.size()
            + ") and orders and spend per customer and currency ("
            + stats.size()
            + ") exact, computed from what the producer sent",
        problems);
  }
}
