package io.idemworker.proof.demo;

import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.models.PartitionKey;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpServer;
import io.idemworker.cosmos.CosmosEffectStore;
import io.idemworker.emulator.payments.PaymentFaults;
import io.idemworker.emulator.payments.PaymentProviderEmulator;
import io.idemworker.emulator.payments.WebhookSettings;
import io.idemworker.orders.CaptureAnswer;
import io.idemworker.orders.OrderDocumentIds;
import io.idemworker.payments.HttpPaymentProvider;
import io.idemworker.proof.audit.Check;
import io.idemworker.proof.audit.StateAudit;
import io.idemworker.proof.audit.WebhookAudit;
import io.idemworker.proof.faults.WebhookExchanges;
import io.idemworker.webhooks.PaymentWebhookHandler;
import io.idemworker.webhooks.WebhookSecret;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The demo's webhook phase: a payment provider double that delivers signed webhooks at least once
 * (every event as a storm of concurrent copies, the first requests stalled past its timeout, the
 * first two events out of order) to the receiver {@code POST /webhooks/payments} on its own HTTP
 * server, over the demo's orders in Cosmos DB; plus a forger whose events are signed with the wrong
 * secret or too long ago. {@link StateAudit} reads Cosmos DB and the double's delivery log back.
 * Used once, from the demo's thread.
 */
final class DemoWebhookPhase {
  static final String SECRET = "whsec_demo_" + "0123456789abcdef";
  static final int ORDERS = 12;
  static final int EXTRA_COPIES = 4;
  static final int STALLED = 3;

  /** The sender's wait for each attempt: the stalled deliveries miss it and are sent again. */
  private static final Duration SENDER_TIMEOUT = Duration.ofSeconds(1);

  private static final Duration MAX_BACKOFF = Duration.ofMillis(200);

  private final PrintStream out;
  private final Duration timeout;

  DemoWebhookPhase(PrintStream out, Duration timeout) {
    this.out = out;
    this.timeout = timeout;
  }

  /**
   * What the phase observed, and the delivery log for {@link StateAudit}.
   *
   * @param observed the checks of what the phase saw (copies answered, redeliveries, forgeries)
   * @param log the double's delivery log and the captures that made its events
   */
  record Result(List<Check> observed, WebhookAudit.Log log) {}

  /**
   * Runs the phase.
   *
   * @param container the orders container
   * @param orderIds accepted orders; the first {@value #ORDERS} are captured
   */
  Result run(CosmosContainer container, Iterable<String> orderIds) throws InterruptedException {
    long started = System.nanoTime();
    out.printf(
        "phase 7: payment webhooks: %d captures, each event sent as %d concurrent copies, %d"
            + " deliveries stalled past the sender's timeout, 2 events out of order, forged and"
            + " expired signatures%n",
        ORDERS, EXTRA_COPIES + 1, STALLED);
    Map<String, String> currencies = new LinkedHashMap<>();
    for (String orderId : orderIds) {
      if (currencies.size() == ORDERS) {
        break;
      }
      ObjectNode order =
          container.readItem(orderId, new PartitionKey(orderId), ObjectNode.class).getItem();
      currencies.put(orderId, order.get("currency").asText());
    }
    AtomicInteger stalls = new AtomicInteger(STALLED);
    CountDownLatch gate = new CountDownLatch(1);
    CountDownLatch stalledDone = new CountDownLatch(STALLED);
    ExecutorService threads = Executors.newFixedThreadPool(16);
    HttpServer server = receiver(container, threads, stalls, gate, stalledDone);
    URI url =
        URI.create(
            "http://127.0.0.1:" + server.getAddress().getPort() + PaymentWebhookHandler.PATH);
    try (PaymentProviderEmulator provider =
        PaymentProviderEmulator.builder()
            .port(0)
            .webhooks(
                WebhookSettings.to(url, SECRET)
                    .withRetries(
                        SENDER_TIMEOUT, Duration.ofMillis(20), MAX_BACKOFF, senderAttempts(timeout))
                    .withSettleAfter(Duration.ZERO))
            .start()) {
      provider.webhooks().faults().duplicate(EXTRA_COPIES, PaymentFaults.Trigger.always());
      provider.webhooks().faults().reverseNext(2);
      HttpPaymentProvider client =
          new HttpPaymentProvider(provider.baseUrl(), provider.apiKey(), Duration.ofSeconds(10));
      Map<String, DemoWebhookAudit.Capture> captures = new LinkedHashMap<>();
      int i = 0;
      for (Map.Entry<String, String> order : currencies.entrySet()) {
        // Every fourth amount ends in .13, which the double declines.
        BigDecimal amount = new BigDecimal((10 + i) + (i % 4 == 3 ? ".13" : ".50"));
        CaptureAnswer answer =
            client.capture(
                "webhook-demo-" + order.getKey(), order.getKey(), amount, order.getValue());
        captures.put(
            order.getKey(),
            new DemoWebhookAudit.Capture(amount, answer instanceof CaptureAnswer.Declined));
        i++;
      }
      boolean idle = provider.webhooks().awaitIdle(timeout);
      gate.countDown();
      boolean stalledHandled = stalledDone.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
      DemoWebhookForger.Result forged =
          new DemoWebhookForger(url).run(currencies.keySet().iterator().next());
      DemoWebhookAudit audit =
          new DemoWebhookAudit(container, provider.webhooks().deliveries(), captures, forged);
      out.printf("%s; phase took %.1f s%n", audit.summary(), (System.nanoTime() - started) / 1e9);
      return new Result(audit.run(idle && stalledHandled), audit.log(idle));
    } finally {
      gate.countDown();
      server.stop(0);
      threads.shutdownNow();
    }
  }

  /**
   * Attempts per copy: as many as fit in the phase's timeout (at least 10), so a machine too busy
   * to answer within the sender's timeout changes how often a copy is sent, not whether it arrives.
   */
  static int senderAttempts(Duration timeout) {
    long perAttempt = SENDER_TIMEOUT.plus(MAX_BACKOFF).toMillis();
    return (int) Math.max(10, Math.min(1_000, timeout.toMillis() / perAttempt));
  }

  /** The receiver on its own server; the first requests wait at a gate, as a slow receiver. */
  private static HttpServer receiver(
      CosmosContainer container,
      ExecutorService threads,
      AtomicInteger stalls,
      CountDownLatch gate,
      CountDownLatch stalledDone) {
    PaymentWebhookHandler handler =
        new PaymentWebhookHandler(
            Optional.of(new WebhookSecret(SECRET)),
            new CosmosEffectStore(
                container,
                (operation, status, charge, latency) -> {},
                OrderDocumentIds.PARTITION_KEY_PATH),
            Clock.systemUTC(),
            Optional.of(Duration.ofDays(14)));
    HttpServer server;
    try {
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the demo's webhook receiver", e);
    }
    server.createContext(
        PaymentWebhookHandler.PATH,
        exchange -> {
          boolean stalled = stalls.getAndUpdate(n -> n > 0 ? n - 1 : 0) > 0;
          if (stalled) {
            try {
              gate.await(1, TimeUnit.MINUTES);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
          WebhookExchanges.serve(handler, exchange);
          if (stalled) {
            stalledDone.countDown();
          }
        });
    server.setExecutor(threads);
    server.start();
    return server;
  }
}
