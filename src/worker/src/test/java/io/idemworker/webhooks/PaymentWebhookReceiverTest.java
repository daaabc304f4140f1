package io.idemworker.webhooks;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.emulator.junit.AzureEmulators;
import io.idemworker.emulator.junit.Emulators;
import io.idemworker.orders.PaymentWebhookEvents;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code POST /webhooks/payments} through real HTTP connections, writing to Cosmos DB (the
 * in-process emulator) through the SDK: signatures, the contract, and redelivery storms whose
 * effects must each land exactly once.
 */
@AzureEmulators(serviceBus = false)
class PaymentWebhookReceiverTest {
  static Emulators azure; // injected by @AzureEmulators
  private static WebhookFixture fixture;

  @BeforeAll
  static void start() throws Exception {
    fixture = WebhookFixture.started(azure);
  }

  @AfterAll
  static void stop() {
    fixture.close();
  }

  @Test
  void signedEvent_isAppliedWithItsMarkerInOneBatch_andAnswered200Processed() {
    String orderId = fixture.placeOrder();
    String eventId = WebhookFixture.newEventId();

    HttpResponse<String> response =
        fixture.deliver(WebhookFixture.succeeded(eventId, orderId, "12.5"));

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(WebhookFixture.json(response).get("outcome").asText()).isEqualTo("processed");
    ObjectNode order = fixture.order(orderId);
    assertThat(order.get("confirmedCaptureUnits").asLong()).isEqualTo(125_000);
    assertThat(order.get("paymentEvents").asLong()).isEqualTo(1);
    assertThat(fixture.marker(orderId, eventId)).isPresent();
  }

  @Test
  void redeliveredEvent_isAnswered200Duplicate_withoutApplyingItAgain() {
    String orderId = fixture.placeOrder();
    String body = WebhookFixture.succeeded(WebhookFixture.newEventId(), orderId, "3");
    fixture.deliver(body);

    HttpResponse<String> again = fixture.deliver(body);

    assertThat(again.statusCode()).isEqualTo(200);
    assertThat(WebhookFixture.json(again).get("outcome").asText()).isEqualTo("duplicate");
    assertThat(fixture.order(orderId).get("confirmedCaptureUnits").asLong()).isEqualTo(30_000);
  }

  @Test
  void signatureWithAnotherSecret_isRefused401_andNothingIsApplied() {
    String orderId = fixture.placeOrder();
    String eventId = WebhookFixture.newEventId();
    String body = WebhookFixture.succeeded(eventId, orderId, "1");

    HttpResponse<String> response =
        fixture.post(
            body,
            Optional.of(
                WebhookFixture.signature(
                    "whsec_someone_else_entirely",
                    fixture.clock.instant().getEpochSecond(),
                    body)));

    assertThat(response.statusCode()).isEqualTo(401);
    assertThat(response.headers().firstValue("Content-Type")).contains("application/problem+json");
    assertThat(WebhookFixture.json(response).get("reason").asText()).isEqualTo("SignatureMismatch");
    assertThat(fixture.order(orderId).has("paymentEvents")).isFalse();
    assertThat(fixture.marker(orderId, eventId)).isEmpty();
  }

  @Test
  void bodyChangedAfterSigning_isRefused401() {
    String orderId = fixture.placeOrder();
    String signed = WebhookFixture.succeeded(WebhookFixture.newEventId(), orderId, "1");
    String header =
        WebhookFixture.signature(
            WebhookFixture.SECRET, fixture.clock.instant().getEpochSecond(), signed);

    HttpResponse<String> response =
        fixture.post(signed.replace("\"amount\":1", "\"amount\":1000"), Optional.of(header));

    assertThat(response.statusCode()).isEqualTo(401);
    assertThat(fixture.order(orderId).has("paymentEvents")).isFalse();
  }

  @Test
  void validSignatureOlderThanTheTolerance_isRefused401AsExpired() {
    String orderId = fixture.placeOrder();
    String body = WebhookFixture.succeeded(WebhookFixture.newEventId(), orderId, "1");
    long sixMinutesAgo = fixture.clock.instant().minus(6, ChronoUnit.MINUTES).getEpochSecond();

    HttpResponse<String> response =
        fixture.post(
            body,
            Optional.of(WebhookFixture.signature(WebhookFixture.SECRET, sixMinutesAgo, body)));

    assertThat(response.statusCode()).isEqualTo(401);
    assertThat(WebhookFixture.json(response).get("reason").asText()).isEqualTo("SignatureExpired");
    assertThat(fixture.order(orderId).has("paymentEvents")).isFalse();
  }

  @Test
  void signatureWithinTheTolerance_isAccepted_evenWhenTheClocksDisagreeALittle() {
    String orderId = fixture.placeOrder();
    String body = WebhookFixture.succeeded(WebhookFixture.newEventId(), orderId, "1");
    long fourMinutesAhead = fixture.clock.instant().plus(4, ChronoUnit.MINUTES).getEpochSecond();

    HttpResponse<String> response =
        fixture.post(
            body,
            Optional.of(WebhookFixture.signature(WebhookFixture.SECRET, fourMinutesAhead, body)));

    assertThat(response.statusCode()).isEqualTo(200);
  }

  @Test
  void missingOrMalformedSignature_isRefused400_namingTheHeader() {
    String orderId = fixture.placeOrder();
    String body = WebhookFixture.succeeded(WebhookFixture.newEventId(), orderId, "1");

    HttpResponse<String> missing = fixture.post(body, Optional.empty());
    HttpResponse<String> malformed = fixture.post(body, Optional.of("t=abc,v1=zz"));

    assertThat(missing.statusCode()).isEqualTo(400);
    assertThat(WebhookFixture.json(missing).get("reason").asText()).isEqualTo("SignatureMissing");
    assertThat(malformed.statusCode()).isEqualTo(400);
    assertThat(WebhookFixture.json(malformed).get("detail").asText()).contains("Webhook-Signature");
    assertThat(fixture.order(orderId).has("paymentEvents")).isFalse();
  }

  @Test
  void receiverWithoutASecret_answers503_soTheProviderKeepsTheEvent() throws Exception {
    try (WebhookFixture unconfigured = new WebhookFixture(azure, Optional.empty())) {
      String orderId = unconfigured.placeOrder();

      HttpResponse<String> response =
          unconfigured.deliver(WebhookFixture.succeeded(WebhookFixture.newEventId(), orderId, "1"));

      assertThat(response.statusCode()).isEqualTo(503);
      assertThat(response.headers().firstValue("Retry-After")).isPresent();
      assertThat(WebhookFixture.json(response).get("detail").asText())
          .contains("PAYMENTS_WEBHOOK_SECRET");
      assertThat(unconfigured.order(orderId).has("paymentEvents")).isFalse();
    }
  }

  @Test
  void eventBreakingTheContract_isRefused400_namingTheFieldPath() {
    String orderId = fixture.placeOrder();
    String body =
        WebhookFixture.succeeded(WebhookFixture.newEventId(), orderId, "-5")
            .replace("\"currency\":\"EUR\"", "\"currency\":\"EUR\",\"tip\":1");

    HttpResponse<String> response = fixture.deliver(body);

    assertThat(response.statusCode()).isEqualTo(400);
    ObjectNode problem = WebhookFixture.json(response);
    assertThat(problem.get("reason").asText()).isEqualTo("SchemaViolation");
    assertThat(problem.get("detail").asText())
        .contains("data.amount must be a number above 0")
        .contains("data.tip is not a field of capture.succeeded data");
  }

  @Test
  void unknownEventType_isRefused400_listingTheHandledTypes() {
    String orderId = fixture.placeOrder();
    String body =
        WebhookFixture.succeeded(WebhookFixture.newEventId(), orderId, "1")
            .replace(PaymentWebhookEvents.CAPTURE_SUCCEEDED, "refund.created");

    HttpResponse<String> response = fixture.deliver(body);

    assertThat(response.statusCode()).isEqualTo(400);
    assertThat(WebhookFixture.json(response).get("detail").asText())
        .contains(PaymentWebhookEvents.CAPTURE_SETTLED);
  }

  @Test
  void eventInAnotherCurrency_isRefused400CurrencyMismatch() {
    String orderId = fixture.placeOrder();
    String eventId = WebhookFixture.newEventId();
    String body =
        WebhookFixture.event(
            eventId, PaymentWebhookEvents.CAPTURE_SUCCEEDED, Instant.now(), orderId, "1", "USD");

    HttpResponse<String> response = fixture.deliver(body);

    assertThat(response.statusCode()).isEqualTo(400);
    assertThat(WebhookFixture.json(response).get("reason").asText()).isEqualTo("CurrencyMismatch");
    assertThat(WebhookFixture.json(response).get("detail").asText())
        .contains("currency")
        .doesNotContain(orderId)
        .doesNotContain(eventId);
    assertThat(fixture.marker(orderId, eventId)).isEmpty();
  }

  @Test
  void eventIdReusedForOtherContent_isRefused400IdempotencyConflict() {
    String orderId = fixture.placeOrder();
    String eventId = WebhookFixture.newEventId();
    fixture.deliver(WebhookFixture.succeeded(eventId, orderId, "2"));

    HttpResponse<String> response =
        fixture.deliver(WebhookFixture.succeeded(eventId, orderId, "9"));

    assertThat(response.statusCode()).isEqualTo(400);
    assertThat(WebhookFixture.json(response).get("reason").asText())
        .isEqualTo("IdempotencyConflict");
    assertThat(fixture.order(orderId).get("confirmedCaptureUnits").asLong()).isEqualTo(20_000);
  }

  @Test
  void eventForAnOrderNotYetArrived_is503WithRetryAfter_andAppliedOnceTheOrderExists() {
    String orderId = "wh-late-" + WebhookFixture.newEventId().substring(4, 16);
    String body = WebhookFixture.succeeded(WebhookFixture.newEventId(), orderId, "4");

    HttpResponse<String> early = fixture.deliver(body);
    fixture.placeOrderWithId(orderId);
    // A sender that honours Retry-After comes back after the receiver's memory of "not yet".
    fixture.clock.advance(
        Duration.ofSeconds(Long.parseLong(early.headers().firstValue("Retry-After").orElse("0"))));
    HttpResponse<String> later = fixture.deliver(body);

    assertThat(early.statusCode()).isEqualTo(503);
    assertThat(early.headers().firstValue("Retry-After")).isPresent();
    assertThat(WebhookFixture.json(early).get("reason").asText()).isEqualTo("NotYet");
    assertThat(later.statusCode()).isEqualTo(200);
    assertThat(fixture.order(orderId).get("confirmedCaptureUnits").asLong()).isEqualTo(40_000);
  }

  @Test
  void settledBeforeSucceeded_outOfOrder_bothApplyOnce_andSettledAtIsTheEventsTime() {
    String orderId = fixture.placeOrder();
    Instant capturedAt = Instant.parse("2026-12-01T00:00:00Z");
    Instant settledAt = Instant.parse("2026-12-02T06:00:00Z");
    String succeeded =
        WebhookFixture.event(
            WebhookFixture.newEventId(),
            PaymentWebhookEvents.CAPTURE_SUCCEEDED,
            capturedAt,
            orderId,
            "7.25",
            "EUR");
    String settled =
        WebhookFixture.event(
            WebhookFixture.newEventId(),
            PaymentWebhookEvents.CAPTURE_SETTLED,
            settledAt,
            orderId,
            "7.25",
            "EUR");

    assertThat(fixture.deliver(settled).statusCode()).isEqualTo(200);
    assertThat(fixture.deliver(succeeded).statusCode()).isEqualTo(200);
    assertThat(fixture.deliver(settled).statusCode()).isEqualTo(200);

    ObjectNode order = fixture.order(orderId);
    assertThat(order.get("settledAt").asText()).isEqualTo(settledAt.toString());
    assertThat(order.get("settledUnits").asLong()).isEqualTo(72_500);
    assertThat(order.get("confirmedCaptureUnits").asLong()).isEqualTo(72_500);
    assertThat(order.get("paymentEvents").asLong()).isEqualTo(2);
  }

  @Test
  void redeliveryStorm_ofManyEventsEachSentManyTimesConcurrently_appliesEachEffectExactlyOnce()
      throws Exception {
    int orders = 8;
    int eventsPerOrder = 3;
    int copies = 6;
    List<String> orderIds = new ArrayList<>();
    List<String> bodies = new ArrayList<>();
    for (int o = 0; o < orders; o++) {
      String orderId = fixture.placeOrder();
      orderIds.add(orderId);
      for (int e = 0; e < eventsPerOrder; e++) {
        bodies.add(WebhookFixture.succeeded(WebhookFixture.newEventId(), orderId, "1.5"));
      }
    }
    List<Callable<HttpResponse<String>>> deliveries = new ArrayList<>();
    for (int c = 0; c < copies; c++) {
      for (String body : bodies) {
        deliveries.add(() -> fixture.deliver(body));
      }
    }
    ExecutorService storm = Executors.newFixedThreadPool(24);
    List<HttpResponse<String>> responses = new ArrayList<>();
    try {
      for (Future<HttpResponse<String>> future : storm.invokeAll(deliveries)) {
        responses.add(future.get(60, TimeUnit.SECONDS));
      }
    } finally {
      storm.shutdownNow();
    }

    assertThat(responses).allSatisfy(r -> assertThat(r.statusCode()).isEqualTo(200));
    Map<String, Long> outcomes =
        responses.stream()
            .map(r -> WebhookFixture.json(r).get("outcome").asText())
            .collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
    assertThat(outcomes)
        .containsEntry("processed", (long) bodies.size())
        .containsEntry("duplicate", (long) bodies.size() * (copies - 1));
    for (String orderId : orderIds) {
      ObjectNode order = fixture.order(orderId);
      assertThat(order.get("paymentEvents").asLong()).as(orderId).isEqualTo(eventsPerOrder);
      assertThat(order.get("confirmedCaptureUnits").asLong())
          .as(orderId)
          .isEqualTo(eventsPerOrder * 15_000L);
    }
  }

  @Test
  void wrongMethodPathOrContentType_areRefusedWithoutTouchingTheStore() {
    assertThat(fixture.post("{}", Optional.empty()).statusCode()).isEqualTo(400);
    java.net.http.HttpClient client = java.net.http.HttpClient.newHttpClient();
    assertThat(
            send(client, java.net.http.HttpRequest.newBuilder(fixture.url()).GET().build())
                .statusCode())
        .isEqualTo(405);
    assertThat(
            send(
                    client,
                    java.net.http.HttpRequest.newBuilder(fixture.url())
                        .header("Content-Type", "text/plain")
                        .POST(java.net.http.HttpRequest.BodyPublishers.ofString("x"))
                        .build())
                .statusCode())
        .isEqualTo(415);
    assertThat(
            send(
                    client,
                    java.net.http.HttpRequest.newBuilder(
                            fixture.url().resolve(PaymentWebhookHandler.PATH + "/extra"))
                        .header("Content-Type", "application/json")
                        .POST(java.net.http.HttpRequest.BodyPublishers.ofString("{}"))
                        .build())
                .statusCode())
        .isEqualTo(404);
    assertThat(
            send(
                    client,
                    java.net.http.HttpRequest.newBuilder(fixture.url())
                        .timeout(Duration.ofSeconds(30))
                        .header("Content-Type", "application/json")
                        .POST(
                            java.net.http.HttpRequest.BodyPublishers.ofString(
                                "x".repeat(PaymentWebhookHandler.MAX_BODY_BYTES + 1)))
                        .build())
                .statusCode())
        .isEqualTo(413);
  }

  private static HttpResponse<String> send(
      java.net.http.HttpClient client, java.net.http.HttpRequest request) {
    try {
      return client.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
