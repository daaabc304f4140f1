package io.idemworker.app;

import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import io.idemworker.app.DemoTally.Delivery;
import io.idemworker.core.Outcome;
import java.io.PrintStream;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/** Prints the demo's summary and audit. */
final class DemoReport {
  private final PrintStream out;

  DemoReport(PrintStream out) {
    this.out = out;
  }

  void summary(DemoScenario s, DemoTally tally, int instances) {
    List<Delivery> d = tally.deliveries();
    int retriesSent = s.producerRetries.size();
    int sent =
        s.firstWave.size()
            + retriesSent
            + s.lateResends.size()
            + s.conflicts.size()
            + 2 * s.concurrentCopies.size()
            + s.poisons.size();
    long firstDeliveries = d.stream().filter(x -> x.message().deliveryCount() == 0).count();
    section("What the producer sent");
    row("new orders", s.orders.size());
    row("  of which sent twice at once, to race on the instances", s.concurrentCopies.size());
    row("producer retries inside the duplicate-detection window", retriesSent);
    row("resends after the window", s.lateResends.size());
    row("same orderId, other content (key reuse)", s.conflicts.size());
    row("poison messages", s.poisons.size());
    row("messages sent in all", sent);

    Set<String> crashes = new HashSet<>(s.crashes);
    Set<String> late = new HashSet<>(s.lateResends);
    Set<String> pairs = new HashSet<>(s.concurrentCopies);
    List<Delivery> duplicates =
        d.stream().filter(x -> x.outcome() instanceof Outcome.Duplicate).toList();
    section("Where the repeats were caught");
    row("dropped by the broker's duplicate detection", sent - firstDeliveries);
    row("caught by the worker (create answered 409, same fingerprint)", duplicates.size());
    row(
        "  redelivered after a crash between commit and completion",
        count(duplicates, x -> crashes.contains(id(x))));
    row("  resent after the detection window", count(duplicates, x -> late.contains(id(x))));
    row("  concurrent copy of a new order", count(duplicates, x -> pairs.contains(id(x))));
    row(
        "  other redeliveries",
        count(
            duplicates,
            x -> !crashes.contains(id(x)) && !late.contains(id(x)) && !pairs.contains(id(x))));
    long overlapped = 0;
    long crossInstance = 0;
    for (String orderId : s.concurrentCopies) {
      List<Delivery> copies = d.stream().filter(x -> orderId.equals(id(x))).toList();
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
    out.printf(
        "    (%d of %d copy pairs were in flight at the same time; %d pairs ran on two different instances)%n",
        overlapped, s.concurrentCopies.size(), crossInstance);

    section("Outcomes of " + d.size() + " deliveries on " + instances + " instances");
    row("orders created", DemoCommand.processedCount(d));
    row("  completed at once", count(d, x -> x.outcome() instanceof Outcome.Processed));
    row(
        "  committed, then the worker crashed before completing",
        count(d, DemoCommand::crashedAfterCommit));
    row("duplicates completed", duplicates.size());
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
                Collectors.groupingBy(
                    x ->
                        ((Outcome.Retry) x.outcome()).description().contains("simulated crash")
                            ? "simulated crash after commit"
                            : ((Outcome.Retry) x.outcome())
                                    .cause()
                                    .name()
                                    .toLowerCase(java.util.Locale.ROOT)
                                + " store fault (injected 503)",
                    TreeMap::new,
                    Collectors.counting()));
    row(
        "retried (abandoned, redelivered by the broker)",
        retried.values().stream().mapToLong(Long::longValue).sum());
    retried.forEach((cause, n) -> row("  " + cause, n));
    d.stream()
        .collect(Collectors.groupingBy(Delivery::instance, TreeMap::new, Collectors.counting()))
        .forEach((instance, n) -> row("handled by " + instance, n));

    section("Cosmos DB cost per delivery (from the emulator's x-ms-request-charge)");
    cost("new order", d, x -> x.outcome() instanceof Outcome.Processed);
    cost("duplicate", d, x -> x.outcome() instanceof Outcome.Duplicate);
    cost(
        "dead-lettered poison (no store call)",
        d,
        x ->
            x.outcome() instanceof Outcome.DeadLettered
                && !(((Outcome.DeadLettered) x.outcome())
                    .reason()
                    .code()
                    .equals("IdempotencyConflict")));
    cost(
        "key reuse (IdempotencyConflict)",
        d,
        x ->
            x.outcome() instanceof Outcome.DeadLettered
                && ((Outcome.DeadLettered) x.outcome())
                    .reason()
                    .code()
                    .equals("IdempotencyConflict"));
  }

  boolean audit(List<DemoAudit.Check> checks) {
    section("Audit (read back from Cosmos DB and the dead-letter queue)");
    boolean pass = true;
    for (DemoAudit.Check check : checks) {
      out.printf("  %s  %s%n", check.pass() ? "PASS" : "FAIL", check.claim());
      if (!check.pass() && !check.detail().isEmpty()) {
        out.printf("        %s%n", check.detail());
      }
      pass &= check.pass();
    }
    out.printf(
        "%n%s%n",
        pass
            ? "PASS: every order took effect exactly once; nothing was lost."
            : "FAIL: see the checks above.");
    return pass;
  }

  void deadLetterSamples(List<ServiceBusReceivedMessage> deadLetters) {
    section("Dead-letter queue (reason: description)");
    Map<String, String> firstByReason = new TreeMap<>();
    deadLetters.forEach(
        m -> firstByReason.putIfAbsent(m.getDeadLetterReason(), m.getDeadLetterErrorDescription()));
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

  private static String id(Delivery d) {
    return d.outcome().knownEntityId().orElse("");
  }
}
