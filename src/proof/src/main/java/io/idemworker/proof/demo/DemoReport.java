package io.idemworker.proof.demo;

import io.idemworker.core.DuplicateSource;
import io.idemworker.core.Outcome;
import io.idemworker.emulator.payments.PaymentStats;
import io.idemworker.orders.OrderMessageTypes;
import io.idemworker.orders.OrderReasons;
import io.idemworker.proof.audit.Check;
import io.idemworker.proof.audit.StateAudit;
import io.idemworker.proof.demo.DemoTally.Delivery;
import io.idemworker.proof.producer.DemoLifecycle;
import io.idemworker.proof.producer.DemoPayments;
import io.idemworker.proof.producer.DemoScenario;
import io.idemworker.servicebus.deadletter.DeadLetterReader;
import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/** Prints the demo's summary and audit. */
final class DemoReport {
  /**
   * How the two-phase flow's retry reads when a claim or takeover was left too little lease to
   * start the call (it released the record and called nothing): {@code TwoPhaseCall}'s description.
   */
  private static final String CALL_NOT_STARTED = "the call was not started";

  private final PrintStream out;

  DemoReport(PrintStream out) {
    this.out = out;
  }

  void summary(DemoScenario s, DemoTally tally, int instances, PaymentStats provider) {
    List<Delivery> d = tally.deliveries();
    DemoLifecycle l = s.lifecycle;
    DemoPayments p = s.payments;
    int retriesSent = s.producerRetries.size();
    int sent =
        s.firstWave.size()
            + retriesSent
            + s.lateResends.size()
            + s.conflicts.size()
            + 2 * s.concurrentCopies.size()
            + s.poisons.size()
            + l.messagesSent()
            + p.messagesSent();
    long firstDeliveries = d.stream().filter(x -> x.message().deliveryCount() == 0).count();
    section("What the producer sent");
    row("new orders", s.orders.size());
    row("  of which sent twice at once, to race on the instances", s.concurrentCopies.size());
    row("producer retries inside the duplicate-detection window", retriesSent);
    row("resends after the window", s.lateResends.size());
    row("same orderId, other content (key reuse)", s.conflicts.size());
    row("poison messages", s.poisons.size());
    row(
        "credits (OrderCredited) on "
            + l.credits.stream().map(DemoLifecycle.Credit::orderId).distinct().count()
            + " orders, each repeated once",
        l.credits.size());
    for (DemoLifecycle.Source source : DemoLifecycle.Source.values()) {
      if (source != DemoLifecycle.Source.ONCE) {
        row("  " + source.label(), l.credits(source).size());
      }
    }
    row("credits in another currency than the order's", l.wrongCurrency.size());
    row("status changes: version 3 (Shipped), then version 2 (Packed)", 2L * l.statusOrders.size());
    row("status change for an order that is never placed", 1);
    row(
        "payment requests (PaymentCaptureRequested) on " + p.byOrder().size() + " orders",
        p.requests.size());
    for (DemoPayments.Hazard hazard : DemoPayments.Hazard.values()) {
      row("  " + hazard.label(), p.requests(hazard).size());
    }
    row("completed payment keys reused with another amount", p.reusedKeys.size());
    row("messages sent in all", sent);

    repeats(s, d, sent - firstDeliveries);
    paymentRepeats(p, d, provider);
    outcomes(d, instances);
    costs(d, p);
  }

  private void paymentRepeats(DemoPayments p, List<Delivery> d, PaymentStats provider) {
    List<Delivery> duplicates =
        d.stream()
            .filter(x -> x.outcome() instanceof Outcome.Duplicate)
            .filter(x -> DemoCommand.isType(x, DemoCommand.PAYMENT))
            .toList();
    row("payments caught by the worker (record Completed)", duplicates.size());
    Map<String, DemoPayments.Hazard> hazards = hazards(p);
    bySource(duplicates);
    row("repeated provider calls (same key), answered by a replay", provider.replays());
    row(
        "  after a crash after the call (lease waited out, taken over)",
        count(d, x -> retriedAndCompleted(x, hazards, DemoPayments.Hazard.CRASH)));
    row(
        "  after a dropped connection (released lease taken over)",
        count(d, x -> retriedAndCompleted(x, hazards, DemoPayments.Hazard.AMBIGUOUS)));
    out.printf(
        "    (%s; provider: %d requests, %d executed, %d declined, %d replays, %d reused keys reached it)%n",
        overlap(
            d,
            p.requests(DemoPayments.Hazard.CONCURRENT).stream()
                .map(DemoPayments.Request::paymentRequestId)
                .toList(),
            "payment",
            // Each copy's first delivery: the one that lost the claim finds the lease held and is
            // retried; its redelivery completes as the duplicate.
            x -> x.message().deliveryCount() == 0),
        provider.requests(),
        provider.executed(),
        provider.declined(),
        provider.replays(),
        provider.keyConflicts());
  }

  private static boolean retriedAndCompleted(
      Delivery x, Map<String, DemoPayments.Hazard> hazards, DemoPayments.Hazard hazard) {
    return x.outcome() instanceof Outcome.Processed
        && x.message().deliveryCount() > 0
        && hazards.get(key(x)) == hazard;
  }

  private static Map<String, DemoPayments.Hazard> hazards(DemoPayments p) {
    return p.requests.stream()
        .collect(
            Collectors.toMap(DemoPayments.Request::paymentRequestId, DemoPayments.Request::hazard));
  }

  private void repeats(DemoScenario s, List<Delivery> d, long droppedByBroker) {
    DemoLifecycle l = s.lifecycle;
    long creditFirstDeliveries =
        d.stream()
            .filter(x -> DemoCommand.isType(x, OrderMessageTypes.ORDER_CREDITED))
            .filter(x -> x.message().deliveryCount() == 0)
            .count();
    section("Where the repeats were caught (by each duplicate's duplicateSource)");
    row("dropped by the broker's duplicate detection", droppedByBroker);
    row("  credits (producer retries)", l.creditMessagesSent() - creditFirstDeliveries);
    row(
        "  orders (producer retries)",
        droppedByBroker - (l.creditMessagesSent() - creditFirstDeliveries));
    List<Delivery> orderDuplicates = duplicates(d, DemoCommand.ORDER_PLACED);
    row("orders caught by the worker (create 409, same fingerprint)", orderDuplicates.size());
    bySource(orderDuplicates);
    List<Delivery> creditDuplicates = duplicates(d, OrderMessageTypes.ORDER_CREDITED);
    row("credits caught by the worker (marker 409, same fingerprint)", creditDuplicates.size());
    bySource(creditDuplicates);
    List<Delivery> statusDuplicates = duplicates(d, OrderMessageTypes.ORDER_STATUS_CHANGED);
    row("status changes caught by the worker (same version and state)", statusDuplicates.size());
    bySource(statusDuplicates);
    out.printf(
        "    (%s; %s)%n",
        overlap(d, s.concurrentCopies, "order"),
        overlap(d, creditIds(l, DemoLifecycle.Source.CONCURRENT), "credit"));
  }

  private static List<Delivery> duplicates(List<Delivery> d, String type) {
    return d.stream()
        .filter(x -> x.outcome() instanceof Outcome.Duplicate)
        .filter(x -> DemoCommand.isType(x, type))
        .toList();
  }

  /** One row per source the outcomes named, in the enum's order. */
  private void bySource(List<Delivery> duplicates) {
    Map<DuplicateSource, Long> counts =
        duplicates.stream()
            .collect(
                Collectors.groupingBy(
                    x -> ((Outcome.Duplicate) x.outcome()).source(),
                    () -> new java.util.EnumMap<>(DuplicateSource.class),
                    Collectors.counting()));
    counts.forEach((source, n) -> row("  " + source.label() + ": " + SOURCE_LABELS.get(source), n));
  }

  /** What each source means, in the demo's words. */
  static final Map<DuplicateSource, String> SOURCE_LABELS =
      Map.of(
          DuplicateSource.REDELIVERY, "the same copy again (crash or lost lock)",
          DuplicateSource.RESEND, "another copy, received after the write",
          DuplicateSource.CONCURRENT, "another copy, received before the write",
          DuplicateSource.RESUBMIT, "resubmitted from the dead-letter queue",
          DuplicateSource.REPUBLISH, "re-published by the relay",
          DuplicateSource.UNKNOWN, "not told (no stamp)");

  private static Set<String> creditIds(DemoLifecycle l, DemoLifecycle.Source source) {
    return l.credits(source).stream()
        .map(DemoLifecycle.Credit::creditId)
        .collect(Collectors.toSet());
  }

  /** How many copy pairs were in flight at the same time, and on two instances. */
  private static String overlap(List<Delivery> d, java.util.Collection<String> keys, String what) {
    return overlap(
        d,
        keys,
        what,
        x -> x.outcome() instanceof Outcome.Processed || x.outcome() instanceof Outcome.Duplicate);
  }

  /**
   * How many copy pairs were in flight at the same time, and on two instances, comparing the first
   * two deliveries of each key that {@code counted} accepts.
   */
  private static String overlap(
      List<Delivery> d,
      java.util.Collection<String> keys,
      String what,
      Predicate<Delivery> counted) {
    long overlapped = 0;
    long crossInstance = 0;
    for (String key : keys) {
      List<Delivery> copies = d.stream().filter(x -> key.equals(key(x))).filter(counted).toList();
      if (copies.size() >= 2) {
        Delivery a = copies.get(0);
        Delivery b = copies.get(1);
        if (a.startedNanos() < b.finishedNanos() && b.startedNanos() < a.finishedNanos()) {
          overlapped++;
        }
        if (!a.instance().equals(b.instance())) {
          crossInstance++;
        }
      }
    }
    return String.format(
        Locale.ROOT,
        "%d of %d %s copy pairs were in flight at the same time, %d ran on two different instances",
        overlapped,
        keys.size(),
        what,
        crossInstance);
  }

  private void outcomes(List<Delivery> d, int instances) {
    section("Outcomes of " + d.size() + " deliveries on " + instances + " instances");
    row("orders created", DemoCommand.processedCount(d));
    appliedRows(d, DemoCommand.ORDER_PLACED);
    row("credits applied", DemoCommand.applied(d, OrderMessageTypes.ORDER_CREDITED));
    appliedRows(d, OrderMessageTypes.ORDER_CREDITED);
    row("status changes applied", DemoCommand.applied(d, OrderMessageTypes.ORDER_STATUS_CHANGED));
    row("payments completed (captured or declined)", DemoCommand.applied(d, DemoCommand.PAYMENT));
    row("duplicates completed", DemoCommand.duplicates(d));
    row("stale (older status version than stored; completed)", DemoCommand.stale(d));
    Map<String, Long> dead =
        d.stream()
            .filter(x -> x.outcome() instanceof Outcome.DeadLettered)
            .collect(
                Collectors.groupingBy(
                    x -> ((Outcome.DeadLettered) x.outcome()).reason().code(),
                    TreeMap::new,
                    Collectors.counting()));
    row("dead-lettered", dead.values().stream().mapToLong(Long::longValue).sum());
    dead.forEach((reason, n) -> row("  " + reason, n));
    Map<String, Long> retried =
        d.stream()
            .filter(x -> x.outcome() instanceof Outcome.Retry)
            .collect(
                Collectors.groupingBy(DemoReport::retryLabel, TreeMap::new, Collectors.counting()));
    row(
        "retried (abandoned, redelivered by the broker)",
        retried.values().stream().mapToLong(Long::longValue).sum());
    retried.forEach((cause, n) -> row("  " + cause, n));
    d.stream()
        .collect(Collectors.groupingBy(Delivery::instance, TreeMap::new, Collectors.counting()))
        .forEach((instance, n) -> row("handled by " + instance, n));
  }

  private void appliedRows(List<Delivery> d, String subject) {
    row(
        "  completed at once",
        count(d, x -> DemoCommand.isType(x, subject) && x.outcome() instanceof Outcome.Processed));
    row(
        "  committed, then the worker crashed before completing",
        count(d, x -> DemoCommand.isType(x, subject) && DemoCommand.crashedAfterCommit(x)));
  }

  private static String retryLabel(Delivery x) {
    Outcome.Retry retry = (Outcome.Retry) x.outcome();
    if (DemoCommand.crashedAfterCommit(x)) {
      return "simulated crash after commit";
    }
    if (retry.description().contains(DemoStore.SIMULATED_CRASH_BEFORE_COMPLETION)) {
      return "simulated crash after the provider call, before completion";
    }
    if (DemoCommand.isType(x, DemoCommand.PAYMENT)) {
      return switch (retry.cause()) {
        case TRANSIENT -> "payment call's answer lost (dropped connection)";
        case NOT_YET ->
            retry.description().contains(CALL_NOT_STARTED)
                ? "payment claim released: lease too short to start the call"
                : "payment in progress: another delivery holds the lease";
        case MISCONFIGURATION -> "payment call refused";
        case LOCK_LOST -> "lock lost before the payment call";
      };
    }
    return switch (retry.cause()) {
      case TRANSIENT -> "transient store fault (injected 503)";
      case NOT_YET -> "not yet: the order has not arrived";
      case MISCONFIGURATION -> "misconfiguration";
      case LOCK_LOST -> "lock lost before the next write";
    };
  }

  private void costs(List<Delivery> d, DemoPayments p) {
    section("Cosmos DB cost per delivery (from the emulator's x-ms-request-charge)");
    String placed = DemoCommand.ORDER_PLACED;
    String credited = OrderMessageTypes.ORDER_CREDITED;
    String status = OrderMessageTypes.ORDER_STATUS_CHANGED;
    cost("new order", d, x -> is(x, placed, Outcome.Processed.class));
    cost("duplicate order", d, x -> is(x, placed, Outcome.Duplicate.class));
    cost(
        "new credit (marker + order patch, one batch)",
        d,
        x -> is(x, credited, Outcome.Processed.class));
    cost(
        "duplicate credit (batch 409, marker read)",
        d,
        x -> is(x, credited, Outcome.Duplicate.class));
    cost(
        "applied status change (conditional patch)",
        d,
        x -> is(x, status, Outcome.Processed.class));
    cost(
        "stale status change (patch refused, order read)",
        d,
        x -> is(x, status, Outcome.Stale.class));
    Map<String, DemoPayments.Hazard> hazards = hazards(p);
    String payment = DemoCommand.PAYMENT;
    cost(
        "new payment (claim, provider call, complete)",
        d,
        x ->
            is(x, payment, Outcome.Processed.class)
                && hazards.get(key(x)) != DemoPayments.Hazard.CRASH
                && hazards.get(key(x)) != DemoPayments.Hazard.AMBIGUOUS);
    cost(
        "duplicate payment (claim 409, read; again after a lease)",
        d,
        x -> is(x, payment, Outcome.Duplicate.class));
    cost(
        "payment takeover (claim 409, read, take over, complete)",
        d,
        x ->
            is(x, payment, Outcome.Processed.class)
                && hazards.get(key(x)) == DemoPayments.Hazard.AMBIGUOUS);
    cost(
        "payment takeover after a crash (same, after a lease wait)",
        d,
        x ->
            is(x, payment, Outcome.Processed.class)
                && hazards.get(key(x)) == DemoPayments.Hazard.CRASH);
    cost(
        "payment whose lease is held (claim 409, read; retried)",
        d,
        x ->
            DemoCommand.isType(x, payment)
                && x.outcome() instanceof Outcome.Retry r
                && r.cause() == Outcome.RetryCause.NOT_YET);
    cost(
        "dead-lettered poison (no store call)",
        d,
        x -> deadLetterReason(x).filter(r -> !STORE_REASONS.contains(r)).isPresent());
    cost(
        "key reuse (IdempotencyConflict)",
        d,
        x -> deadLetterReason(x).filter("IdempotencyConflict"::equals).isPresent());
    cost(
        "credit in another currency (CurrencyMismatch)",
        d,
        x -> deadLetterReason(x).filter(OrderReasons.CURRENCY_MISMATCH.code()::equals).isPresent());
    cost(
        "status for a missing order (each of its deliveries)",
        d,
        x ->
            DemoCommand.isType(x, status)
                && (x.outcome() instanceof Outcome.Retry r
                        && r.cause() == Outcome.RetryCause.NOT_YET
                    || deadLetterReason(x)
                        .filter(OrderReasons.ORDER_NOT_FOUND.code()::equals)
                        .isPresent()));
  }

  private static final Set<String> STORE_REASONS =
      Set.of(
          "IdempotencyConflict",
          OrderReasons.CURRENCY_MISMATCH.code(),
          OrderReasons.ORDER_NOT_FOUND.code());

  private static boolean is(Delivery x, String subject, Class<? extends Outcome> outcome) {
    return DemoCommand.isType(x, subject) && outcome.isInstance(x.outcome());
  }

  private static Optional<String> deadLetterReason(Delivery x) {
    return x.outcome() instanceof Outcome.DeadLettered dl
        ? Optional.of(dl.reason().code())
        : Optional.empty();
  }

  /**
   * Prints what the demo observed and the audit of the stores, and the verdict.
   *
   * @return true when every check passed and the audit found nothing lost, doubled or wrongly
   *     dead-lettered
   */
  boolean audit(List<Check> observed, StateAudit.Result stores) {
    section("What the demo observed (each delivery's outcome, the clients' answers, telemetry)");
    boolean pass = print(observed);
    section(
        "Audit of the stores (StateAudit, the chaos run's audit: Cosmos DB, the dead-letter queues,"
            + " the provider's ledger, the topic, the webhook log; no worker counter)");
    pass &= print(stores.checks());
    out.printf(
        "  lost = %d, double effects = %d, wrong dead-letters = %d%n",
        stores.lost(), stores.doubled(), stores.wrongDeadLetters());
    pass &= stores.pass();
    out.printf(
        "%n%s%n",
        pass
            ? "PASS: every message took effect exactly once, read back from the stores: each order"
                + " once whichever way it came (queue or HTTP), credits summed exactly, the latest"
                + " status kept, one charge per payment request, poison and reused keys"
                + " dead-lettered with their reason, every outbox event published and projected"
                + " once, every webhook applied once; nothing lost."
            : "FAIL: see the checks above.");
    return pass;
  }

  private boolean print(List<Check> checks) {
    boolean pass = true;
    for (Check check : checks) {
      out.printf("  %s  %s%n", check.pass() ? "PASS" : "FAIL", check.claim());
      if (!check.pass() && !check.detail().isEmpty()) {
        out.printf("        %s%n", check.detail());
      }
      pass &= check.pass();
    }
    return pass;
  }

  void deadLetterSamples(List<DeadLetterReader.DeadLetter> deadLetters) {
    section("Dead-letter queue (reason: description)");
    Map<String, String> firstByReason = new TreeMap<>();
    deadLetters.forEach(m -> firstByReason.putIfAbsent(m.reason(), m.description().orElse("")));
    firstByReason.forEach(
        (reason, description) -> out.printf("  %-20s %s%n", reason, abbreviate(description, 90)));
  }

  private static String abbreviate(String text, int max) {
    return text == null || text.length() <= max
        ? String.valueOf(text)
        : text.substring(0, max - 1) + "…";
  }

  private void cost(String label, List<Delivery> d, Predicate<Delivery> matching) {
    List<Delivery> matched = d.stream().filter(matching).toList();
    if (matched.isEmpty()) {
      return;
    }
    double trips = matched.stream().mapToInt(Delivery::roundTrips).average().orElse(0);
    double ru = matched.stream().mapToDouble(Delivery::requestCharge).average().orElse(0);
    out.printf("  %-58s %5.2f round trips  %6.2f RU%n", label, trips, ru);
  }

  private void section(String title) {
    out.printf("%n%s%n", title);
  }

  private void row(String label, long value) {
    out.printf("  %-62s %6d%n", label, value);
  }

  private static long count(List<Delivery> d, Predicate<Delivery> matching) {
    return d.stream().filter(matching).count();
  }

  /** The message's key: the orderId of an order, the creditId of a credit. */
  private static String key(Delivery d) {
    return d.message().messageId().orElse("");
  }
}
