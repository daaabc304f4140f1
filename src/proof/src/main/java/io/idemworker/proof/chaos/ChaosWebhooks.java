package io.idemworker.proof.chaos;

import com.azure.cosmos.CosmosContainer;
import com.sun.net.httpserver.HttpServer;
import io.idemworker.cosmos.CosmosEffectStore;
import io.idemworker.emulator.payments.PaymentFaults;
import io.idemworker.emulator.payments.WebhookSender;
import io.idemworker.emulator.payments.WebhookSettings;
import io.idemworker.orders.OrderDocumentIds;
import io.idemworker.proof.audit.StateAudit;
import io.idemworker.proof.audit.WebhookAudit;
import io.idemworker.proof.faults.WebhookExchanges;
import io.idemworker.webhooks.PaymentWebhookHandler;
import io.idemworker.webhooks.WebhookSecret;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
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
 * <p>{@link WebhookAudit}, a check of {@link StateAudit}, compares the double's delivery log with
 * the orders and the events' markers in Cosmos DB. Thread-safe once started.
 */
final class ChaosWebhooks implements AutoCloseable {
  static final String SECRET = "whsec_chaos_" + "0123456789abcdef";

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
            new CosmosEffectStore(
                orders,
                (operation, status, charge, latency) -> {},
                OrderDocumentIds.PARTITION_KEY_PATH),
            Clock.systemUTC(),
            Optional.of(Duration.ofDays(14)));
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 256);
    server.createContext(
        PaymentWebhookHandler.PATH, exchange -> WebhookExchanges.serve(handler, exchange));
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

  @Override
  public void close() {
    server.stop(0);
    threads.shutdownNow();
  }
}
