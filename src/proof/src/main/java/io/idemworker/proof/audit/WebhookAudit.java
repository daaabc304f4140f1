package io.idemworker.proof.audit;

import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosException;
import com.azure.cosmos.models.PartitionKey;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.idemworker.emulator.payments.WebhookDelivery;
import io.idemworker.orders.PaymentWebhookEvents;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@link StateAudit}'s webhook check: compares the payment double's delivery log with what the
 * orders container holds. Per order, {@code paymentEvents} = its distinct events delivered, {@code
 * declinedCaptures} = its declined events, {@code confirmedCaptureUnits} = {@code settledUnits} =
 * what was captured for it; a marker per event; no event answered {@code processed} twice, and at
 * least one copy answered {@code duplicate} (the redeliveries reached the receiver).
 *
 * <p>Stateless and thread-safe; {@link #run} reads the log once the sender is idle.
 */
public final class WebhookAudit {
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * What the double delivered.
   *
   * @param deliveries the double's delivery log
   * @param idle whether its sender was idle before the audit (nothing more would come)
   * @param capturedUnits order id → units (0.0001) captured for it by the calls that made these
   *     events; empty: each order's {@code amountPaidUnits} (the workers' captures, themselves
   *     checked against the provider's ledger)
   */
  public record Log(
      List<WebhookDelivery> deliveries, boolean idle, Optional<Map<String, Long>> capturedUnits) {
    /** Copies the log and the units. */
    public Log {
      deliveries = List.copyOf(deliveries);
      capturedUnits = capturedUnits.map(Map::copyOf);
    }
  }

  /** What the check found. */
  record Result(Check check, long lost, long doubled) {}

  private WebhookAudit() {}

  /**
   * The delivery log's figures, for a report.
   *
   * @return events, copies (storms included), attempts, copies answered duplicate, orders paid
   */
  public static Map<String, Long> counts(List<WebhookDelivery> deliveries) {
    Map<String, Long> counts = new LinkedHashMap<>();
    counts.put("events", (long) deliveries.size());
    counts.put("copies", deliveries.stream().mapToLong(WebhookDelivery::copies).sum());
    counts.put("attempts", deliveries.stream().mapToLong(d -> d.attempts().size()).sum());
    counts.put(
        "answeredDuplicate",
        deliveries.stream()
            .flatMap(d -> d.attempts().stream())
            .filter(a -> a.succeeded() && outcome(a.responseBody()).equals("duplicate"))
            .count());
    counts.put("ordersPaid", deliveries.stream().map(WebhookDelivery::orderId).distinct().count());
    return counts;
  }

  static Result run(CosmosContainer orders, Log log) {
    List<WebhookDelivery> deliveries = log.deliveries();
    Map<String, List<WebhookDelivery>> byOrder = new LinkedHashMap<>();
    deliveries.forEach(d -> byOrder.computeIfAbsent(d.orderId(), k -> new ArrayList<>()).add(d));
    List<String> problems = new ArrayList<>();
    long lost = 0;
    long doubled = 0;
    for (WebhookDelivery d : deliveries) {
      long processed =
          d.attempts().stream()
              .filter(a -> a.succeeded() && outcome(a.responseBody()).equals("processed"))
              .count();
      if (processed > 1) {
        doubled += processed - 1;
        problems.add(d.eventId() + " answered processed " + processed + " times");
      }
      if (!d.finished() || d.copiesDelivered() == 0) {
        lost++;
        problems.add(
            d.eventId() + " not delivered (" + d.copiesDelivered() + "/" + d.copies() + ")");
      } else if (!markerExists(orders, d.orderId(), d.eventId())) {
        lost++;
        problems.add(d.eventId() + " delivered but no marker");
      }
    }
    for (Map.Entry<String, List<WebhookDelivery>> e : byOrder.entrySet()) {
      JsonNode order;
      try {
        order = orders.readItem(e.getKey(), new PartitionKey(e.getKey()), JsonNode.class).getItem();
      } catch (CosmosException ex) {
        lost++;
        problems.add(e.getKey() + " has webhook events but no order (" + ex.getStatusCode() + ")");
        continue;
      }
      long declined =
          e.getValue().stream()
              .filter(d -> d.type().equals(PaymentWebhookEvents.CAPTURE_DECLINED))
              .count();
      long captured =
          log.capturedUnits()
              .map(units -> units.getOrDefault(e.getKey(), 0L))
              .orElseGet(() -> order.path("amountPaidUnits").asLong(0));
      long[] got = {
        order.path("paymentEvents").asLong(0),
        order.path("declinedCaptures").asLong(0),
        order.path("confirmedCaptureUnits").asLong(0),
        order.path("settledUnits").asLong(0)
      };
      long[] want = {e.getValue().size(), declined, captured, captured};
      for (int i = 0; i < got.length; i++) {
        if (got[i] < want[i]) {
          lost++;
        } else if (got[i] > want[i]) {
          doubled++;
        }
      }
      if (!Arrays.equals(got, want)) {
        problems.add(
            e.getKey()
                + " paymentEvents/declinedCaptures/confirmedCaptureUnits/settledUnits "
                + Arrays.toString(got)
                + ", expected "
                + Arrays.toString(want));
      }
    }
    if (!log.idle()) {
      problems.add(0, "the double's sender was not idle within the timeout");
    }
    Map<String, Long> counts = counts(deliveries);
    long duplicates = counts.get("answeredDuplicate");
    Check check =
        new Check(
            "webhooks: every event the provider delivered ("
                + deliveries.size()
                + " events, "
                + counts.get("copies")
                + " copies incl. storms, "
                + counts.get("attempts")
                + " attempts) took effect once: order counters equal the double's log and the"
                + " captures, a marker per event, none answered processed twice",
            log.idle() && problems.isEmpty() && duplicates > 0,
            "answered duplicate "
                + duplicates
                + "; "
                + String.join("; ", problems.stream().limit(10).toList()));
    return new Result(check, lost, doubled);
  }

  /**
   * Whether the receiver's marker of an event exists.
   *
   * @throws com.azure.cosmos.CosmosException when the container cannot be read (not for 404)
   */
  public static boolean markerExists(CosmosContainer orders, String orderId, String eventId) {
    try {
      orders.readItem(
          PaymentWebhookEvents.markerId(eventId), new PartitionKey(orderId), JsonNode.class);
      return true;
    } catch (CosmosException e) {
      if (e.getStatusCode() == 404) {
        return false;
      }
      throw e;
    }
  }

  /** The {@code outcome} of a receiver's answer: processed, duplicate, or unreadable. */
  public static String outcome(String body) {
    try {
      return JSON.readTree(body).path("outcome").asText("unreadable");
    } catch (IOException e) {
      return "unreadable";
    }
  }
}
