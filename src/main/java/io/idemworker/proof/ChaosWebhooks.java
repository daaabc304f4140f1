package io.idemworker.proof;

import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosException;
import com.azure.cosmos.models.PartitionKey;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.idemworker.cosmos.CosmosEffectStore;
import io.idemworker.emulator.payments.PaymentFaults;
import io.idemworker.emulator.payments.WebhookDelivery;
import io.idemworker.emulator.payments.WebhookSender;
import io.idemworker.emulator.payments.WebhookSettings;
import io.idemworker.orders.PaymentWebhookEvents;
import io.idemworker.webhooks.PaymentWebhookHandler;
import io.idemworker.webhooks.WebhookSecret;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The chaos run's webhook source: the receiver ({@link PaymentWebhookHandler}, on its own loopback
 * server, over the run's orders container, as the demo mounts it) and the payment double's sender
 * settings pointing at it. Every capture a worker makes at the double becomes signed events
 * (captured and settled, or declined) that the double delivers at least once: in storms (two extra
 * concurrent copies of every third event), out of order, and again on any non-2xx or timeout.
 *
 * <p>{@link #audit} reads the orders and the events' markers back from Cosmos DB and compares them
 * with the double's delivery log. Thread-safe once started.
 */
final class ChaosWebhooks implements AutoCloseable {
  static final String SECRET = "whsec_chaos_" + "0123456789abcdef";
  private static final ObjectMapper JSON = new ObjectMapper();

  // More than the double's 8 sender threads: a storm's copies of one event arrive at once and
  // contend for its marker, and a receiver slower than the sender's 2 s timeout turns every copy
  // into redeliveries.
  private final ExecutorService threads = Executors.newFixedThreadPool(16);
  private final HttpServer server;

  /**
   * Starts the receiver on a free loopback port.
   *
   * @param orders the run's orders container
   * @throws IOException when it cannot bind
   */
  ChaosWebhooks(CosmosContainer orders) throws IOException {
    PaymentWebhookHandler handler =
        new PaymentWebhookHandler(
            Optional.of(new WebhookSecret(SECRET)),
            new CosmosEffectStore(orders, (operation, status, charge, latency) -> {}),
            Clock.systemUTC(),
            Optional.of(Duration.ofDays(14)));
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 256);
    server.createContext(PaymentWebhookHandler.PATH, handler::handle);
    server.setExecutor(threads);
    server.start();
  }

  /** The double's sender: to the receiver, signed, 2 s timeout, retried up to 20 times. */
  WebhookSettings settings() {
    URI url =
        URI.create(
            "http://127.0.0.1:" + server.getAddress().getPort() + PaymentWebhookHandler.PATH);
    return WebhookSettings.to(url, SECRET)
        .withRetries(Duration.ofSeconds(2), Duration.ofMillis(50), Duration.ofSeconds(1), 20)
        .withSettleAfter(Duration.ZERO);
  }

  /**
   * Storms on every third event for the whole run, and the first {@code reversed} events (at most
   * 200: they are held until all exist, then delivered one after another) out of order.
   */
  static void storms(WebhookSender sender, int reversed) {
    sender.faults().duplicate(2, PaymentFaults.Trigger.probability(1.0 / 3, 7));
    sender.faults().reverseNext(Math.max(2, Math.min(200, reversed)));
  }

  /**
   * Audits the deliveries against Cosmos DB: for each order, {@code paymentEvents} = its distinct
   * events delivered, {@code confirmedCaptureUnits} = {@code settledUnits} = {@code
   * amountPaidUnits} (the workers' captures, themselves checked against the provider's ledger),
   * {@code declinedCaptures} = its declined events, a marker per event; and no event answered
   * {@code processed} twice.
   *
   * @return the check, the lost and the doubled effects
   */
  static Audit audit(CosmosContainer orders, List<WebhookDelivery> deliveries, boolean idle) {
    Map<String, List<WebhookDelivery>> byOrder = new LinkedHashMap<>();
    deliveries.forEach(d -> byOrder.computeIfAbsent(d.orderId(), k -> new ArrayList<>()).add(d));
    List<String> problems = new ArrayList<>();
    long lost = 0;
    long doubled = 0;
    long copies = 0;
    long attempts = 0;
    long duplicates = 0;
    for (WebhookDelivery d : deliveries) {
      copies += d.copies();
      attempts += d.attempts().size();
      long processed = 0;
      for (WebhookDelivery.Attempt a : d.attempts()) {
        if (a.succeeded()) {
          String outcome = outcome(a.responseBody());
          if (outcome.equals("processed")) {
            processed++;
          } else if (outcome.equals("duplicate")) {
            duplicates++;
          }
        }
      }
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
      long events = e.getValue().size();
      long declined =
          e.getValue().stream()
              .filter(d -> d.type().equals(PaymentWebhookEvents.CAPTURE_DECLINED))
              .count();
      long paid = order.path("amountPaidUnits").asLong(0);
      long[] got = {
        order.path("paymentEvents").asLong(0),
        order.path("declinedCaptures").asLong(0),
        order.path("confirmedCaptureUnits").asLong(0),
        order.path("settledUnits").asLong(0)
      };
      long[] want = {events, declined, paid, paid};
      for (int i = 0; i < got.length; i++) {
        if (got[i] < want[i]) {
          lost++;
        } else if (got[i] > want[i]) {
          doubled++;
        }
      }
      if (!java.util.Arrays.equals(got, want)) {
        problems.add(
            e.getKey()
                + " paymentEvents/declinedCaptures/confirmedCaptureUnits/settledUnits "
                + java.util.Arrays.toString(got)
                + ", expected "
                + java.util.Arrays.toString(want));
      }
    }
    if (!idle) {
      problems.add(0, "the double's sender was not idle within the timeout");
    }
    Map<String, Long> counts = new LinkedHashMap<>();
    counts.put("events", (long) deliveries.size());
    counts.put("copies", copies);
    counts.put("attempts", attempts);
    counts.put("answeredDuplicate", duplicates);
    counts.put("ordersPaid", (long) byOrder.size());
    DemoAudit.Check check =
        new DemoAudit.Check(
            "webhooks: every event the provider delivered ("
                + deliveries.size()
                + " events, "
                + copies
                + " copies incl. storms, "
                + attempts
                + " attempts) took effect once: order counters equal the double's log and the"
                + " workers' captures, a marker per event, none answered processed twice",
            idle && problems.isEmpty() && duplicates > 0,
            "answered duplicate "
                + duplicates
                + "; "
                + String.join("; ", problems.stream().limit(10).toList()));
    return new Audit(check, lost, doubled, counts);
  }

  /** What the webhook audit found. */
  record Audit(DemoAudit.Check check, long lost, long doubled, Map<String, Long> counts) {}

  private static boolean markerExists(CosmosContainer orders, String orderId, String eventId) {
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

  private static String outcome(String body) {
    try {
      return JSON.readTree(body).path("outcome").asText("unreadable");
    } catch (IOException e) {
      return "unreadable";
    }
  }

  @Override
  public void close() {
    server.stop(0);
    threads.shutdownNow();
  }
}
