package io.idemworker.payments;

import static org.assertj.core.api.Assertions.assertThat;

import io.idemworker.emulator.payments.PaymentFaults;
import io.idemworker.emulator.payments.PaymentProviderEmulator;
import io.idemworker.emulator.payments.WebhookDelivery;
import io.idemworker.emulator.payments.WebhookSettings;
import io.idemworker.orders.CaptureAnswer;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The double's webhook sender through real HTTP to a scripted receiver: signed events after each
 * capture, at least once (retries on 5xx and timeouts), final answers on 4xx, and the storm and
 * out-of-order faults.
 */
class WebhookSenderTest {
  private static final Duration WAIT = Duration.ofSeconds(20);

  private ScriptedReceiver receiver;
  private PaymentProviderEmulator provider;

  private PaymentProviderEmulator start(WebhookSettings settings) {
    provider = PaymentProviderEmulator.builder().webhooks(settings).start();
    return provider;
  }

  private WebhookSettings settings() throws Exception {
    receiver = new ScriptedReceiver();
    return WebhookSettings.to(receiver.url(), ScriptedReceiver.SECRET)
        .withRetries(Duration.ofSeconds(2), Duration.ofMillis(10), Duration.ofMillis(40), 4)
        .withSettleAfter(Duration.ZERO);
  }

  @AfterEach
  void stop() {
    if (provider != null) {
      provider.close();
    }
    if (receiver != null) {
      receiver.close();
    }
  }

  private CaptureAnswer capture(String orderId, String amount) {
    return new HttpPaymentProvider(provider.baseUrl(), provider.apiKey(), Duration.ofSeconds(10))
        .capture(orderId + "-pr", orderId, new BigDecimal(amount), "EUR");
  }

  private static String orderId() {
    return "ord-" + UUID.randomUUID().toString().substring(0, 8);
  }

  @Test
  void capture_isFollowedByASignedSucceededEvent_carryingTheCapture() throws Exception {
    start(settings().withSettleAfter(Duration.ofHours(1)));
    String orderId = orderId();

    CaptureAnswer answer = capture(orderId, "12.50");
    ScriptedReceiver.Received event = receiver.next();

    assertThat(event.signatureValid()).isTrue();
    assertThat(event.type()).isEqualTo("capture.succeeded");
    assertThat(event.id()).startsWith("evt_");
    assertThat(event.event().get("data").get("orderId").asText()).isEqualTo(orderId);
    assertThat(event.event().get("data").get("idempotencyKey").asText()).isEqualTo(orderId + "-pr");
    assertThat(event.event().get("data").get("amount").decimalValue()).isEqualByComparingTo("12.5");
    assertThat(event.event().get("data").get("captureId").asText())
        .isEqualTo(((CaptureAnswer.Captured) answer).captureId());
  }

  @Test
  void captureAnswer_doesNotWaitForTheReceiver() throws Exception {
    start(settings().withSettleAfter(Duration.ofHours(1)));
    receiver.then("capture.succeeded", ScriptedReceiver.HOLD);

    CaptureAnswer answer = capture(orderId(), "3");
    ScriptedReceiver.Received held = receiver.next();

    assertThat(answer).isInstanceOf(CaptureAnswer.Captured.class);
    assertThat(held.type()).isEqualTo("capture.succeeded");
    receiver.releaseHeld();
  }

  @Test
  void replayedCapture_sendsNoSecondEvent() throws Exception {
    start(settings());
    String orderId = orderId();
    capture(orderId, "3");
    capture(orderId, "3");

    assertThat(provider.webhooks().awaitIdle(WAIT)).isTrue();

    assertThat(provider.webhooks().deliveries())
        .extracting(WebhookDelivery::type)
        .containsExactly("capture.succeeded", "capture.settled");
  }

  @Test
  void declinedCapture_sendsCaptureDeclined_andNoSettlement() throws Exception {
    start(settings());

    capture(orderId(), "5.13");

    assertThat(provider.webhooks().awaitIdle(WAIT)).isTrue();
    assertThat(provider.webhooks().deliveries())
        .extracting(WebhookDelivery::type)
        .containsExactly("capture.declined");
  }

  @Test
  void serverErrors_areRetriedWithTheSameEvent_untilA2xx() throws Exception {
    start(settings());
    receiver.then("capture.succeeded", 500, 503);

    capture(orderId(), "1");
    WebhookDelivery delivery = awaitFinished("capture.succeeded");

    List<ScriptedReceiver.Received> arrivals =
        receiver.received().stream().filter(r -> r.id().equals(delivery.eventId())).toList();
    assertThat(arrivals).hasSize(3);
    assertThat(arrivals).allSatisfy(r -> assertThat(r.signatureValid()).isTrue());
    assertThat(delivery.attempts())
        .extracting(a -> a.status().orElse(0))
        .containsExactly(500, 503, 200);
    assertThat(delivery.copiesDelivered()).isEqualTo(1);
  }

  @Test
  void timedOutAttempt_isRetried_andTheLogNamesTheTimeout() throws Exception {
    start(settings());
    receiver.then("capture.succeeded", ScriptedReceiver.HOLD);

    capture(orderId(), "1");
    WebhookDelivery delivery = awaitFinished("capture.succeeded");
    receiver.releaseHeld();

    assertThat(delivery.attempts().get(0).problem()).contains("timeout");
    assertThat(delivery.attempts().get(1).status()).contains(200);
    assertThat(delivery.copiesDelivered()).isEqualTo(1);
  }

  @Test
  void clientError_isFinal_withoutRetry() throws Exception {
    start(settings());
    receiver.then("capture.succeeded", 400);

    capture(orderId(), "1");
    WebhookDelivery delivery = awaitFinished("capture.succeeded");

    assertThat(delivery.attempts()).hasSize(1);
    assertThat(delivery.copiesRejected()).isEqualTo(1);
  }

  @Test
  void failingReceiver_isGivenUpAfterTheLastAttempt() throws Exception {
    start(settings());
    receiver.then("capture.succeeded", 500, 500, 500, 500);

    capture(orderId(), "1");
    WebhookDelivery delivery = awaitFinished("capture.succeeded");

    assertThat(delivery.attempts()).hasSize(4);
    assertThat(delivery.copiesFailed()).isEqualTo(1);
  }

  @Test
  void duplicateFault_sendsConcurrentCopies_eachDeliveredOnItsOwn() throws Exception {
    start(settings());
    provider.webhooks().faults().duplicate(3, PaymentFaults.Trigger.always());

    capture(orderId(), "1");
    WebhookDelivery delivery = awaitFinished("capture.succeeded");

    assertThat(delivery.copies()).isEqualTo(4);
    assertThat(delivery.copiesDelivered()).isEqualTo(4);
    assertThat(receiver.received()).filteredOn(r -> r.id().equals(delivery.eventId())).hasSize(4);
  }

  @Test
  void reverseFault_deliversTheSettlementBeforeTheSuccess() throws Exception {
    start(settings());
    provider.webhooks().faults().reverseNext(2);

    capture(orderId(), "1");

    assertThat(provider.webhooks().awaitIdle(WAIT)).isTrue();
    assertThat(receiver.received())
        .extracting(ScriptedReceiver.Received::type)
        .containsExactly("capture.settled", "capture.succeeded");
  }

  private WebhookDelivery awaitFinished(String type) throws InterruptedException {
    assertThat(provider.webhooks().awaitIdle(WAIT)).as("sender idle").isTrue();
    Optional<WebhookDelivery> delivery =
        provider.webhooks().deliveries().stream()
            .filter(d -> d.type().equals(type))
            .filter(WebhookDelivery::finished)
            .findFirst();
    assertThat(delivery).as("delivery finished").isPresent();
    return delivery.get();
  }
}
