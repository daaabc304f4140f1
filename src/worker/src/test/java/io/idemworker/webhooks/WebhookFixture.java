package io.idemworker.webhooks;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosException;
import com.azure.cosmos.models.PartitionKey;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpServer;
import io.idemworker.core.IdempotentConsumer;
import io.idemworker.core.Outcome;
import io.idemworker.core.TestFlow;
import io.idemworker.cosmos.CosmosEffectStore;
import io.idemworker.emulator.junit.Emulators;
import io.idemworker.emulator.payments.WebhookSender;
import io.idemworker.orders.InboxMarkers;
import io.idemworker.orders.OrderDocumentIds;
import io.idemworker.orders.OrderMessageTypes;
import io.idemworker.orders.Orders;
import io.idemworker.orders.PaymentWebhookEvents;
import io.idemworker.testing.EmulatorClients;
import io.idemworker.testing.MutableClock;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link PaymentWebhookHandler} on a JDK HTTP server on a free loopback port, writing to the
 * orders container of the in-process Cosmos DB emulator through the real SDK; plus a client that
 * signs as the contract says (an implementation of its own, not the handler's).
 */
final class WebhookFixture implements AutoCloseable {
  static final String SECRET = "whsec_test_fixture_0123456789";
  static final ObjectMapper JSON = new ObjectMapper();

  final CosmosContainer container;
  final CosmosEffectStore store;
  final MutableClock clock = new MutableClock(Instant.now());
  private final HttpServer server;
  private final AtomicInteger stalls = new AtomicInteger();
  private final CountDownLatch gate = new CountDownLatch(1);
  private volatile CountDownLatch stalled = new CountDownLatch(0);
  private final ExecutorService executor = Executors.newFixedThreadPool(16);
  private final HttpClient client =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private IdempotentConsumer orders;

  /** Lets the queue's flow capture payments through {@code provider}. */
  void capturingWith(io.idemworker.orders.PaymentProvider provider) {
    orders =
        TestFlow.of(
                OrderMessageTypes.decoder(
                    true,
                    new InboxMarkers("orders", Optional.empty()),
                    Optional.of(new OrderMessageTypes.Payments(provider, Duration.ofSeconds(30)))),
                store)
            .clock(clock)
            .build();
  }

  /** Handles one queue message with the queue's flow. */
  io.idemworker.core.Outcome handle(io.idemworker.core.IncomingMessage message) {
    return orders.handle(message);
  }

  WebhookFixture(Emulators azure, Optional<WebhookSecret> secret) throws IOException {
    container = EmulatorClients.orders(azure);
    store =
        new CosmosEffectStore(container, (o, s, c, l) -> {}, OrderDocumentIds.PARTITION_KEY_PATH);
    orders =
        TestFlow.of(
                OrderMessageTypes.decoder(true, new InboxMarkers("orders", Optional.empty())),
                store)
            .clock(clock)
            .build();
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
    PaymentWebhookHandler handler =
        new PaymentWebhookHandler(secret, store, clock, Optional.of(Duration.ofDays(14)));
    server.createContext(
        PaymentWebhookHandler.PATH,
        exchange -> {
          boolean gated = stalls.getAndUpdate(n -> n > 0 ? n - 1 : 0) > 0;
          if (gated) {
            try {
              gate.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
          serve(handler, exchange);
          if (gated) {
            stalled.countDown();
          }
        });
    server.setExecutor(executor);
    server.start();
  }

  /**
   * The api's route table in miniature, for the handler alone on a JDK server: 404 off the path,
   * 405 for another method, the head refusal, 413 over the limit, then the receiver.
   */
  private static void serve(
      PaymentWebhookHandler handler, com.sun.net.httpserver.HttpExchange exchange)
      throws IOException {
    try (exchange) {
      PaymentWebhookHandler.Reply reply;
      byte[] body = exchange.getRequestBody().readNBytes(PaymentWebhookHandler.MAX_BODY_BYTES + 1);
      if (!PaymentWebhookHandler.PATH.equals(exchange.getRequestURI().getPath())) {
        reply = status(404);
      } else if (!"POST".equals(exchange.getRequestMethod())) {
        reply = status(405);
      } else {
        reply =
            handler
                .refusal(Optional.ofNullable(exchange.getRequestHeaders().getFirst("Content-Type")))
                .orElseGet(
                    () ->
                        body.length > PaymentWebhookHandler.MAX_BODY_BYTES
                            ? status(413)
                            : handler.receive(
                                exchange
                                    .getRequestHeaders()
                                    .getOrDefault("Webhook-Signature", java.util.List.of()),
                                body));
      }
      byte[] bytes = JSON.writeValueAsBytes(reply.body());
      reply.headers().forEach((name, value) -> exchange.getResponseHeaders().set(name, value));
      exchange.getResponseHeaders().set("Content-Type", reply.contentType());
      exchange.sendResponseHeaders(reply.status(), bytes.length);
      exchange.getResponseBody().write(bytes);
    } catch (IOException e) {
      // the sender gave up on this copy (its timeout): it redelivers
    }
  }

  private static PaymentWebhookHandler.Reply status(int status) {
    return new PaymentWebhookHandler.Reply(
        status,
        "application/problem+json",
        java.util.Map.of(),
        JSON.createObjectNode().put("status", status));
  }

  static WebhookFixture started(Emulators azure) throws IOException {
    return new WebhookFixture(azure, Optional.of(new WebhookSecret(SECRET)));
  }

  /**
   * Holds the next {@code n} requests before the handler sees them, until {@link
   * #releaseStalled()}: a receiver slower than the sender's timeout.
   */
  void stallNext(int n) {
    stalled = new CountDownLatch(n);
    stalls.set(n);
  }

  /** Lets the held requests reach the handler and waits until each was handled. */
  boolean releaseStalled() throws InterruptedException {
    gate.countDown();
    return stalled.await(30, TimeUnit.SECONDS);
  }

  URI url() {
    return URI.create(
        "http://127.0.0.1:" + server.getAddress().getPort() + PaymentWebhookHandler.PATH);
  }

  /** A new order in EUR, through the queue's own flow. */
  String placeOrder() {
    return placeOrderWithId("wh-" + UUID.randomUUID().toString().substring(0, 12));
  }

  /** The order {@code orderId} in EUR, through the queue's own flow. */
  String placeOrderWithId(String orderId) {
    assertThat(orders.handle(Orders.order(orderId))).isInstanceOf(Outcome.Processed.class);
    return orderId;
  }

  static String newEventId() {
    return "evt_" + UUID.randomUUID().toString().replace("-", "").substring(0, 24);
  }

  static String event(
      String eventId, String type, Instant created, String orderId, String amount, String cur) {
    return """
        {"id":"%s","type":"%s","created":"%s","data":{"captureId":"cap_%s","orderId":"%s",\
        "idempotencyKey":"%s-pr","amount":%s,"currency":"%s"}}"""
        .formatted(eventId, type, created, eventId.substring(4), orderId, orderId, amount, cur);
  }

  static String succeeded(String eventId, String orderId, String amount) {
    return event(
        eventId, PaymentWebhookEvents.CAPTURE_SUCCEEDED, Instant.now(), orderId, amount, "EUR");
  }

  /** {@code t=...,v1=...} over {@code t + "." + body}. */
  static String signature(String secret, long timestamp, String body) {
    return WebhookSender.signature(secret, timestamp, body.getBytes(StandardCharsets.UTF_8));
  }

  /** Posts a body signed now (by the receiver's clock) with the fixture's secret. */
  HttpResponse<String> deliver(String body) {
    return post(body, Optional.of(signature(SECRET, clock.instant().getEpochSecond(), body)));
  }

  HttpResponse<String> post(String body, Optional<String> signatureHeader) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(url())
            .timeout(Duration.ofSeconds(30))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    signatureHeader.ifPresent(value -> request.header("Webhook-Signature", value));
    try {
      return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  ObjectNode order(String orderId) {
    return container.readItem(orderId, new PartitionKey(orderId), ObjectNode.class).getItem();
  }

  Optional<ObjectNode> marker(String orderId, String eventId) {
    try {
      return Optional.of(
          container
              .readItem(
                  PaymentWebhookEvents.markerId(eventId),
                  new PartitionKey(orderId),
                  ObjectNode.class)
              .getItem());
    } catch (CosmosException e) {
      if (e.getStatusCode() == 404) {
        return Optional.empty();
      }
      throw e;
    }
  }

  static ObjectNode json(HttpResponse<String> response) {
    try {
      return (ObjectNode) JSON.readTree(response.body());
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
