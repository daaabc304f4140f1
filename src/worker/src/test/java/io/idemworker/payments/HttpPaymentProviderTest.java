package io.idemworker.payments;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.idemworker.emulator.payments.PaymentFaults.Pause;
import io.idemworker.emulator.payments.PaymentFaults.Trigger;
import io.idemworker.emulator.payments.PaymentProviderEmulator;
import io.idemworker.orders.CaptureAnswer;
import io.idemworker.orders.CaptureAnswer.Ambiguous;
import io.idemworker.orders.CaptureAnswer.Captured;
import io.idemworker.orders.CaptureAnswer.Declined;
import io.idemworker.orders.CaptureAnswer.InFlight;
import io.idemworker.orders.CaptureAnswer.KeyConflict;
import io.idemworker.orders.CaptureAnswer.Rejected;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The adapter against the payment provider double, over real HTTP connections. */
class HttpPaymentProviderTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final BigDecimal AMOUNT = new BigDecimal("42.50");

  private PaymentProviderEmulator emulator;
  private HttpPaymentProvider provider;

  @BeforeEach
  void start() {
    emulator = PaymentProviderEmulator.builder().start();
    provider =
        new HttpPaymentProvider(emulator.baseUrl(), emulator.apiKey(), Duration.ofSeconds(30));
  }

  @AfterEach
  void stop() {
    emulator.close();
  }

  @Test
  void firstCapture_isCaptured_andARepeatIsTheSameCaptureReplayed() {
    CaptureAnswer first = provider.capture("pay-1", "ord-1", AMOUNT, "EUR");
    CaptureAnswer repeat = provider.capture("pay-1", "ord-1", new BigDecimal("42.5"), "EUR");

    assertThat(first).isInstanceOf(Captured.class);
    Captured captured = (Captured) first;
    assertThat(captured.replayed()).isFalse();
    assertThat(repeat).isEqualTo(new Captured(captured.captureId(), true));
    assertThat(ledger("ord-1")).hasSize(1);
  }

  @Test
  void amountEndingIn13_isDeclined_andReplayedAsDeclined() {
    CaptureAnswer first = provider.capture("pay-1", "ord-1", new BigDecimal("7.13"), "EUR");
    CaptureAnswer repeat = provider.capture("pay-1", "ord-1", new BigDecimal("7.13"), "EUR");

    assertThat(first).isEqualTo(new Declined("card_declined", false));
    assertThat(repeat).isEqualTo(new Declined("card_declined", true));
  }

  @Test
  void sameKeyWithOtherAmount_isKeyConflictNamingTheAmount() {
    provider.capture("pay-1", "ord-1", AMOUNT, "EUR");

    CaptureAnswer reused = provider.capture("pay-1", "ord-1", new BigDecimal("42.51"), "EUR");

    assertThat(reused).isInstanceOf(KeyConflict.class);
    assertThat(((KeyConflict) reused).description()).startsWith("HTTP 422").contains("amount");
    assertThat(ledger("ord-1")).hasSize(1);
  }

  @Test
  void sameKeyWhileTheFirstIsInFlight_isInFlight_andExactlyOneCaptureExecutes() throws Exception {
    Pause pause = emulator.faults().pauseBeforeApply(Trigger.next(1));
    CompletableFuture<CaptureAnswer> first =
        CompletableFuture.supplyAsync(() -> provider.capture("pay-1", "ord-1", AMOUNT, "EUR"));
    assertThat(pause.awaitHeld(Duration.ofSeconds(30))).isTrue();

    CaptureAnswer second = provider.capture("pay-1", "ord-1", AMOUNT, "EUR");
    pause.release();

    assertThat(second).isEqualTo(new InFlight());
    assertThat(first.get(30, TimeUnit.SECONDS))
        .isInstanceOfSatisfying(Captured.class, c -> assertThat(c.replayed()).isFalse());
    assertThat(ledger("ord-1")).hasSize(1);
    assertThat(emulator.stats().inFlightConflicts()).isEqualTo(1);
  }

  @Test
  void failureBeforeApply_isAmbiguous_andARetryWithTheKeyCapturesOnce() {
    emulator.faults().failBeforeApply(Trigger.next(1));

    CaptureAnswer failed = provider.capture("pay-1", "ord-1", AMOUNT, "EUR");
    assertThat(ledger("ord-1")).isEmpty();
    CaptureAnswer retried = provider.capture("pay-1", "ord-1", AMOUNT, "EUR");

    assertThat(failed).isInstanceOf(Ambiguous.class);
    assertThat(((Ambiguous) failed).description()).startsWith("HTTP 500");
    assertThat(retried)
        .isInstanceOfSatisfying(Captured.class, c -> assertThat(c.replayed()).isFalse());
    assertThat(ledger("ord-1")).hasSize(1);
  }

  @Test
  void connectionDroppedAfterApply_isAmbiguous_andARetryReplaysTheStoredCapture() throws Exception {
    emulator.faults().applyThenDropConnection(Trigger.next(1));

    CaptureAnswer dropped = provider.capture("pay-1", "ord-1", AMOUNT, "EUR");
    CaptureAnswer retried = provider.capture("pay-1", "ord-1", AMOUNT, "EUR");

    assertThat(dropped).isInstanceOf(Ambiguous.class);
    assertThat(((Ambiguous) dropped).description()).startsWith("connection failed");
    JsonNode ledger = ledger("ord-1");
    assertThat(ledger).hasSize(1);
    assertThat(retried).isEqualTo(new Captured(ledger.get(0).get("id").asText(), true));
    assertThat(emulator.stats().faulted()).isEqualTo(1);
  }

  @Test
  void noAnswerWithinTheTimeout_isAmbiguous_andTheKeyLaterReplaysTheCapture() throws Exception {
    HttpPaymentProvider impatient =
        new HttpPaymentProvider(emulator.baseUrl(), emulator.apiKey(), Duration.ofSeconds(2));
    Pause pause = emulator.faults().pauseBeforeApply(Trigger.next(1));
    CompletableFuture<CaptureAnswer> waiting =
        CompletableFuture.supplyAsync(() -> impatient.capture("pay-1", "ord-1", AMOUNT, "EUR"));
    assertThat(pause.awaitHeld(Duration.ofSeconds(30))).isTrue();

    CaptureAnswer timedOut = waiting.get(30, TimeUnit.SECONDS);
    pause.release();
    CaptureAnswer resolved =
        retryWhileInFlight(() -> provider.capture("pay-1", "ord-1", AMOUNT, "EUR"));

    assertThat(timedOut).isInstanceOf(Ambiguous.class);
    assertThat(((Ambiguous) timedOut).description()).startsWith("no answer within PT2S");
    assertThat(resolved)
        .isInstanceOfSatisfying(Captured.class, c -> assertThat(c.replayed()).isTrue());
    assertThat(ledger("ord-1")).hasSize(1);
  }

  @Test
  void wrongApiKey_isRejected401_andNothingIsCaptured() {
    HttpPaymentProvider misconfigured =
        new HttpPaymentProvider(emulator.baseUrl(), "sk_test_wrong", Duration.ofSeconds(30));

    CaptureAnswer answer = misconfigured.capture("pay-1", "ord-1", AMOUNT, "EUR");

    assertThat(answer).isInstanceOf(Rejected.class);
    assertThat(((Rejected) answer).status()).isEqualTo(401);
    assertThat(emulator.stats().executed()).isZero();
  }

  @Test
  void invalidAmount_isRejected400NamingTheAmount() {
    CaptureAnswer answer = provider.capture("pay-1", "ord-1", new BigDecimal("0.00001"), "EUR");

    assertThat(answer).isInstanceOf(Rejected.class);
    Rejected rejected = (Rejected) answer;
    assertThat(rejected.status()).isEqualTo(400);
    assertThat(rejected.description()).contains("amount");
  }

  @Test
  void keyThatHttpCannotCarry_isRejectedWithoutSending() {
    CaptureAnswer answer = provider.capture("pay 1\n", "ord-1", AMOUNT, "EUR");
    CaptureAnswer missing = provider.capture("pay-1", null, AMOUNT, "EUR");

    assertThat(answer).isInstanceOf(Rejected.class);
    assertThat(((Rejected) answer).status()).isZero();
    assertThat(missing).isInstanceOf(Rejected.class);
    assertThat(emulator.stats().requests()).isZero();
  }

  @Test
  void unreachableProvider_isAmbiguous() {
    URI baseUrl = emulator.baseUrl();
    emulator.close();

    CaptureAnswer answer =
        new HttpPaymentProvider(baseUrl, emulator.apiKey(), Duration.ofSeconds(5))
            .capture("pay-1", "ord-1", AMOUNT, "EUR");

    assertThat(answer).isInstanceOf(Ambiguous.class);
  }

  @Test
  void baseUrlWithTrailingSlash_reachesTheSameApi() {
    HttpPaymentProvider slashed =
        new HttpPaymentProvider(
            URI.create(emulator.baseUrl() + "/"), emulator.apiKey(), Duration.ofSeconds(30));

    assertThat(slashed.capture("pay-1", "ord-1", AMOUNT, "EUR")).isInstanceOf(Captured.class);
  }

  /** Retries as the payment flow would: the released first attempt may still be completing. */
  private static CaptureAnswer retryWhileInFlight(Supplier<CaptureAnswer> call)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    CaptureAnswer answer = call.get();
    while (answer instanceof InFlight && System.nanoTime() < deadline) {
      TimeUnit.MILLISECONDS.sleep(10);
      answer = call.get();
    }
    return answer;
  }

  private JsonNode ledger(String orderId) {
    try {
      HttpResponse<String> response =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(
                          URI.create(emulator.baseUrl() + "/v1/captures?orderId=" + orderId))
                      .header("Authorization", "Bearer " + emulator.apiKey())
                      .timeout(Duration.ofSeconds(30))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      assertThat(response.statusCode()).isEqualTo(200);
      return JSON.readTree(response.body());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
