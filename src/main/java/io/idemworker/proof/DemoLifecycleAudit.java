package io.idemworker.proof;

import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.core.Outcome;
import io.idemworker.orders.OrderMessageTypes;
import io.idemworker.orders.OrderReasons;
import io.idemworker.proof.DemoAudit.Check;
import io.idemworker.proof.DemoTally.Delivery;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.stream.Collectors;

/**
 * The audit of the demo's lifecycle phase: reads the orders and the inbox markers back from Cosmos
 * DB and checks them against the credits and status changes the producer sent. Not thread-safe;
 * used once, after the workers stopped.
 */
final class DemoLifecycleAudit {
  private final DemoLifecycle lifecycle;
  private final List<Delivery> deliveries;
  private final Map<String, String> deadLetterReasons = new HashMap<>();
  private final BiFunction<String, String, Optional<ObjectNode>> read;
  private final Duration markerTtl;
  private final Map<String, Optional<ObjectNode>> orders = new HashMap<>();

  /**
   * @param lifecycle what the producer sent
   * @param deliveries every delivery the workers finished
   * @param deadLetters the dead-letter queue as read back
   * @param read reads a document by partition key and id; empty if it does not exist
   * @param markerTtl the marker TTL the worker was configured with
   */
  DemoLifecycleAudit(
      DemoLifecycle lifecycle,
      List<Delivery> deliveries,
      List<ServiceBusReceivedMessage> deadLetters,
      BiFunction<String, String, Optional<ObjectNode>> read,
      Duration markerTtl) {
    this.lifecycle = lifecycle;
    this.deliveries = deliveries;
    deadLetters.forEach(m -> deadLetterReasons.put(m.getMessageId(), m.getDeadLetterReason()));
    this.read = read;
    this.markerTtl = markerTtl;
  }

  List<Check> run() {
    return List.of(
        creditedTotals(),
        statusOfHighestVersion(),
        markersCarryTtl(),
        wrongCurrency(),
        neverPlaced());
  }

  private Check creditedTotals() {
    List<String> problems = new ArrayList<>();
    Map<String, Long> appliedBy =
        deliveries.stream()
            .filter(d -> DemoCommand.isType(d, OrderMessageTypes.ORDER_CREDITED))
            .filter(DemoCommand::applied)
            .collect(
                Collectors.groupingBy(
                    d -> d.message().messageId().orElse("?"), Collectors.counting()));
    for (DemoLifecycle.Credit credit : lifecycle.credits) {
      long times = appliedBy.getOrDefault(credit.creditId(), 0L);
      if (times != 1) {
        problems.add(credit.creditId() + " applied by " + times + " deliveries");
      }
    }
    int drifting = 0;
    Map<String, List<DemoLifecycle.Credit>> byOrder = lifecycle.creditsByOrder();
    for (Map.Entry<String, List<DemoLifecycle.Credit>> order : byOrder.entrySet()) {
      String orderId = order.getKey();
      List<DemoLifecycle.Credit> credits = order.getValue();
      Optional<ObjectNode> stored = order(orderId);
      if (stored.isEmpty()) {
        problems.add(orderId + " missing");
        continue;
      }
      long expectedUnits = credits.stream().mapToLong(DemoLifecycle.Credit::units).sum();
      JsonNode units = stored.get().path("creditedUnits");
      JsonNode count = stored.get().path("creditCount");
      long actualUnits = units.isMissingNode() ? 0 : units.isIntegralNumber() ? units.asLong() : -1;
      long actualCount = count.isMissingNode() ? 0 : count.isIntegralNumber() ? count.asLong() : -1;
      if (actualUnits != expectedUnits) {
        problems.add(orderId + " creditedUnits " + units + ", expected " + expectedUnits);
      }
      if (actualCount != credits.size()) {
        problems.add(orderId + " creditCount " + count + ", expected " + credits.size());
      }
      double asDoubles = 0;
      BigDecimal exact = BigDecimal.ZERO;
      for (DemoLifecycle.Credit credit : credits) {
        asDoubles += credit.amount().doubleValue();
        exact = exact.add(credit.amount());
      }
      if (BigDecimal.valueOf(asDoubles).compareTo(exact) != 0) {
        drifting++;
      }
    }
    long repeats = DemoCommand.duplicates(deliveries, OrderMessageTypes.ORDER_CREDITED);
    return new Check(
        "credited total per order = the sum of its distinct credits, exactly: "
            + byOrder.size()
            + " orders, "
            + lifecycle.credits.size()
            + " credits each applied by one delivery, "
            + repeats
            + " repeats absorbed (summed as doubles, "
            + drifting
            + " of the totals would be off)",
        problems.isEmpty(),
        summarize(problems));
  }

  private Check statusOfHighestVersion() {
    List<String> problems = new ArrayList<>();
    Map<String, Long> staleBy =
        deliveries.stream()
            .filter(d -> d.outcome() instanceof Outcome.Stale)
            .collect(
                Collectors.groupingBy(
                    d -> d.message().messageId().orElse("?"), Collectors.counting()));
    for (String orderId : lifecycle.statusOrders) {
      Optional<ObjectNode> stored = order(orderId);
      if (stored.isEmpty()) {
        problems.add(orderId + " missing");
        continue;
      }
      String status = stored.get().path("status").asText("");
      long version = stored.get().path("statusVersion").asLong(-1);
      if (!"Shipped".equals(status) || version != 3) {
        problems.add(orderId + " has status " + status + " version " + version);
      }
      String older = OrderMessageTypes.statusMessageId(orderId, 2);
      if (staleBy.getOrDefault(older, 0L) != 1) {
        problems.add(older + " did not complete as stale exactly once");
      }
    }
    return new Check(
        "status per order = that of its highest version: "
            + lifecycle.statusOrders.size()
            + " orders Shipped at statusVersion 3; version 2, sent after it, completed as stale",
        problems.isEmpty(),
        summarize(problems));
  }

  private Check markersCarryTtl() {
    List<String> problems = new ArrayList<>();
    long ttl = markerTtl.getSeconds();
    for (DemoLifecycle.Credit credit : lifecycle.credits) {
      Optional<ObjectNode> marker = read.apply(credit.orderId(), credit.markerId());
      if (marker.isEmpty()) {
        problems.add(credit.markerId() + " missing");
        continue;
      }
      ObjectNode m = marker.get();
      if (!m.path("ttl").isIntegralNumber() || m.path("ttl").asLong() != ttl) {
        problems.add(credit.markerId() + " has ttl " + m.path("ttl"));
      }
      if (!"inbox".equals(m.path("type").asText())
          || !credit.creditId().equals(m.path("creditId").asText())
          || !m.path("amount").isNumber()
          || m.path("amount").decimalValue().compareTo(credit.amount()) != 0) {
        problems.add(credit.markerId() + " does not describe its credit");
      }
    }
    return new Check(
        "every credit's inbox marker carries the configured TTL: "
            + lifecycle.credits.size()
            + " markers read back, each with ttl "
            + ttl
            + " s ("
            + markerTtl.toDays()
            + " days)",
        problems.isEmpty(),
        summarize(problems));
  }

  private Check wrongCurrency() {
    List<String> problems = new ArrayList<>();
    for (DemoLifecycle.Credit credit : lifecycle.wrongCurrency) {
      if (!OrderReasons.CURRENCY_MISMATCH.code().equals(deadLetterReasons.get(credit.creditId()))) {
        problems.add(credit.creditId() + " not dead-lettered as CurrencyMismatch");
      }
      if (read.apply(credit.orderId(), credit.markerId()).isPresent()) {
        problems.add(credit.markerId() + " exists");
      }
      long goodCredits =
          lifecycle.credits.stream().filter(c -> c.orderId().equals(credit.orderId())).count();
      long count = order(credit.orderId()).map(o -> o.path("creditCount").asLong(0)).orElse(-1L);
      if (count != goodCredits) {
        problems.add(credit.orderId() + " creditCount " + count + ", expected " + goodCredits);
      }
    }
    return new Check(
        "every credit in another currency ("
            + lifecycle.wrongCurrency.size()
            + ") dead-lettered as CurrencyMismatch; no marker, no credit on its order",
        problems.isEmpty(),
        summarize(problems));
  }

  private Check neverPlaced() {
    List<String> problems = new ArrayList<>();
    String messageId = OrderMessageTypes.statusMessageId(lifecycle.neverPlaced, 1);
    if (!OrderReasons.ORDER_NOT_FOUND.code().equals(deadLetterReasons.get(messageId))) {
      problems.add(messageId + " not dead-lettered as OrderNotFound");
    }
    if (read.apply(lifecycle.neverPlaced, lifecycle.neverPlaced).isPresent()) {
      problems.add(lifecycle.neverPlaced + " exists");
    }
    List<Delivery> copies =
        deliveries.stream()
            .filter(d -> d.message().messageId().filter(messageId::equals).isPresent())
            .toList();
    long notYet =
        copies.stream()
            .filter(
                d ->
                    d.outcome() instanceof Outcome.Retry r
                        && r.cause() == Outcome.RetryCause.NOT_YET)
            .count();
    if (copies.size() != DemoCommand.MAX_DELIVERY_COUNT || notYet != copies.size() - 1) {
      problems.add(
          copies.size() + " deliveries, " + notYet + " of them retried as not yet arrived");
    }
    return new Check(
        "the status for an order that never came dead-lettered as OrderNotFound on delivery "
            + copies.size()
            + " of "
            + DemoCommand.MAX_DELIVERY_COUNT
            + " (retried NOT_YET before); no order created",
        problems.isEmpty(),
        summarize(problems));
  }

  /** The order document, read once: several checks look at it. */
  private Optional<ObjectNode> order(String orderId) {
    return orders.computeIfAbsent(orderId, id -> read.apply(id, id));
  }

  private static String summarize(List<String> problems) {
    return String.join("; ", problems.subList(0, Math.min(5, problems.size())));
  }
}
