package io.idemworker.webhooks;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.core.Outcome;
import io.idemworker.emulator.junit.AzureEmulators;
import io.idemworker.emulator.junit.Emulators;
import io.idemworker.emulator.payments.PaymentFaults;
import io.idemworker.emulator.payments.PaymentProviderEmulator;
import io.idemworker.emulator.payments.WebhookDelivery;
import io.idemworker.emulator.payments.WebhookSettings;
import io.idemworker.orders.Orders;
import io.idemworker.payments.HttpPaymentProvider;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * End to end through real HTTP: the queue's flow captures through the payment double, the double
 * delivers its webhooks at least once (storms, timeouts, out of order) to the receiver, and Cosmos
 * DB holds every effect exactly once.
 */
@AzureEmulators(serviceBus = false)
class PaymentWebhookEndToEndTest {
  static Emulators azure; // injected by @AzureEmulators
  private static final Duration WAIT = Duration.ofSeconds(60);

  private WebhookFixture receiver;
  private PaymentProviderEmulator provider;

  /**
   * Starts the receiver and the double. A timeout shorter than the receiver takes would turn a
   * processed answer into a lost one and its retry into a duplicate: only the stall test wants
   * that.
   */
  private void start(Duration requestTimeout) throws Exception {
    receiver = WebhookFixture.started(azure);
    provider =
        PaymentProviderEmulator.builder()
            .webhooks(
                WebhookSettings.to(receiver.url(), WebhookFixture.SECRET)
                    .withRetries(requestTimeout, Duration.ofMillis(20), Duration.ofMillis(200), 10)
                    .withSettleAfter(Duration.ZERO))
            .start();
    receiver.capturingWith(
        new HttpPaymentProvider(provider.baseUrl(), provider.apiKey(), Duration.ofSeconds(10)));
  }

  @AfterEach
  void stop() {
    provider.close();
    receiver.close();
  }

  @Test
  void capture_thenStormOfWebhookCopies_setsSettledAtOnce_andCountsEachEventOnce()
      throws Exception {
    start(Duration.ofSeconds(30));
    provider.webhooks().faults().duplicate(5, PaymentFaults.Trigger.always());
    String orderId = receiver.placeOrder();

    Outcome captured = receiver.handle(Orders.payment(orderId, orderId + "-pr", "19.99", "EUR"));

    assertThat(captured).isInstanceOf(Outcome.Processed.class);
    assertThat(provider.webhooks().awaitIdle(WAIT)).isTrue();
    List<WebhookDelivery> deliveries = provider.webhooks().deliveries();
    assertThat(deliveries)
        .extracting(WebhookDelivery::type)
        .containsExactlyInAnyOrder("capture.succeeded", "capture.settled");
    assertThat(deliveries).allSatisfy(d -> assertThat(d.copiesDelivered()).isEqualTo(6));
    assertThat(outcomes(deliveries)).containsEntry("processed", 2L).containsEntry("duplicate", 10L);
    ObjectNode order = receiver.order(orderId);
    assertThat(order.get("amountPaidUnits").asLong()).isEqualTo(199_900);
    assertThat(order.get("confirmedCaptureUnits").asLong()).isEqualTo(199_900);
    assertThat(order.get("settledUnits").asLong()).isEqualTo(199_900);
    assertThat(order.get("paymentEvents").asLong()).isEqualTo(2);
    assertThat(order.has("settledAt")).isTrue();
  }

  @Test
  void receiverSlowerThanTheSendersTimeout_appliesOnce_whenTheStalledCopyArrivesLate()
      throws Exception {
    start(Duration.ofSeconds(1));
    receiver.stallNext(1);
    String orderId = receiver.placeOrder();

    receiver.handle(Orders.payment(orderId, orderId + "-pr", "5", "EUR"));
    assertThat(provider.webhooks().awaitIdle(WAIT)).isTrue();
    assertThat(receiver.releaseStalled()).isTrue();

    List<WebhookDelivery> deliveries = provider.webhooks().deliveries();
    assertThat(deliveries)
        .flatExtracting(WebhookDelivery::attempts)
        .anySatisfy(a -> assertThat(a.problem()).contains("timeout"));
    ObjectNode order = receiver.order(orderId);
    assertThat(order.get("confirmedCaptureUnits").asLong()).isEqualTo(50_000);
    assertThat(order.get("settledUnits").asLong()).isEqualTo(50_000);
    assertThat(order.get("paymentEvents").asLong()).isEqualTo(2);
  }

  @Test
  void settlementDeliveredBeforeTheSuccess_isAppliedOnceAll() throws Exception {
    start(Duration.ofSeconds(30));
    provider.webhooks().faults().reverseNext(2);
    String orderId = receiver.placeOrder();

    receiver.handle(Orders.payment(orderId, orderId + "-pr", "8", "EUR"));
    assertThat(provider.webhooks().awaitIdle(WAIT)).isTrue();

    List<WebhookDelivery> deliveries = provider.webhooks().deliveries();
    WebhookDelivery settled =
        deliveries.stream().filter(d -> d.type().equals("capture.settled")).findFirst().get();
    WebhookDelivery succeeded =
        deliveries.stream().filter(d -> d.type().equals("capture.succeeded")).findFirst().get();
    assertThat(settled.attempts().get(0).at()).isBeforeOrEqualTo(succeeded.attempts().get(0).at());
    ObjectNode order = receiver.order(orderId);
    assertThat(order.get("paymentEvents").asLong()).isEqualTo(2);
    assertThat(order.get("settledUnits").asLong()).isEqualTo(80_000);
  }

  private static Map<String, Long> outcomes(List<WebhookDelivery> deliveries) {
    return deliveries.stream()
        .flatMap(d -> d.attempts().stream())
        .filter(WebhookDelivery.Attempt::succeeded)
        .map(a -> WebhookFixture.JSON.valueToTree(parse(a.responseBody())).get("outcome").asText())
        .collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
  }

  private static ObjectNode parse(String body) {
    try {
      return (ObjectNode) WebhookFixture.JSON.readTree(body);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
