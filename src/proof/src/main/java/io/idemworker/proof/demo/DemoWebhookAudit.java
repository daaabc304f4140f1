package io.idemworker.proof.demo;

import com.azure.cosmos.CosmosContainer;
import io.idemworker.emulator.payments.WebhookDelivery;
import io.idemworker.proof.audit.Check;
import io.idemworker.proof.audit.StateAudit;
import io.idemworker.proof.audit.WebhookAudit;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * What the demo observed of its webhook phase: every copy the double sent answered 2xx, the stalled
 * deliveries redelivered, the forger's events refused. Whether each event took effect once (order
 * counters, markers) is {@link StateAudit}'s to check, from the same delivery log ({@link #log}).
 */
final class DemoWebhookAudit {
  /**
   * One capture the phase made.
   *
   * @param amount the amount
   * @param declined whether the double declined it (no settlement follows)
   */
  record Capture(BigDecimal amount, boolean declined) {}

  private final CosmosContainer container;
  private final List<WebhookDelivery> deliveries;
  private final Map<String, Capture> captures;
  private final DemoWebhookForger.Result forged;
  private final Map<String, Long> outcomes;

  DemoWebhookAudit(
      CosmosContainer container,
      List<WebhookDelivery> deliveries,
      Map<String, Capture> captures,
      DemoWebhookForger.Result forged) {
    this.container = container;
    this.deliveries = deliveries;
    this.captures = captures;
    this.forged = forged;
    this.outcomes =
        deliveries.stream()
            .flatMap(d -> d.attempts().stream())
            .filter(WebhookDelivery.Attempt::succeeded)
            .map(a -> WebhookAudit.outcome(a.responseBody()))
            .collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
  }

  /**
   * The delivery log and the phase's captures, for {@link StateAudit}.
   *
   * @param idle whether the double's sender was idle
   */
  WebhookAudit.Log log(boolean idle) {
    Map<String, Long> units = new LinkedHashMap<>();
    captures.forEach(
        (orderId, c) ->
            units.put(orderId, c.declined() ? 0 : c.amount().movePointRight(4).longValueExact()));
    return new WebhookAudit.Log(deliveries, idle, Optional.of(units));
  }

  String summary() {
    long attempts = deliveries.stream().mapToLong(d -> d.attempts().size()).sum();
    return String.format(
        "  webhooks: %d events sent, %d HTTP attempts; answered processed %d, duplicate %d;"
            + " %d timed out and were redelivered; forged answered %s",
        deliveries.size(),
        attempts,
        outcomes.getOrDefault("processed", 0L),
        outcomes.getOrDefault("duplicate", 0L),
        timeouts(),
        forged.statuses());
  }

  List<Check> run(boolean settled) {
    List<Check> checks = new ArrayList<>();
    checks.add(everyEventDelivered(settled));
    checks.add(
        new Check(
            "webhooks: deliveries that timed out were redelivered (at least "
                + DemoWebhookPhase.STALLED
                + ")",
            timeouts() >= DemoWebhookPhase.STALLED,
            timeouts() + " timed-out attempts"));
    checks.add(forgeriesRefused());
    return checks;
  }

  private Check everyEventDelivered(boolean settled) {
    long expected = captures.values().stream().mapToLong(c -> c.declined() ? 1 : 2).sum();
    List<String> wrong = new ArrayList<>();
    for (WebhookDelivery d : deliveries) {
      if (!d.finished() || d.copiesDelivered() != d.copies()) {
        wrong.add(d.eventId() + " " + d.copiesDelivered() + "/" + d.copies() + " copies delivered");
      }
    }
    boolean pass = settled && deliveries.size() == expected && wrong.isEmpty();
    return new Check(
        "webhooks: the provider delivered every event (" + expected + "), every copy answered 2xx",
        pass,
        (settled ? "" : "not settled in time; ")
            + deliveries.size()
            + " events sent; "
            + String.join("; ", wrong.stream().limit(5).toList()));
  }

  private Check forgeriesRefused() {
    boolean none =
        forged.eventIds().stream()
            .noneMatch(id -> WebhookAudit.markerExists(container, forged.orderId(), id));
    return new Check(
        "webhooks: wrong-secret, replayed and unsigned events refused (401, 401, 400), none"
            + " applied",
        forged.statuses().equals(List.of(401, 401, 400)) && none,
        "answered " + forged.statuses() + (none ? "" : "; a forged event was applied"));
  }

  private long timeouts() {
    return deliveries.stream()
        .flatMap(d -> d.attempts().stream())
        .filter(a -> a.problem().filter("timeout"::equals).isPresent())
        .count();
  }
}
