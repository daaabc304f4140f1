package io.idemworker.proof.audit;

import com.fasterxml.jackson.databind.JsonNode;
import io.idemworker.core.IdempotencyKey;
import io.idemworker.orders.OrderDocumentIds;
import io.idemworker.proof.producer.DemoLifecycle;
import io.idemworker.proof.producer.DemoScenario;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@link StateAudit}'s checks of the orders container's order documents: every order once with its
 * exact body (and nothing under an id or key that must stay empty), every credit summed once with
 * its inbox marker, every status at its highest version. Counts lost and doubled effects like the
 * rest of the audit.
 *
 * <p>Not thread-safe; used once, by {@link StateAudit}.
 */
final class OrdersAudit {
  private final DemoScenario scenario;
  private final StateAudit.Intake intake;
  private final Map<String, String> allOrders;
  private final OrderPartitions docs;
  long lost;
  long doubled;

  /**
   * @param scenario what the producer sent
   * @param intake the orders that came over the HTTP intake, and the ids it refused
   * @param allOrders every order that must exist, id → body as sent
   * @param docs the partitions of the orders, the poison's and the refused ids, as the audit read
   *     them
   */
  OrdersAudit(
      DemoScenario scenario,
      StateAudit.Intake intake,
      Map<String, String> allOrders,
      OrderPartitions docs) {
    this.scenario = scenario;
    this.intake = intake;
    this.allOrders = allOrders;
    this.docs = docs;
  }

  private Optional<JsonNode> doc(String orderId, String id) {
    return docs.doc(orderId, id);
  }

  /**
   * Every order once with its customer, exact total, lines and {@code OrderAccepted} outbox event;
   * nothing in the partitions of a refused HTTP key, a poison or the order never placed.
   */
  Check orders() {
    List<String> problems = new ArrayList<>();
    for (Map.Entry<String, String> sent : allOrders.entrySet()) {
      String orderId = sent.getKey();
      JsonNode body = StateAudit.parse(sent.getValue());
      Optional<JsonNode> order = doc(orderId, orderId);
      if (order.isEmpty()) {
        lost++;
        problems.add(orderId + " missing");
        continue;
      }
      if (!order.get().path("customerId").asText().equals(body.path("customerId").asText())) {
        doubled++;
        problems.add(orderId + " overwritten (customerId " + order.get().path("customerId") + ")");
      }
      if (StateAudit.decimal(order.get().path("total")).compareTo(StateAudit.total(body)) != 0) {
        doubled++;
        problems.add(
            orderId + " total " + order.get().path("total") + ", sent " + StateAudit.total(body));
      }
      // The lines live in the order document only: each one sent is there once, as sent.
      JsonNode sentLines = body.path("lines");
      JsonNode storedLines = order.get().path("lines");
      if (storedLines.size() < sentLines.size()) {
        lost++;
        problems.add(
            orderId + " holds " + storedLines.size() + " of " + sentLines.size() + " lines");
      } else if (storedLines.size() > sentLines.size()) {
        doubled++;
        problems.add(
            orderId + " holds " + storedLines.size() + " lines, " + sentLines.size() + " sent");
      } else {
        for (int n = 0; n < sentLines.size(); n++) {
          if (!sameLine(sentLines.get(n), storedLines.get(n))) {
            doubled++;
            problems.add(orderId + " line " + (n + 1) + " differs from the one sent");
          }
        }
      }
      if (doc(orderId, OrderDocumentIds.outboxEvent(new IdempotencyKey(orderId))).isEmpty()) {
        lost++;
        problems.add(orderId + " has no OrderAccepted outbox event");
      }
    }
    for (String refused : intake.refused()) {
      if (!docs.isEmpty(refused)) {
        doubled++;
        problems.add(refused + " (its key reused with another body, refused) was written");
      }
    }
    for (DemoScenario.Poison poison : scenario.poisons) {
      if (!docs.isEmpty(poison.orderId())) {
        doubled++;
        problems.add("poison " + poison.orderId() + " was written");
      }
    }
    if (!docs.isEmpty(scenario.lifecycle.neverPlaced)) {
      doubled++;
      problems.add(scenario.lifecycle.neverPlaced + " (never placed) was written");
    }
    return StateAudit.check(
        "every order ("
            + allOrders.size()
            + (intake.orders().isEmpty()
                ? ""
                : ", " + intake.orders().size() + " of them over HTTP")
            + ") read back once with its customer, exact total, lines and OrderAccepted outbox event; none overwritten by a reused id or key; no poison written",
        problems);
  }

  /** Each order's credited total and count exactly those of its distinct credits, with markers. */
  Check credits() {
    List<String> problems = new ArrayList<>();
    Map<String, List<DemoLifecycle.Credit>> byOrder = scenario.lifecycle.creditsByOrder();
    for (Map.Entry<String, List<DemoLifecycle.Credit>> entry : byOrder.entrySet()) {
      String orderId = entry.getKey();
      Optional<JsonNode> order = doc(orderId, orderId);
      if (order.isEmpty()) {
        continue; // counted as lost by the orders check
      }
      long expectedUnits = entry.getValue().stream().mapToLong(DemoLifecycle.Credit::units).sum();
      long expectedCount = entry.getValue().size();
      long units = order.get().path("creditedUnits").asLong(0);
      long count = order.get().path("creditCount").asLong(0);
      boolean over = count > expectedCount || units > expectedUnits;
      boolean under = !over && (count < expectedCount || units < expectedUnits);
      if (over) {
        doubled += Math.max(1, count - expectedCount);
      } else if (under) {
        lost += Math.max(1, expectedCount - count);
      }
      if (over || under) {
        problems.add(
            orderId
                + " credited "
                + count
                + "x/"
                + units
                + " units, sent "
                + expectedCount
                + "x/"
                + expectedUnits);
      }
      for (DemoLifecycle.Credit c : entry.getValue()) {
        Optional<JsonNode> marker = doc(orderId, c.markerId());
        if (marker.isEmpty()) {
          lost++;
          problems.add(c.creditId() + " has no inbox marker");
        } else if (!describes(marker.get(), c)) {
          problems.add(
              c.markerId() + " is not its credit's marker with ttl " + StateAudit.MARKER_TTL);
        }
      }
    }
    for (DemoLifecycle.Credit c : scenario.lifecycle.wrongCurrency) {
      if (doc(c.orderId(), c.markerId()).isPresent()) {
        doubled++;
        problems.add(c.creditId() + " (wrong currency) has a marker");
      }
    }
    return StateAudit.check(
        "credited total per order = the sum of its distinct credits ("
            + scenario.lifecycle.credits.size()
            + " credits on "
            + byOrder.size()
            + " orders), exactly; each credit's inbox marker names it and carries the TTL ("
            + StateAudit.MARKER_TTL.toDays()
            + " days); no wrong-currency credit applied",
        problems);
  }

  /** Whether a marker is the inbox marker of that credit, with the configured TTL. */
  private static boolean describes(JsonNode marker, DemoLifecycle.Credit credit) {
    return marker.path("ttl").isIntegralNumber()
        && marker.path("ttl").asLong() == StateAudit.MARKER_TTL.getSeconds()
        && "inbox".equals(marker.path("type").asText())
        && credit.creditId().equals(marker.path("creditId").asText())
        && marker.path("amount").isNumber()
        && marker.path("amount").decimalValue().compareTo(credit.amount()) == 0;
  }

  /** Each status order at its highest version ({@code Shipped}, version 3). */
  Check statuses() {
    List<String> problems = new ArrayList<>();
    for (String orderId : scenario.lifecycle.statusOrders) {
      Optional<JsonNode> order = doc(orderId, orderId);
      if (order.isEmpty()) {
        continue;
      }
      String status = order.get().path("status").asText("");
      long version = order.get().path("statusVersion").asLong(-1);
      if (!"Shipped".equals(status) || version != 3) {
        lost++;
        problems.add(orderId + " status " + status + " version " + version);
      }
    }
    return StateAudit.check(
        "status per order = that of its highest version ("
            + scenario.lifecycle.statusOrders.size()
            + " orders Shipped at version 3, version 2 sent after it)",
        problems);
  }

  private static boolean sameLine(JsonNode sent, JsonNode stored) {
    return sent.path("sku").asText().equals(stored.path("sku").asText())
        && sent.path("quantity").asLong() == stored.path("quantity").asLong()
        && StateAudit.decimal(sent.path("unitPrice"))
                .compareTo(StateAudit.decimal(stored.path("unitPrice")))
            == 0;
  }
}
