package io.idemworker.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.models.PartitionKey;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.core.IdempotentConsumer;
import io.idemworker.core.IncomingMessage;
import io.idemworker.core.Outcome;
import io.idemworker.core.TestFlow;
import io.idemworker.cosmos.CosmosEffectStore;
import io.idemworker.cosmos.StoreCallListener;
import io.idemworker.emulator.cosmos.Fault;
import io.idemworker.emulator.cosmos.Operation;
import io.idemworker.emulator.junit.AzureEmulators;
import io.idemworker.emulator.junit.Emulators;
import io.idemworker.http.server.ServerLimits;
import io.idemworker.orders.InboxMarkers;
import io.idemworker.orders.OrderDocumentIds;
import io.idemworker.orders.OrderMessageTypes;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The HTTP order intake through real HTTP connections, against the Cosmos DB emulator through the
 * real SDK: one order per key and per orderId, identical replays, 409 while in flight, 422 on
 * reuse, the window, a crash between the commit and the answer, and the queue and HTTP meeting on
 * one order.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
@AzureEmulators(serviceBus = false)
class OrderApiTest {
  static Emulators azure; // injected by @AzureEmulators
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String API_KEY = "test-key-0123456789abcdef";
  private static final Duration LEASE = Duration.ofSeconds(30);
  private static final Duration WINDOW = Duration.ofHours(24);

  private final CosmosContainer container = EmulatorClients.orders(azure);
  private final CosmosEffectStore store =
      new CosmosEffectStore(
          container, StoreCallListener.none(), OrderDocumentIds.PARTITION_KEY_PATH);
  private final MutableClock clock = new MutableClock();
  private final ExecutorService executor = Executors.newFixedThreadPool(8);
  private final HttpClient http = HttpClient.newHttpClient();
  private final AtomicInteger crashesAfterCommit = new AtomicInteger();
  private ApiServer server;

  @BeforeEach
  void start() {
    IntakeFaults faults =
        new IntakeFaults() {
          @Override
          public void afterCommit(String orderId) {
            if (crashesAfterCommit.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
              throw new Crash("after commit");
            }
          }
        };
    server =
        OrderApi.create(
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
            store,
            ApiAuth.apiKey(API_KEY),
            LEASE,
            WINDOW,
            64 * 1024,
            clock,
            faults,
            ServerLimits.defaults().withMaxInFlight(8),
            Optional::empty,
            OrderApi.Webhooks.unconfigured());
    server.start();
  }

  @AfterEach
  void stop() {
    server.close();
    executor.shutdownNow();
    azure.cosmos().faults().clear();
  }

  private static String order(String orderId, String customerId) {
    return "{\"orderId\":\""
        + orderId
        + "\",\"customerId\":\""
        + customerId
        + "\",\"currency\":\"EUR\",\"placedAt\":\"2026-11-30T10:00:00Z\","
        + "\"lines\":[{\"sku\":\"SKU-1\",\"quantity\":2,\"unitPrice\":9.99},"
        + "{\"sku\":\"SKU-2\",\"quantity\":1,\"unitPrice\":5}]}";
  }

  private HttpRequest.Builder request(String path) {
    return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
        .timeout(Duration.ofSeconds(30))
        .header("X-Api-Key", API_KEY);
  }

  private HttpResponse<String> post(String key, String body) throws Exception {
    HttpRequest.Builder builder =
        request("/orders")
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (key != null) {
      builder.header("Idempotency-Key", key);
    }
    return http.send(builder.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** Every document in the order's partition: the order, its lines, its outbox event. */
  private List<JsonNode> partition(String orderId) {
    List<JsonNode> documents = new ArrayList<>();
    container.readAllItems(new PartitionKey(orderId), JsonNode.class).forEach(documents::add);
    return documents;
  }

  private long orders(String orderId) {
    return partition(orderId).stream().filter(d -> "order".equals(d.path("type").asText())).count();
  }

  private long outboxEvents(String orderId) {
    return partition(orderId).stream()
        .filter(d -> "outbox".equals(d.path("type").asText()))
        .count();
  }

  private static JsonNode json(HttpResponse<String> response) throws IOException {
    return JSON.readTree(response.body());
  }

  @Test
  void firstRequest_is201WithTheOrder_andARepeatIsTheSameAnswerMarkedAsReplay() throws Exception {
    String orderId = "ord-" + UUID.randomUUID();
    String key = UUID.randomUUID().toString();

    HttpResponse<String> first = post(key, order(orderId, "cust-1"));
    HttpResponse<String> repeat = post(key, order(orderId, "cust-1"));

    assertThat(first.statusCode()).isEqualTo(201);
    assertThat(first.headers().firstValue("Location")).contains("/orders/" + orderId);
    assertThat(first.headers().firstValue("Idempotent-Replayed")).isEmpty();
    JsonNode shown = json(first);
    assertThat(shown.path("orderId").asText()).isEqualTo(orderId);
    assertThat(shown.path("total").decimalValue()).isEqualByComparingTo("24.98");
    assertThat(shown.path("lines")).hasSize(2);
    assertThat(repeat.statusCode()).isEqualTo(201);
    assertThat(repeat.headers().firstValue("Idempotent-Replayed")).contains("true");
    assertThat(repeat.headers().firstValue("Location")).contains("/orders/" + orderId);
    assertThat(repeat.body()).isEqualTo(first.body());
    assertThat(orders(orderId)).isEqualTo(1);
    assertThat(outboxEvents(orderId)).isEqualTo(1);
  }

  @Test
  void concurrentIdenticalRequests_makeExactlyOneOrder_andEveryAnswerIsTheOrderOrInFlight()
      throws Exception {
    String orderId = "ord-" + UUID.randomUUID();
    String key = UUID.randomUUID().toString();
    int clients = 8;
    CountDownLatch go = new CountDownLatch(1);
    ExecutorService callers = Executors.newFixedThreadPool(clients);
    List<Future<HttpResponse<String>>> answers = new ArrayList<>();
    try {
      for (int i = 0; i < clients; i++) {
        Callable<HttpResponse<String>> call =
            () -> {
              go.await();
              return post(key, order(orderId, "cust-1"));
            };
        answers.add(callers.submit(call));
      }
      go.countDown();
      List<HttpResponse<String>> responses = new ArrayList<>();
      for (Future<HttpResponse<String>> answer : answers) {
        responses.add(answer.get(60, TimeUnit.SECONDS));
      }

      assertThat(responses).allSatisfy(r -> assertThat(r.statusCode()).isIn(201, 409));
      List<HttpResponse<String>> created =
          responses.stream().filter(r -> r.statusCode() == 201).toList();
      assertThat(created).isNotEmpty();
      assertThat(created).extracting(HttpResponse::body).containsOnly(created.get(0).body());
      assertThat(
              created.stream().filter(r -> r.headers().firstValue("Idempotent-Replayed").isEmpty()))
          .hasSize(1);
      responses.stream()
          .filter(r -> r.statusCode() == 409)
          .forEach(r -> assertThat(r.headers().firstValue("Retry-After")).isPresent());
      assertThat(orders(orderId)).isEqualTo(1);
      assertThat(outboxEvents(orderId)).isEqualTo(1);
    } finally {
      callers.shutdownNow();
    }
  }

  @Test
  void crashBetweenCommitAndAnswer_isInFlightUntilTheLeaseEnds_thenTheSameOrderReplayed()
      throws Exception {
    String orderId = "ord-" + UUID.randomUUID();
    String key = UUID.randomUUID().toString();
    crashesAfterCommit.set(1);

    assertThatThrownBy(() -> post(key, order(orderId, "cust-1"))).isInstanceOf(IOException.class);
    HttpResponse<String> tooSoon = post(key, order(orderId, "cust-1"));
    clock.advance(LEASE.plusSeconds(1));
    HttpResponse<String> retry = post(key, order(orderId, "cust-1"));
    HttpResponse<String> again = post(key, order(orderId, "cust-1"));
    HttpResponse<String> read =
        http.send(
            request("/orders/" + orderId).GET().build(), HttpResponse.BodyHandlers.ofString());

    assertThat(tooSoon.statusCode()).isEqualTo(409);
    assertThat(Long.parseLong(tooSoon.headers().firstValue("Retry-After").orElseThrow()))
        .isBetween(1L, LEASE.toSeconds());
    assertThat(tooSoon.headers().firstValue("Content-Type")).contains("application/problem+json");
    assertThat(retry.statusCode()).isEqualTo(201);
    assertThat(retry.headers().firstValue("Idempotent-Replayed")).contains("true");
    assertThat(json(retry)).isEqualTo(json(read));
    assertThat(again.statusCode()).isEqualTo(201);
    assertThat(again.body()).isEqualTo(retry.body());
    assertThat(orders(orderId)).isEqualTo(1);
    assertThat(outboxEvents(orderId)).isEqualTo(1);
  }

  @Test
  void sameKeyWithAnotherBody_is422NamingTheDifferingFields_andWritesNothing() throws Exception {
    String orderId = "ord-" + UUID.randomUUID();
    String otherId = "ord-" + UUID.randomUUID();
    String key = UUID.randomUUID().toString();
    post(key, order(orderId, "cust-1"));

    HttpResponse<String> reused = post(key, order(otherId, "cust-2"));

    assertThat(reused.statusCode()).isEqualTo(422);
    assertThat(reused.headers().firstValue("Content-Type")).contains("application/problem+json");
    JsonNode problem = json(reused);
    assertThat(problem.path("reason").asText()).isEqualTo("IdempotencyKeyReused");
    assertThat(problem.path("status").asInt()).isEqualTo(422);
    assertThat(problem.path("detail").asText()).contains("customerId").contains("orderId");
    assertThat(partition(otherId)).isEmpty();
  }

  @Test
  void noKey_is400_andAMalformedKeyToo() throws Exception {
    String orderId = "ord-" + UUID.randomUUID();

    HttpResponse<String> none = post(null, order(orderId, "cust-1"));
    HttpResponse<String> tooLong = post("k".repeat(256), order(orderId, "cust-1"));

    assertThat(none.statusCode()).isEqualTo(400);
    assertThat(json(none).path("reason").asText()).isEqualTo("IdempotencyKeyMissing");
    assertThat(tooLong.statusCode()).isEqualTo(400);
    assertThat(json(tooLong).path("reason").asText()).isEqualTo("IdempotencyKeyInvalid");
    assertThat(partition(orderId)).isEmpty();
  }

  @Test
  void aQuotedKey_isTheSameKeyAsTheBareOne() throws Exception {
    String orderId = "ord-" + UUID.randomUUID();
    String key = UUID.randomUUID().toString();
    post(key, order(orderId, "cust-1"));

    HttpResponse<String> quoted = post("\"" + key + "\"", order(orderId, "cust-1"));

    assertThat(quoted.statusCode()).isEqualTo(201);
    assertThat(quoted.headers().firstValue("Idempotent-Replayed")).contains("true");
  }

  @Test
  void invalidOrder_is400NamingTheFieldAsTheDeadLetterDoes_andLeavesTheKeyFree() throws Exception {
    String orderId = "ord-" + UUID.randomUUID();
    String key = UUID.randomUUID().toString();
    String bad = order(orderId, "cust-1").replace("\"quantity\":2", "\"quantity\":0");

    HttpResponse<String> refused = post(key, bad);
    HttpResponse<String> fixed = post(key, order(orderId, "cust-1"));

    assertThat(refused.statusCode()).isEqualTo(400);
    JsonNode problem = json(refused);
    assertThat(problem.path("reason").asText()).isEqualTo("SchemaViolation");
    assertThat(problem.path("detail").asText()).contains("lines[0].quantity");
    assertThat(problem.path("type").asText()).isEqualTo("urn:idemworker:problem:SchemaViolation");
    assertThat(fixed.statusCode()).isEqualTo(201);
    assertThat(fixed.headers().firstValue("Idempotent-Replayed")).isEmpty();
  }

  @Test
  void afterTheWindow_theKeyIsForgotten_butTheOrderStillAnswersForItself() throws Exception {
    String orderId = "ord-" + UUID.randomUUID();
    String otherId = "ord-" + UUID.randomUUID();
    String key = UUID.randomUUID().toString();
    post(key, order(orderId, "cust-1"));
    clock.advance(WINDOW.plusSeconds(1));

    HttpResponse<String> sameBody = post(key, order(orderId, "cust-1"));
    clock.advance(WINDOW.plusSeconds(1));
    HttpResponse<String> otherBody = post(key, order(otherId, "cust-2"));

    assertThat(sameBody.statusCode()).isEqualTo(201);
    assertThat(sameBody.headers().firstValue("Idempotent-Replayed")).contains("true");
    assertThat(otherBody.statusCode()).isEqualTo(201);
    assertThat(json(otherBody).path("orderId").asText()).isEqualTo(otherId);
    assertThat(orders(orderId)).isEqualTo(1);
    assertThat(orders(otherId)).isEqualTo(1);
  }

  @Test
  void insideTheWindow_anotherBodyUnderAKeyAnsweredLongAgo_isStillRefused() throws Exception {
    String key = UUID.randomUUID().toString();
    post(key, order("ord-" + UUID.randomUUID(), "cust-1"));
    clock.advance(WINDOW.minusSeconds(1));

    HttpResponse<String> reused = post(key, order("ord-" + UUID.randomUUID(), "cust-1"));

    assertThat(reused.statusCode()).isEqualTo(422);
  }

  @Test
  void anOrderThatCameByTheQueue_andThenByHttp_isOneOrder() throws Exception {
    String orderId = "ord-" + UUID.randomUUID();
    byte[] body = order(orderId, "cust-1").getBytes(StandardCharsets.UTF_8);
    IdempotentConsumer worker =
        TestFlow.of(
                OrderMessageTypes.decoder(true, new InboxMarkers("orders", Optional.empty())),
                store)
            .clock(clock)
            .build();
    Outcome fromQueue =
        worker.handle(
            new IncomingMessage(
                Optional.of(orderId),
                Optional.empty(),
                Optional.of("OrderPlaced"),
                Optional.of("application/json"),
                Map.of(),
                body,
                0));

    HttpResponse<String> viaHttp = post(UUID.randomUUID().toString(), order(orderId, "cust-1"));
    HttpResponse<String> conflicting =
        post(UUID.randomUUID().toString(), order(orderId, "cust-other"));

    assertThat(fromQueue).isInstanceOf(Outcome.Processed.class);
    assertThat(viaHttp.statusCode()).isEqualTo(201);
    assertThat(viaHttp.headers().firstValue("Idempotent-Replayed")).contains("true");
    assertThat(conflicting.statusCode()).isEqualTo(422);
    assertThat(json(conflicting).path("reason").asText()).isEqualTo("OrderConflict");
    assertThat(json(conflicting).path("detail").asText()).contains("customerId");
    assertThat(orders(orderId)).isEqualTo(1);
    assertThat(outboxEvents(orderId)).isEqualTo(1);
  }

  @Test
  void aStoreOutageDuringTheWrite_is503WithRetryAfter_andTheRetryIsNotKeptWaiting()
      throws Exception {
    String orderId = "ord-" + UUID.randomUUID();
    String key = UUID.randomUUID().toString();
    // The claim is the first batch; the order's write the second.
    azure.cosmos().faults().failNth(Operation.BATCH, 2, Fault.status(503));

    HttpResponse<String> outage = post(key, order(orderId, "cust-1"));
    HttpResponse<String> retry = post(key, order(orderId, "cust-1"));

    assertThat(outage.statusCode()).isEqualTo(503);
    assertThat(outage.headers().firstValue("Retry-After")).isPresent();
    assertThat(retry.statusCode()).isEqualTo(201);
    assertThat(orders(orderId)).isEqualTo(1);
  }

  @Test
  void wrongMediaType_is415_wrongMethod_is405_tooLarge_is413_unknownPath_is404() throws Exception {
    HttpResponse<String> text =
        http.send(
            request("/orders")
                .header("Idempotency-Key", "k1")
                .header("Content-Type", "text/plain")
                .POST(HttpRequest.BodyPublishers.ofString("hello"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    HttpResponse<String> put =
        http.send(
            request("/orders").PUT(HttpRequest.BodyPublishers.ofString("{}")).build(),
            HttpResponse.BodyHandlers.ofString());
    HttpResponse<String> large = post("k2", "{\"x\":\"" + "a".repeat(70 * 1024) + "\"}");
    HttpResponse<String> unknown =
        http.send(request("/nothing").GET().build(), HttpResponse.BodyHandlers.ofString());

    assertThat(text.statusCode()).isEqualTo(415);
    assertThat(put.statusCode()).isEqualTo(405);
    assertThat(put.headers().firstValue("Allow")).contains("POST");
    assertThat(large.statusCode()).isEqualTo(413);
    assertThat(unknown.statusCode()).isEqualTo(404);
    assertThat(List.of(text, put, large, unknown))
        .allSatisfy(
            r ->
                assertThat(r.headers().firstValue("Content-Type"))
                    .contains("application/problem+json"));
  }

  @Test
  void withoutTheApiKey_is401WithAChallenge_butHealthNeedsNone() throws Exception {
    HttpResponse<String> anonymous =
        http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/orders"))
                .header("Content-Type", "application/json")
                .header("Idempotency-Key", "k")
                .POST(HttpRequest.BodyPublishers.ofString(order("ord-x", "c")))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    HttpResponse<String> wrongKey =
        http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/orders"))
                .header("X-Api-Key", API_KEY + "x")
                .header("Content-Type", "application/json")
                .header("Idempotency-Key", "k")
                .POST(HttpRequest.BodyPublishers.ofString(order("ord-x", "c")))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    HttpResponse<String> live =
        http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/health/live"))
                .build(),
            HttpResponse.BodyHandlers.ofString());

    assertThat(anonymous.statusCode()).isEqualTo(401);
    assertThat(anonymous.headers().firstValue("WWW-Authenticate")).isPresent();
    assertThat(wrongKey.statusCode()).isEqualTo(401);
    assertThat(live.statusCode()).isEqualTo(200);
    assertThat(partition("ord-x")).isEmpty();
  }

  @Test
  void twoClientsWithTheSameKey_doNotMeet() {
    String key = "shared-key";

    assertThat(OrderIntake.recordId("apikey", key))
        .isNotEqualTo(OrderIntake.recordId("entra:0000-1111", key))
        .startsWith("request:")
        .hasSize("request:".length() + 64);
  }

  @Test
  void theStoredAnswerCarriesATtlBeyondTheWindow() throws Exception {
    String key = UUID.randomUUID().toString();
    post(key, order("ord-" + UUID.randomUUID(), "cust-1"));
    String recordId = OrderIntake.recordId("apikey", key);

    ObjectNode record =
        container.readItem(recordId, new PartitionKey(recordId), ObjectNode.class).getItem();

    assertThat(record.path("status").asText()).isEqualTo("Completed");
    assertThat(record.path("ttl").asLong()).isGreaterThanOrEqualTo(WINDOW.toSeconds());
    assertThat(record.path("response").path("status").asInt()).isEqualTo(201);
  }
}
