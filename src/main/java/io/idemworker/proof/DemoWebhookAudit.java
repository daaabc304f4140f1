package io.idemworker.proof;

import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosException;
import com.azure.cosmos.models.PartitionKey;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.emulator.payments.WebhookDelivery;
import io.idemworker.orders.PaymentWebhookEvents;
import java.io.IOException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The webhook phase's audit: reads the orders and markers back from Cosmos DB and compares them
 * with what the double's delivery log says it sent; checks that the forger's events were refused.
 */
final class DemoWebhookAudit {
  private static final ObjectMapper JSON = new ObjectMapper();

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
            .map(a -> outcome(a.responseBody()))
            .collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
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

  List<DemoAudit.Check> run(boolean settled) {
    List<DemoAudit.Check> checks = new ArrayList<>();
    checks.add(everyEventDelivered(settled));
    checks.add(appliedOnce());
    checks.add(duplicatesAnswered200());
    checks.add(
        new DemoAudit.Check(
            "webhooks: deliveries that timed out were redelivered (at least "
                + DemoWebhookPhase.STALLED
                + ")",
            timeouts() >= DemoWebhookPhase.STALLED,
            timeouts() + " timed-out attempts"));
    checks.add(forgeriesRefused());
    return checks;
  }

  private DemoAudit.Check everyEventDelivered(boolean settled) {
    long expected = captures.values().stream().mapToLong(c -> c.declined() ? 1 : 2).sum();
    List<String> wrong = new ArrayList<>();
    for (WebhookDelivery d : deliveries) {
      if (!d.finished() || d.copiesDelivered() != d.copies()) {
        wrong.add(d.eventId() + " " + d.copiesDelivered() + "/" + d.copies() + " copies delivered");
      }
    }
    boolean pass = settled && deliveries.size() == expected && wrong.isEmpty();
    return new DemoAudit.Check(
        "webhooks: the provider delivered every event (" + expected + "), every copy answered 2xx",
        pass,
        (settled ? "" : "not settled in time; ")
            + deliveries.size()
            + " events sent; "
            + String.join("; ", wrong.stream().limit(5).toList()));
  }

  private DemoAudit.Check appliedOnce() {
    List<String> wrong = new ArrayList<>();
    for (Map.Entry<String, Capture> entry : captures.entrySet()) {
      String orderId = entry.getKey();
      Capture capture = entry.getValue();
      ObjectNode order =
          container.readItem(orderId, new PartitionKey(orderId), ObjectNode.class).getItem();
      long units = capture.amount().movePointRight(4).longValueExact();
      long events = capture.declined() ? 1 : 2;
      boolean ok =
          order.path("paymentEvents").asLong() == events
              && (capture.declined()
                  ? order.path("declinedCaptures").asLong() == 1 && !order.has("settledAt")
                  : order.path("confirmedCaptureUnits").asLong() == units
                      && order.path("settledUnits").asLong() == units
                      && order.has("settledAt"));
      if (!ok) {
        wrong.add(orderId + " paymentEvents " + order.path("paymentEvents").asLong());
      }
    }
    for (WebhookDelivery d : deliveries) {
      if (!markerExists(d.orderId(), d.eventId())) {
        wrong.add("no marker for " + d.eventId());
      }
    }
    return new DemoAudit.Check(
        "webhooks: each event applied exactly once (order counters, settledAt and markers in"
            + " Cosmos DB)",
        wrong.isEmpty(),
        String.join("; ", wrong.stream().limit(5).toList()));
  }

  /**
   * Every 2xx answer says processed or duplicate, and no event was answered processed twice. (A
   * copy that timed out after the receiver applied it lost its processed answer; its retry is a
   * duplicate, so an event may show none.)
   */
  private DemoAudit.Check duplicatesAnswered200() {
    long processed = outcomes.getOrDefault("processed", 0L);
    long duplicate = outcomes.getOrDefault("duplicate", 0L);
    long delivered = outcomes.values().stream().mapToLong(Long::longValue).sum();
    List<String> twice =
        deliveries.stream()
            .filter(
                d ->
                    d.attempts().stream()
                            .filter(WebhookDelivery.Attempt::succeeded)
                            .filter(a -> outcome(a.responseBody()).equals("processed"))
                            .count()
                        > 1)
            .map(WebhookDelivery::eventId)
            .toList();
    return new DemoAudit.Check(
        "webhooks: redelivered copies answered 200 duplicate, never a second processed",
        twice.isEmpty() && processed + duplicate == delivered && duplicate > 0,
        "processed " + processed + ", duplicate " + duplicate + ", all " + outcomes + twice);
  }

  private DemoAudit.Check forgeriesRefused() {
    boolean none = forged.eventIds().stream().noneMatch(id -> markerExists(forged.orderId(), id));
    return new DemoAudit.Check(
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

  private boolean markerExists(String orderId, String eventId) {
    try {
      container.readItem(
          PaymentWebhookEvents.markerId(eventId), new PartitionKey(orderId), JsonNode.class);
      return true;
    } catch (CosmosException e) {
      if (e.getStatusCode() == 404) {
        return false;
      }
      throw e;
    }
  }

  private static String outcome(String body) {
    try {
      return JSON.readTree(body).path("outcome").asText("unreadable");
    } catch (IOException e) {
      return "unreadable";
    }
  }
}
