package io.idemworker.proof.demo;

import com.azure.cosmos.CosmosContainer;
import com.fasterxml.jackson.databind.JsonNode;
import io.idemworker.core.DuplicateSource;
import io.idemworker.core.Outcome;
import io.idemworker.orders.CaptureAnswer;
import io.idemworker.orders.OrderMessageTypes;
import io.idemworker.orders.OrderReasons;
import io.idemworker.proof.audit.Check;
import io.idemworker.proof.audit.StateAudit;
import io.idemworker.proof.demo.DemoTally.Delivery;
import io.idemworker.proof.producer.DemoLifecycle;
import io.idemworker.proof.producer.DemoPayments;
import io.idemworker.proof.producer.DemoPayments.Hazard;
import io.idemworker.proof.producer.DemoPayments.Request;
import io.idemworker.proof.producer.DemoScenario;
import io.idemworker.telemetry.TelemetryCounts;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * The demo's checks of what it <em>observed</em>: how each delivery ended, by source of repeat, and
 * whether the telemetry agrees. What the stores hold afterwards is not checked here but by {@link
 * StateAudit}, the audit the chaos run uses. Not thread-safe; used once, after the workers stopped.
 */
final class DemoAudit {
  private final DemoScenario scenario;
  private final List<Delivery> deliveries;
  private final TelemetryCounts metrics;
  private final CosmosContainer orders;
  private final List<DemoProviderCalls.Call> calls;

  /**
   * @param scenario what the producer sent
   * @param deliveries every delivery the workers finished
   * @param metrics the OpenTelemetry counters of the same deliveries
   * @param orders the orders container, for the payment records' final state and claim numbers
   * @param calls every call the workers made to the payment provider, with its answer
   */
  DemoAudit(
      DemoScenario scenario,
      List<Delivery> deliveries,
      TelemetryCounts metrics,
      CosmosContainer orders,
      List<DemoProviderCalls.Call> calls) {
    this.scenario = scenario;
    this.deliveries = deliveries;
    this.metrics = metrics;
    this.orders = orders;
    this.calls = calls;
  }

  List<Check> run(boolean settledInTime) {
    List<Check> checks = new ArrayList<>();
    checks.add(
        new Check(
            "every phase settled within the timeout",
            settledInTime,
            settledInTime ? "" : "the workers had not finished when the timeout passed"));
    checks.add(onePerOrder());
    checks.add(poisonAtFirstDelivery());
    checks.add(creditsOnce());
    checks.add(olderStatusStale());
    checks.add(neverPlaced());
    checks.add(paymentsRetried());
    checks.add(paymentsCalledOnce());
    checks.add(paymentCopies());
    checks.add(duplicateSources());
    checks.add(balance());
    checks.add(metricsBalance());
    return checks;
  }

  /**
   * Each duplicate named the source the demo made it by: the worker told it from the stamp the
   * first delivery left, knowing nothing of the scenario. A copy the demo did not repeat on purpose
   * can only be the same copy again (a lost lock, a crash). The copies of a pair are sent back to
   * back: the second is {@code concurrent} when it was received before the first one's write, a
   * {@code resend} when after it; both are right, a redelivery is not.
   */
  private Check duplicateSources() {
    Map<String, DuplicateSource> made = new HashMap<>();
    scenario.crashes.forEach(k -> made.put(k, DuplicateSource.REDELIVERY));
    scenario.lateResends.forEach(k -> made.put(k, DuplicateSource.RESEND));
    scenario.concurrentCopies.forEach(k -> made.put(k, DuplicateSource.CONCURRENT));
    for (DemoLifecycle.Credit credit : scenario.lifecycle.credits) {
      switch (credit.source()) {
        case CRASH -> made.put(credit.creditId(), DuplicateSource.REDELIVERY);
        case LATE_RESEND -> made.put(credit.creditId(), DuplicateSource.RESEND);
        case CONCURRENT -> made.put(credit.creditId(), DuplicateSource.CONCURRENT);
        default -> {}
      }
    }
    scenario
        .payments
        .requests(DemoPayments.Hazard.CONCURRENT)
        .forEach(r -> made.put(r.paymentRequestId(), DuplicateSource.CONCURRENT));
    List<String> problems = new ArrayList<>();
    long told = 0;
    for (Delivery d : deliveries) {
      if (d.outcome() instanceof Outcome.Duplicate duplicate) {
        String key = duplicate.key().value();
        DuplicateSource expected = made.getOrDefault(key, DuplicateSource.REDELIVERY);
        boolean pairResent =
            expected == DuplicateSource.CONCURRENT && duplicate.source() == DuplicateSource.RESEND;
        if (duplicate.source() == expected || pairResent) {
          told++;
        } else if (problems.size() < 5) {
          problems.add(
              key + " named " + duplicate.source().label() + ", made as " + expected.label());
        }
      }
    }
    return check(
        "queue: each of "
            + told
            + " duplicates named the source the demo made it by (redelivery, resend, concurrent)",
        problems);
  }

  private Check onePerOrder() {
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
        (id, count) -> {
          if (count != 1 || !scenario.orders.containsKey(id)) {
            problems.add(id + " created by " + count + " deliveries");
          }
        });
    if (created.size() != scenario.orders.size()) {
      problems.add(created.size() + " of " + scenario.orders.size() + " created");
    }
    return check(
        "queue: each of "
            + scenario.orders.size()
            + " orders created by exactly one delivery; every repeat completed as a duplicate",
        problems);
  }

  private Check poisonAtFirstDelivery() {
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
    Map<String, Long> seen =
        deliveries.stream()
            .filter(d -> d.outcome() instanceof Outcome.DeadLettered)
            .collect(
                Collectors.groupingBy(
                    d -> ((Outcome.DeadLettered) d.outcome()).reason().code(),
                    TreeMap::new,
                    Collectors.counting()));
    long redelivered =
        deliveries.stream()
            .filter(
                d ->
                    d.outcome() instanceof Outcome.DeadLettered dl
                        && !dl.reason().equals(OrderReasons.ORDER_NOT_FOUND))
            .filter(d -> d.message().deliveryCount() > 0)
            .count();
    List<String> problems = new ArrayList<>();
    if (!expected.equals(seen)) {
      problems.add("expected " + expected + ", the workers dead-lettered " + seen);
    }
    if (redelivered > 0) {
      problems.add(redelivered + " dead-lettered only after a redelivery");
    }
    return check(
        "every poison message ("
            + scenario.poisons.size()
            + "), reused key and wrong currency dead-lettered at its first delivery, with its reason",
        problems);
  }

  private Check creditsOnce() {
    Map<String, Long> appliedBy =
        countBy(
            d -> DemoCommand.isType(d, OrderMessageTypes.ORDER_CREDITED) && DemoCommand.applied(d));
    List<String> problems = new ArrayList<>();
    for (DemoLifecycle.Credit credit : scenario.lifecycle.credits) {
      long times = appliedBy.getOrDefault(credit.creditId(), 0L);
      if (times != 1) {
        problems.add(credit.creditId() + " applied by " + times + " deliveries");
      }
    }
    int drifting = 0;
    for (List<DemoLifecycle.Credit> credits : scenario.lifecycle.creditsByOrder().values()) {
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
    return check(
        "credits: each of "
            + scenario.lifecycle.credits.size()
            + " applied by exactly one delivery, "
            + DemoCommand.duplicates(deliveries, OrderMessageTypes.ORDER_CREDITED)
            + " repeats absorbed (summed as doubles, "
            + drifting
            + " of the totals would be off)",
        problems);
  }

  private Check olderStatusStale() {
    Map<String, Long> staleBy = countBy(d -> d.outcome() instanceof Outcome.Stale);
    List<String> problems = new ArrayList<>();
    for (String orderId : scenario.lifecycle.statusOrders) {
      String older = OrderMessageTypes.statusMessageId(orderId, 2);
      if (staleBy.getOrDefault(older, 0L) != 1) {
        problems.add(older + " did not complete as stale exactly once");
      }
    }
    return check(
        "status version 2, sent after version 3, completed as stale ("
            + scenario.lifecycle.statusOrders.size()
            + " orders)",
        problems);
  }

  private Check neverPlaced() {
    String messageId = OrderMessageTypes.statusMessageId(scenario.lifecycle.neverPlaced, 1);
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
    List<String> problems = new ArrayList<>();
    if (copies.size() != DemoCommand.MAX_DELIVERY_COUNT || notYet != copies.size() - 1) {
      problems.add(
          copies.size() + " deliveries, " + notYet + " of them retried as not yet arrived");
    }
    return check(
        "the status for an order that never came dead-lettered on delivery "
            + copies.size()
            + " of "
            + DemoCommand.MAX_DELIVERY_COUNT
            + " (retried NOT_YET before)",
        problems);
  }

  /**
   * A request whose provider answer was never recorded (a crash after the call, a dropped answer)
   * is called again with its key, and only then: its calls are one plus the answers never recorded
   * (the bound in docs/payments.md), every call after the first lost its answer too or was answered
   * by a replay, and the record ends {@code Completed} with the provider's answer, by one delivery.
   * How many claims (takeovers) that took depends on the interleaving, so it is printed, not
   * checked: a takeover whose lease became too short to start the call releases it and calls
   * nothing.
   */
  private Check paymentsRetried() {
    List<String> problems = new ArrayList<>();
    List<Request> retried = new ArrayList<>(scenario.payments.requests(Hazard.CRASH));
    retried.addAll(scenario.payments.requests(Hazard.AMBIGUOUS));
    Map<Long, Long> callsPerRequest = new TreeMap<>();
    Map<Long, Long> claimsPerRecord = new TreeMap<>();
    long replays = 0;
    for (Request r : retried) {
      List<DemoProviderCalls.Call> made = DemoProviderCalls.withKey(calls, r.paymentRequestId());
      callsPerRequest.merge((long) made.size(), 1L, Long::sum);
      replays += made.stream().filter(DemoProviderCalls.Call::replayed).count();
      // Answers never recorded: each lost one, and the completion the crash cut off.
      long unrecorded =
          made.stream().filter(DemoProviderCalls.Call::ambiguous).count()
              + (r.hazard() == Hazard.CRASH ? 1 : 0);
      if (made.size() < 2 || made.size() != 1 + unrecorded) {
        problems.add(
            r.paymentRequestId()
                + " called the provider "
                + made.size()
                + " times with "
                + unrecorded
                + " answers never recorded (bound: 1 + that)");
      }
      for (int i = 1; i < made.size(); i++) {
        if (!made.get(i).ambiguous() && !made.get(i).replayed()) {
          problems.add(r.paymentRequestId() + " call " + (i + 1) + " was not answered by a replay");
        }
      }
      Optional<JsonNode> record = StateAudit.read(orders, r.orderId(), r.recordId());
      record.ifPresent(d -> claimsPerRecord.merge(d.path("attempt").asLong(), 1L, Long::sum));
      if (made.isEmpty() || !completedWith(record, made.get(made.size() - 1))) {
        problems.add(r.recordId() + " is not Completed with the provider's last answer: " + record);
      }
      List<Delivery> copies = copies(r);
      if (copies.isEmpty() || !(copies.get(0).outcome() instanceof Outcome.Retry)) {
        problems.add(r.paymentRequestId() + "'s first delivery did not end retried");
      }
      if (processed(copies) != 1) {
        problems.add(r.paymentRequestId() + " completed by " + processed(copies) + " deliveries");
      }
    }
    return check(
        "payments: a crash after the provider call ("
            + scenario.payments.requests(Hazard.CRASH).size()
            + ") and a dropped answer ("
            + scenario.payments.requests(Hazard.AMBIGUOUS).size()
            + ") were retried with the same key: called again only for an answer never recorded,"
            + " every repeat answered by a replay ("
            + replays
            + "), the record Completed with the provider's answer by one delivery (provider calls"
            + " per request: "
            + histogram(callsPerRequest)
            + "; claims per record, the attempt field: "
            + histogram(claimsPerRecord)
            + ")",
        problems);
  }

  /**
   * Every request no fault hit (sent once, concurrent copies, declines) cost exactly one provider
   * call, executed, whatever its copies and claims did; every call carried the key of the request
   * whose order and amount it asked for, so no reused key reached the provider.
   */
  private Check paymentsCalledOnce() {
    List<String> problems = new ArrayList<>();
    List<Request> once =
        scenario.payments.requests.stream()
            .filter(r -> r.hazard() != Hazard.CRASH && r.hazard() != Hazard.AMBIGUOUS)
            .toList();
    for (Request r : once) {
      List<DemoProviderCalls.Call> made = DemoProviderCalls.withKey(calls, r.paymentRequestId());
      if (made.size() != 1 || !made.get(0).executed()) {
        problems.add(
            r.paymentRequestId()
                + " called the provider "
                + made.size()
                + " times: "
                + made.stream().map(c -> c.answer().toString()).toList());
      }
    }
    Map<String, Request> byKey =
        scenario.payments.requests.stream()
            .collect(Collectors.toMap(Request::paymentRequestId, r -> r));
    for (DemoProviderCalls.Call c : calls) {
      Request r = byKey.get(c.idempotencyKey());
      if (r == null || !r.orderId().equals(c.orderId()) || r.amount().compareTo(c.amount()) != 0) {
        problems.add(
            "a call for " + c.orderId() + " " + c.amount() + " carried key " + c.idempotencyKey());
      }
    }
    return check(
        "payments: every request no fault hit ("
            + once.size()
            + ", concurrent copies and declines included) cost one provider call, executed; every"
            + " call ("
            + calls.size()
            + ") carried its own request's key, none a reused one ("
            + scenario.payments.reusedKeys.size()
            + ")",
        problems);
  }

  /** Whether the record is {@code Completed} with the answer the provider gave last. */
  private static boolean completedWith(Optional<JsonNode> record, DemoProviderCalls.Call last) {
    if (record.isEmpty() || !"Completed".equals(record.get().path("status").asText())) {
      return false;
    }
    JsonNode result = record.get().path("result");
    if (last.answer() instanceof CaptureAnswer.Captured captured) {
      return "captured".equals(result.path("result").asText())
          && captured.captureId().equals(result.path("providerCaptureId").asText());
    }
    if (last.answer() instanceof CaptureAnswer.Declined declined) {
      return "declined".equals(result.path("result").asText())
          && declined.declineCode().equals(result.path("declineCode").asText());
    }
    return false;
  }

  /** How often each figure occurred, as {@code "2 x8, 3 x2"}. */
  private static String histogram(Map<Long, Long> countByFigure) {
    List<String> parts = new ArrayList<>();
    countByFigure.forEach((figure, times) -> parts.add(figure + " x" + times));
    return parts.isEmpty() ? "none" : String.join(", ", parts);
  }

  private Check paymentCopies() {
    List<String> problems = new ArrayList<>();
    for (Request r : scenario.payments.requests(Hazard.CONCURRENT)) {
      List<Delivery> copies = copies(r);
      long duplicates =
          copies.stream().filter(d -> d.outcome() instanceof Outcome.Duplicate).count();
      if (processed(copies) != 1 || duplicates != 1) {
        problems.add(r.paymentRequestId() + ": " + processed(copies) + " completed");
      }
    }
    for (Request r : scenario.payments.requests(Hazard.DECLINE)) {
      if (processed(copies(r)) != 1) {
        problems.add(r.paymentRequestId() + " (declined) completed " + processed(copies(r)) + "x");
      }
    }
    return check(
        "payments: of each concurrent pair ("
            + scenario.payments.requests(Hazard.CONCURRENT).size()
            + ") one delivery called the provider, the other completed as a duplicate; each"
            + " decline ("
            + scenario.payments.requests(Hazard.DECLINE).size()
            + ") completed once as a business answer",
        problems);
  }

  private Check balance() {
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

  private Check metricsBalance() {
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

  /** Deliveries that match, counted by message id. */
  private Map<String, Long> countBy(Predicate<Delivery> matching) {
    return deliveries.stream()
        .filter(matching)
        .collect(
            Collectors.groupingBy(
                d -> d.message().messageId().orElse("?"), TreeMap::new, Collectors.counting()));
  }

  private List<Delivery> copies(Request r) {
    return deliveries.stream()
        .filter(d -> DemoCommand.isType(d, DemoCommand.PAYMENT))
        .filter(d -> d.message().messageId().filter(r.paymentRequestId()::equals).isPresent())
        .sorted(Comparator.comparingLong(Delivery::startedNanos))
        .toList();
  }

  private static long processed(List<Delivery> copies) {
    return copies.stream().filter(d -> d.outcome() instanceof Outcome.Processed).count();
  }

  /** A check from its problems: passes when there are none, else names the first five. */
  static Check check(String claim, List<String> problems) {
    return new Check(
        claim,
        problems.isEmpty(),
        String.join("; ", problems.subList(0, Math.min(5, problems.size()))));
  }
}
