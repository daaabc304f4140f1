package io.idemworker.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.models.PartitionKey;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.idemworker.cosmos.CosmosEffectStore;
import io.idemworker.cosmos.StoreCallListener;
import io.idemworker.emulator.junit.AzureEmulators;
import io.idemworker.emulator.junit.Emulators;
import io.idemworker.emulator.payments.WebhookSender;
import io.idemworker.http.server.ServerLimits;
import io.idemworker.orders.OrderDocumentIds;
import io.idemworker.testing.EmulatorClients;
import io.idemworker.testing.MutableClock;
import io.idemworker.webhooks.WebhookSecret;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The payment webhook receiver mounted on the api server, through real HTTP on the api's port and
 * the Cosmos DB emulator through the real SDK: the webhook authenticates by its signature and not
 * by {@code API_AUTH}, the orders route still requires the api key, and a storm of copies of one
 * signed event is applied once.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
@AzureEmulators(serviceBus = false)
class ApiWebhookRouteTest {
  static Emulators azure; // injected by @AzureEmulators
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String API_KEY = "test-key-0123456789abcdef";
  private static final String SECRET = "whsec_api_route_0123456789";

  private final CosmosContainer container = EmulatorClients.orders(azure);
  private final MutableClock clock = new MutableClock();
  private final java.util.concurrent.atomic.AtomicInteger storeCalls =
      new java.util.concurrent.atomic.AtomicInteger();
  private final ExecutorService executor = Executors.newFixedThreadPool(16);
  private final HttpClient http = HttpClient.newHttpClient();
  private ApiServer server;

  @BeforeEach
  void start() {
    server =
        api(
            new OrderApi.Webhooks(
                Optional.of(new WebhookSecret(SECRET)), Optional.of(Duration.ofDays(14))));
    server.start();
  }

  private ApiServer api(OrderApi.Webhooks webhooks) {
    return OrderApi.create(
        new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
        new CountingStore(
            new CosmosEffectStore(
                container, StoreCallListener.none(), OrderDocumentIds.PARTITION_KEY_PATH),
            storeCalls),
        ApiAuth.apiKey(API_KEY),
        Duration.ofSeconds(30),
        Duration.ofHours(24),
        64 * 1024,
        clock,
        IntakeFaults.NONE,
        ServerLimits.defaults(),
        Optional::empty,
        webhooks);
  }

  @AfterEach
  void stop() {
    server.close();
    executor.shutdownNow();
  }

  private URI uri(String path) {
    return URI.create("http://127.0.0.1:" + server.port() + path);
  }

  private HttpResponse<String> placeOrder(String orderId, Optional<String> apiKey)
      throws Exception {
    String body =
        "{\"orderId\":\""
            + orderId
            + "\",\"customerId\":\"c-1\",\"currency\":\"EUR\","
            + "\"placedAt\":\"2026-11-30T10:00:00Z\","
            + "\"lines\":[{\"sku\":\"SKU-1\",\"quantity\":2,\"unitPrice\":9.99}]}";
    HttpRequest.Builder request =
        HttpRequest.newBuilder(uri("/orders"))
            .timeout(Duration.ofSeconds(30))
            .header("Content-Type", "application/json")
            .header("Idempotency-Key", "key-" + orderId)
            .POST(HttpRequest.BodyPublishers.ofString(body));
    apiKey.ifPresent(k -> request.header("X-Api-Key", k));
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static String captureSucceeded(String eventId, String orderId, String amount) {
    return """
        {"id":"%s","type":"capture.succeeded","created":"2026-11-30T10:01:00Z",\
        "data":{"captureId":"cap_%s","orderId":"%s","idempotencyKey":"%s-pr",\
        "amount":%s,"currency":"EUR"}}"""
        .formatted(eventId, eventId, orderId, orderId, amount);
  }

  /** {@code t=...,v1=...}: HMAC-SHA256 over {@code t + "." + body}, as the contract says. */
  private static String signature(String secret, long timestamp, String body) {
    return WebhookSender.signature(secret, timestamp, body.getBytes(StandardCharsets.UTF_8));
  }

  private HttpResponse<String> deliver(
      String body, Optional<String> signatureHeader, Optional<String> apiKey) throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(uri("/webhooks/payments"))
            .timeout(Duration.ofSeconds(60))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    signatureHeader.ifPresent(v -> request.header("Webhook-Signature", v));
    apiKey.ifPresent(k -> request.header("X-Api-Key", k));
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private String signedNow(String body) {
    return signature(SECRET, clock.instant().getEpochSecond(), body);
  }

  private JsonNode order(String orderId) {
    return container.readItem(orderId, new PartitionKey(orderId), JsonNode.class).getItem();
  }

  private static String newOrderId() {
    return "api-wh-" + UUID.randomUUID().toString().substring(0, 12);
  }

  @Test
  void stormOfCopiesOfOneSignedEvent_onTheApiPort_isAppliedOnce() throws Exception {
    String orderId = newOrderId();
    assertThat(placeOrder(orderId, Optional.of(API_KEY)).statusCode()).isEqualTo(201);
    String body = captureSucceeded("evt_storm" + orderId.substring(7), orderId, "12.50");
    String signed = signedNow(body);
    int copies = 12;
    CountDownLatch ready = new CountDownLatch(copies);
    CountDownLatch go = new CountDownLatch(1);
    ExecutorService senders = Executors.newFixedThreadPool(copies);
    List<Future<HttpResponse<String>>> answers = new ArrayList<>();
    try {
      for (int i = 0; i < copies; i++) {
        Callable<HttpResponse<String>> send =
            () -> {
              ready.countDown();
              go.await(30, TimeUnit.SECONDS);
              return deliver(body, Optional.of(signed), Optional.empty());
            };
        answers.add(senders.submit(send));
      }
      assertThat(ready.await(30, TimeUnit.SECONDS)).isTrue();
      go.countDown();
      List<String> outcomes = new ArrayList<>();
      for (Future<HttpResponse<String>> answer : answers) {
        HttpResponse<String> response = answer.get(90, TimeUnit.SECONDS);
        // 503 is the handler's answer to contention it could not settle now: redeliver later.
        assertThat(response.statusCode()).isIn(200, 503);
        if (response.statusCode() == 200) {
          outcomes.add(JSON.readTree(response.body()).get("outcome").asText());
        }
      }
      HttpResponse<String> late = deliver(body, Optional.of(signedNow(body)), Optional.empty());

      assertThat(outcomes).filteredOn("processed"::equals).hasSizeLessThanOrEqualTo(1);
      assertThat(late.statusCode()).isEqualTo(200);
      assertThat(
              outcomes.contains("processed")
                  || JSON.readTree(late.body()).get("outcome").asText().equals("processed"))
          .isTrue();
      assertThat(order(orderId).get("confirmedCaptureUnits").asLong()).isEqualTo(125_000);
      assertThat(order(orderId).get("paymentEvents").asLong()).isEqualTo(1);
    } finally {
      senders.shutdownNow();
    }
  }

  /** The store, counting the calls made through it. */
  private record CountingStore(
      io.idemworker.core.EffectStore store, java.util.concurrent.atomic.AtomicInteger calls)
      implements io.idemworker.core.EffectStore {
    @Override
    public io.idemworker.core.EffectStore.WriteResult apply(io.idemworker.core.WriteSet writeSet) {
      calls.incrementAndGet();
      return store.apply(writeSet);
    }

    @Override
    public io.idemworker.core.EffectStore.UpdateResult update(
        String partitionKey, io.idemworker.core.DocumentPatch patch) {
      calls.incrementAndGet();
      return store.update(partitionKey, patch);
    }

    @Override
    public io.idemworker.core.EffectStore.ReadResult read(String partitionKey, String id) {
      calls.incrementAndGet();
      return store.read(partitionKey, id);
    }
  }

  @Test
  void replaysOfACapturedSignedEvent_areAnsweredFromMemory_withoutAStoreRoundTrip()
      throws Exception {
    // given an order and one signed event applied through the api
    String orderId = newOrderId();
    assertThat(placeOrder(orderId, Optional.of(API_KEY)).statusCode()).isEqualTo(201);
    String body = captureSucceeded("evt_replay" + orderId.substring(7), orderId, "3.00");
    String signed = signedNow(body);
    HttpResponse<String> first = deliver(body, Optional.of(signed), Optional.empty());
    assertThat(JSON.readTree(first.body()).get("outcome").asText()).isEqualTo("processed");
    int callsAfterFirst = storeCalls.get();

    // when the captured request is replayed many times inside the tolerance
    for (int i = 0; i < 50; i++) {
      HttpResponse<String> replay = deliver(body, Optional.of(signed), Optional.empty());

      // then each copy is a duplicate, answered without touching the store
      assertThat(replay.statusCode()).isEqualTo(200);
      assertThat(JSON.readTree(replay.body()).get("outcome").asText()).isEqualTo("duplicate");
      assertThat(replay.headers().firstValue("Cache-Control")).contains("no-store");
    }
    assertThat(storeCalls.get()).isEqualTo(callsAfterFirst);
    assertThat(order(orderId).get("paymentEvents").asLong()).isEqualTo(1);
  }

  @Test
  void replaysOfAnEventForAnUnknownOrder_costOneStoreRoundTrip_perMemoryPeriod() throws Exception {
    // given a signed event for an order that does not exist
    String orderId = newOrderId();
    String body = captureSucceeded("evt_unknown" + orderId.substring(7), orderId, "3.00");
    String signed = signedNow(body);
    HttpResponse<String> first = deliver(body, Optional.of(signed), Optional.empty());
    assertThat(first.statusCode()).isEqualTo(503);
    int callsAfterFirst = storeCalls.get();

    // when it is replayed at once, many times
    for (int i = 0; i < 30; i++) {
      HttpResponse<String> replay = deliver(body, Optional.of(signed), Optional.empty());
      assertThat(replay.statusCode()).isEqualTo(503);
      assertThat(replay.headers().firstValue("Retry-After")).isPresent();
    }

    // then no copy reached the store; after the memory period one does again
    assertThat(storeCalls.get()).isEqualTo(callsAfterFirst);
    clock.advance(Duration.ofSeconds(6));
    assertThat(deliver(body, Optional.of(signedNow(body)), Optional.empty()).statusCode())
        .isEqualTo(503);
    assertThat(storeCalls.get()).isGreaterThan(callsAfterFirst);
  }

  @Test
  void webhookAnswers_areProblemsWithoutValues_andOnlyApplicationJsonIsAccepted() throws Exception {
    // given an order
    String orderId = newOrderId();
    assertThat(placeOrder(orderId, Optional.of(API_KEY)).statusCode()).isEqualTo(201);

    // when a look-alike media type, an over-deep body and a reused event id arrive
    HttpResponse<String> lookalike =
        http.send(
            HttpRequest.newBuilder(uri("/webhooks/payments"))
                .header("Content-Type", "application/jsonp")
                .POST(HttpRequest.BodyPublishers.ofString("{}"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    String deep = "[".repeat(1200) + "]".repeat(1200);
    HttpResponse<String> tooDeep = deliver(deep, Optional.of(signedNow(deep)), Optional.empty());
    String eventId = "evt_reuse" + orderId.substring(7);
    String original = captureSucceeded(eventId, orderId, "1.00");
    deliver(original, Optional.of(signedNow(original)), Optional.empty());
    String other = captureSucceeded(eventId, orderId, "2.00");
    HttpResponse<String> reused = deliver(other, Optional.of(signedNow(other)), Optional.empty());

    // then each is a problem that names the rule, not the values, and is not cached
    assertThat(lookalike.statusCode()).isEqualTo(415);
    assertThat(tooDeep.statusCode()).isEqualTo(400);
    assertThat(JSON.readTree(tooDeep.body()).get("detail").asText())
        .doesNotContain("not a JSON object")
        .contains("nests deeper");
    assertThat(reused.statusCode()).isEqualTo(400);
    JsonNode problem = JSON.readTree(reused.body());
    assertThat(problem.get("type").asText())
        .isEqualTo("urn:idemworker:problem:IdempotencyConflict");
    assertThat(problem.get("detail").asText()).doesNotContain(eventId).doesNotContain(orderId);
    for (HttpResponse<String> r : List.of(lookalike, tooDeep, reused)) {
      assertThat(r.headers().firstValue("Content-Type")).contains("application/problem+json");
      assertThat(r.headers().firstValue("Cache-Control")).contains("no-store");
    }
  }

  @Test
  void unsignedOrForgedEvents_areRefused_whetherOrNotTheApiKeyIsSent() throws Exception {
    String orderId = newOrderId();
    assertThat(placeOrder(orderId, Optional.of(API_KEY)).statusCode()).isEqualTo(201);
    String body = captureSucceeded("evt_forged" + orderId.substring(7), orderId, "12.50");
    String forged = signature("whsec_not_the_secret_0000", clock.instant().getEpochSecond(), body);

    HttpResponse<String> forgedWithKey = deliver(body, Optional.of(forged), Optional.of(API_KEY));
    HttpResponse<String> forgedWithoutKey = deliver(body, Optional.of(forged), Optional.empty());
    HttpResponse<String> unsignedWithKey = deliver(body, Optional.empty(), Optional.of(API_KEY));
    HttpResponse<String> unsignedWithoutKey = deliver(body, Optional.empty(), Optional.empty());

    assertThat(List.of(forgedWithKey, forgedWithoutKey))
        .allSatisfy(
            r -> {
              assertThat(r.statusCode()).isEqualTo(401);
              assertThat(JSON.readTree(r.body()).get("reason").asText())
                  .isEqualTo("SignatureMismatch");
              // The webhook's refusal, not the api key's challenge.
              assertThat(r.headers().firstValue("WWW-Authenticate")).isEmpty();
            });
    assertThat(List.of(unsignedWithKey, unsignedWithoutKey))
        .allSatisfy(
            r -> {
              assertThat(r.statusCode()).isEqualTo(400);
              assertThat(JSON.readTree(r.body()).get("reason").asText())
                  .isEqualTo("SignatureMissing");
            });
    assertThat(order(orderId).has("paymentEvents")).isFalse();
  }

  @Test
  void signedEventWithoutTheApiKey_isApplied_butTheOrdersRouteStillRequiresTheKey()
      throws Exception {
    String orderId = newOrderId();

    HttpResponse<String> anonymousOrder = placeOrder(orderId, Optional.empty());
    HttpResponse<String> keyedOrder = placeOrder(orderId, Optional.of(API_KEY));
    String body = captureSucceeded("evt_plain" + orderId.substring(7), orderId, "3.00");
    HttpResponse<String> webhook = deliver(body, Optional.of(signedNow(body)), Optional.empty());

    assertThat(anonymousOrder.statusCode()).isEqualTo(401);
    assertThat(anonymousOrder.headers().firstValue("WWW-Authenticate")).isPresent();
    assertThat(keyedOrder.statusCode()).isEqualTo(201);
    assertThat(webhook.statusCode()).isEqualTo(200);
    assertThat(JSON.readTree(webhook.body()).get("outcome").asText()).isEqualTo("processed");
    assertThat(order(orderId).get("confirmedCaptureUnits").asLong()).isEqualTo(30_000);
  }

  @Test
  void withoutASecret_theWebhookRouteAnswers503NamingTheVariable_andOrdersStillWork()
      throws Exception {
    server.close();
    server = api(OrderApi.Webhooks.unconfigured());
    server.start();
    String orderId = newOrderId();

    HttpResponse<String> placed = placeOrder(orderId, Optional.of(API_KEY));
    String body = captureSucceeded("evt_nosecret" + orderId.substring(7), orderId, "3.00");
    HttpResponse<String> webhook = deliver(body, Optional.of(signedNow(body)), Optional.empty());

    assertThat(placed.statusCode()).isEqualTo(201);
    assertThat(webhook.statusCode()).isEqualTo(503);
    assertThat(webhook.headers().firstValue("Retry-After")).isPresent();
    assertThat(webhook.body()).contains("PAYMENTS_WEBHOOK_SECRET");
    assertThat(order(orderId).has("paymentEvents")).isFalse();
  }
}
