package io.idemworker.emulator.payments;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.idemworker.testing.MutableClock;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The double's HTTP answers, over real connections with the JDK's client. */
class PaymentProviderEmulatorHttpTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String BODY =
      "{\"orderId\":\"ord-1\",\"amount\":\"9.90\",\"currency\":\"EUR\"}";

  private final MutableClock clock = new MutableClock(Instant.parse("2026-11-30T10:00:00Z"));
  private final HttpClient http =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private PaymentProviderEmulator emulator;

  @BeforeEach
  void start() {
    emulator = PaymentProviderEmulator.builder().clock(clock).start();
  }

  @AfterEach
  void stop() {
    emulator.close();
  }

  @Test
  void firstCapture_isExecutedAndAnswered201WithTheCapture() throws Exception {
    HttpResponse<String> response = post("key-1", BODY);

    assertThat(response.statusCode()).isEqualTo(201);
    assertThat(response.headers().firstValue("Idempotent-Replayed")).isEmpty();
    assertThat(response.headers().firstValue("Idempotency-Key")).contains("key-1");
    JsonNode body = JSON.readTree(response.body());
    assertThat(body.get("id").asText()).startsWith("cap_");
    assertThat(body.get("status").asText()).isEqualTo("captured");
    assertThat(body.get("orderId").asText()).isEqualTo("ord-1");
    assertThat(body.get("amount").asText()).isEqualTo("9.9");
    assertThat(body.get("currency").asText()).isEqualTo("EUR");
    assertThat(body.get("createdAt").asText()).isEqualTo("2026-11-30T10:00:00Z");
    assertThat(emulator.stats().executed()).isEqualTo(1);
  }

  @Test
  void repeatWithEqualParameters_replaysTheStoredAnswerMarkedReplayed() throws Exception {
    HttpResponse<String> first = post("key-1", BODY);

    HttpResponse<String> repeat =
        post("key-1", "{\"currency\":\"EUR\",\"amount\":9.9,\"orderId\":\"ord-1\"}");

    assertThat(repeat.statusCode()).isEqualTo(201);
    assertThat(repeat.body()).isEqualTo(first.body());
    assertThat(repeat.headers().firstValue("Idempotent-Replayed")).contains("true");
    assertThat(emulator.stats().executed()).isEqualTo(1);
    assertThat(emulator.stats().replays()).isEqualTo(1);
  }

  @Test
  void sameKeyWithOtherParameters_is422NamingTheDifferingField() throws Exception {
    post("key-1", BODY);

    HttpResponse<String> reused =
        post("key-1", "{\"orderId\":\"ord-1\",\"amount\":\"9.91\",\"currency\":\"EUR\"}");

    assertThat(reused.statusCode()).isEqualTo(422);
    JsonNode error = JSON.readTree(reused.body()).get("error");
    assertThat(error.get("code").asText()).isEqualTo("idempotency_key_reused");
    assertThat(error.get("message").asText()).endsWith("differing: amount");
    assertThat(emulator.stats().keyConflicts()).isEqualTo(1);
    assertThat(ledger("")).hasSize(1);
  }

  @Test
  void declinedAmount_is402AndReplayedAs402() throws Exception {
    String declining = "{\"orderId\":\"ord-1\",\"amount\":\"20.13\",\"currency\":\"EUR\"}";

    HttpResponse<String> first = post("key-1", declining);
    HttpResponse<String> repeat = post("key-1", declining);

    assertThat(first.statusCode()).isEqualTo(402);
    JsonNode body = JSON.readTree(first.body());
    assertThat(body.get("status").asText()).isEqualTo("declined");
    assertThat(body.get("declineCode").asText()).isEqualTo("card_declined");
    assertThat(repeat.statusCode()).isEqualTo(402);
    assertThat(repeat.body()).isEqualTo(first.body());
    assertThat(repeat.headers().firstValue("Idempotent-Replayed")).contains("true");
    assertThat(ledger("?orderId=ord-1"))
        .singleElement()
        .satisfies(c -> assertThat(c.get("status").asText()).isEqualTo("declined"));
  }

  @Test
  void missingOrWrongApiKey_is401AndExecutesNothing() throws Exception {
    HttpResponse<String> wrong =
        send(captureRequest("key-1", BODY).setHeader("Authorization", "Bearer sk_test_other"));
    HttpResponse<String> missing =
        send(
            HttpRequest.newBuilder(captures(""))
                .header("Idempotency-Key", "key-1")
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(BODY)));
    HttpResponse<String> ledger = send(HttpRequest.newBuilder(captures("")).GET());

    assertThat(wrong.statusCode()).isEqualTo(401);
    assertThat(missing.statusCode()).isEqualTo(401);
    assertThat(ledger.statusCode()).isEqualTo(401);
    assertThat(JSON.readTree(wrong.body()).at("/error/type").asText())
        .isEqualTo("authentication_error");
    assertThat(emulator.stats().executed()).isZero();
  }

  @Test
  void missingOrOverlongIdempotencyKey_is400NamingTheHeader() throws Exception {
    HttpResponse<String> missing =
        send(
            HttpRequest.newBuilder(captures(""))
                .header("Authorization", "Bearer " + emulator.apiKey())
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(BODY)));
    HttpResponse<String> overlong = post("k".repeat(256), BODY);

    assertThat(missing.statusCode()).isEqualTo(400);
    assertThat(JSON.readTree(missing.body()).at("/error/param").asText())
        .isEqualTo("Idempotency-Key");
    assertThat(overlong.statusCode()).isEqualTo(400);
    assertThat(post("k".repeat(255), BODY).statusCode()).isEqualTo(201);
  }

  static Stream<Arguments> invalidBodies() {
    return Stream.of(
        Arguments.of("{\"amount\":\"1\",\"currency\":\"EUR\"}", "orderId"),
        Arguments.of("{\"orderId\":\"o 1\",\"amount\":\"1\",\"currency\":\"EUR\"}", "orderId"),
        Arguments.of("{\"orderId\":\"o\",\"amount\":\"0\",\"currency\":\"EUR\"}", "amount"),
        Arguments.of("{\"orderId\":\"o\",\"amount\":-5,\"currency\":\"EUR\"}", "amount"),
        Arguments.of("{\"orderId\":\"o\",\"amount\":1.23456,\"currency\":\"EUR\"}", "amount"),
        Arguments.of("{\"orderId\":\"o\",\"amount\":\"1e3\",\"currency\":\"EUR\"}", "amount"),
        Arguments.of("{\"orderId\":\"o\",\"amount\":true,\"currency\":\"EUR\"}", "amount"),
        Arguments.of("{\"orderId\":\"o\",\"amount\":\"1\",\"currency\":\"eur\"}", "currency"),
        Arguments.of("{\"orderId\":\"o\",\"amount\":\"1\",\"currency\":\"ABC\"}", "currency"),
        Arguments.of("{\"orderId\":\"o\",\"amount\":\"1\",\"currency\":\"EUR\",\"tip\":1}", "tip"),
        Arguments.of("{\"orderId\":\"o\",\"amount\":\"1\",\"amount\":\"2\"}", "body"),
        Arguments.of("[1]", "body"),
        Arguments.of("not json", "body"));
  }

  @ParameterizedTest
  @MethodSource("invalidBodies")
  void invalidBody_is400NamingTheField_andStoresNothingForTheKey(String body, String field)
      throws Exception {
    HttpResponse<String> rejected = post("key-1", body);

    assertThat(rejected.statusCode()).isEqualTo(400);
    JsonNode error = JSON.readTree(rejected.body()).get("error");
    assertThat(error.get("type").asText()).isEqualTo("invalid_request_error");
    assertThat(error.get("param").asText()).isEqualTo(field);
    assertThat(error.get("message").asText()).doesNotContain("Exception");
    assertThat(post("key-1", BODY).statusCode()).isEqualTo(201);
  }

  @Test
  void bodyThatIsNotJson_is415() throws Exception {
    HttpResponse<String> response =
        send(captureRequest("key-1", BODY).setHeader("Content-Type", "text/plain"));

    assertThat(response.statusCode()).isEqualTo(415);
  }

  @Test
  void unknownPathIs404_andOtherMethodsAre405() throws Exception {
    HttpResponse<String> unknown =
        send(
            HttpRequest.newBuilder(emulator.baseUrl().resolve("/v1/refunds"))
                .header("Authorization", "Bearer " + emulator.apiKey())
                .GET());
    HttpResponse<String> delete =
        send(
            HttpRequest.newBuilder(captures(""))
                .header("Authorization", "Bearer " + emulator.apiKey())
                .DELETE());

    assertThat(unknown.statusCode()).isEqualTo(404);
    assertThat(delete.statusCode()).isEqualTo(405);
    assertThat(delete.headers().firstValue("Allow")).contains("GET, POST");
  }

  @Test
  void storedAnswer_isReplayedFor24Hours_thenTheKeyExecutesAgain() throws Exception {
    String firstId = JSON.readTree(post("key-1", BODY).body()).get("id").asText();

    clock.advance(Duration.ofHours(24).minusMillis(1));
    HttpResponse<String> lastReplay = post("key-1", BODY);
    clock.advance(Duration.ofMillis(1));
    HttpResponse<String> afterExpiry = post("key-1", BODY);

    assertThat(lastReplay.headers().firstValue("Idempotent-Replayed")).contains("true");
    assertThat(JSON.readTree(lastReplay.body()).get("id").asText()).isEqualTo(firstId);
    assertThat(afterExpiry.statusCode()).isEqualTo(201);
    assertThat(afterExpiry.headers().firstValue("Idempotent-Replayed")).isEmpty();
    assertThat(JSON.readTree(afterExpiry.body()).get("id").asText()).isNotEqualTo(firstId);
    assertThat(ledger("?orderId=ord-1")).hasSize(2);
  }

  @Test
  void ledger_listsExecutedCapturesByOrder_withoutReplays() throws Exception {
    post("key-a1", "{\"orderId\":\"ord-a\",\"amount\":\"1\",\"currency\":\"EUR\"}");
    post("key-a1", "{\"orderId\":\"ord-a\",\"amount\":\"1.00\",\"currency\":\"EUR\"}");
    post("key-b1", "{\"orderId\":\"ord-b\",\"amount\":\"2\",\"currency\":\"USD\"}");
    post("key-a2", "{\"orderId\":\"ord-a\",\"amount\":\"3\",\"currency\":\"EUR\"}");

    JsonNode orderA = ledger("?orderId=ord-a");
    JsonNode all = ledger("");
    JsonNode none = ledger("?orderId=ord-z");

    assertThat(orderA).hasSize(2);
    assertThat(orderA.get(0).get("idempotencyKey").asText()).isEqualTo("key-a1");
    assertThat(orderA.get(1).get("idempotencyKey").asText()).isEqualTo("key-a2");
    assertThat(all).hasSize(3);
    assertThat(none).isEmpty();
    assertThat(
            send(HttpRequest.newBuilder(captures("?status=captured"))
                    .header("Authorization", "Bearer " + emulator.apiKey())
                    .GET())
                .statusCode())
        .isEqualTo(400);
  }

  private JsonNode ledger(String query) throws IOException, InterruptedException {
    HttpResponse<String> response =
        send(
            HttpRequest.newBuilder(captures(query))
                .header("Authorization", "Bearer " + emulator.apiKey())
                .GET());
    assertThat(response.statusCode()).isEqualTo(200);
    return JSON.readTree(response.body());
  }

  private HttpResponse<String> post(String key, String body)
      throws IOException, InterruptedException {
    return send(captureRequest(key, body));
  }

  private HttpRequest.Builder captureRequest(String key, String body) {
    return HttpRequest.newBuilder(captures(""))
        .header("Authorization", "Bearer " + emulator.apiKey())
        .header("Idempotency-Key", key)
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body));
  }

  private URI captures(String query) {
    return URI.create(emulator.baseUrl() + "/v1/captures" + query);
  }

  private HttpResponse<String> send(HttpRequest.Builder request)
      throws IOException, InterruptedException {
    return http.send(
        request.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
  }
}
