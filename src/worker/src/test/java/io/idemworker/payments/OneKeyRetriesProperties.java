package io.idemworker.payments;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.idemworker.emulator.payments.PaymentFaults.Trigger;
import io.idemworker.emulator.payments.PaymentProviderEmulator;
import io.idemworker.orders.CaptureAnswer;
import io.idemworker.orders.CaptureAnswer.Ambiguous;
import io.idemworker.orders.CaptureAnswer.Captured;
import io.idemworker.orders.CaptureAnswer.Declined;
import java.io.IOException;
import java.math.BigDecimal;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * Whatever faults the attempts meet, retrying one key never executes more than one capture, and
 * once an attempt gets a final answer every later one replays it.
 */
class OneKeyRetriesProperties {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final AtomicInteger ORDERS = new AtomicInteger();
  private static PaymentProviderEmulator emulator;
  private static HttpPaymentProvider provider;
  private static HttpClient http;

  enum Attempt {
    CLEAN,
    FAIL_BEFORE_APPLY,
    APPLY_THEN_DROP
  }

  @BeforeContainer
  static void start() {
    emulator = PaymentProviderEmulator.builder().start();
    provider =
        new HttpPaymentProvider(emulator.baseUrl(), emulator.apiKey(), Duration.ofSeconds(30));
    http = HttpClient.newHttpClient();
  }

  @AfterContainer
  static void stop() {
    emulator.close();
  }

  @Property(tries = 60)
  void retriesWithOneKey_executeAtMostOneCapture(
      @ForAll @Size(min = 1, max = 6) List<Attempt> attempts,
      @ForAll @IntRange(min = 1, max = 99_999) int cents)
      throws Exception {
    String orderId = "ord-" + ORDERS.incrementAndGet();
    String key = "pay-" + orderId;
    BigDecimal amount = BigDecimal.valueOf(cents, 2);
    Set<CaptureAnswer> finalAnswers = new HashSet<>();

    for (Attempt attempt : attempts) {
      arm(attempt);
      CaptureAnswer answer = provider.capture(key, orderId, amount, "EUR");
      emulator.faults().clear();
      assertThat(ledgerSize(orderId)).isLessThanOrEqualTo(1);
      assertThat(answer).isInstanceOfAny(Captured.class, Declined.class, Ambiguous.class);
      if (!(answer instanceof Ambiguous)) {
        finalAnswers.add(unreplayed(answer));
      }
    }
    CaptureAnswer last = provider.capture(key, orderId, amount, "EUR");
    finalAnswers.add(unreplayed(last));

    assertThat(ledgerSize(orderId)).isEqualTo(1);
    assertThat(finalAnswers).as("one final answer, replayed alike").hasSize(1);
  }

  private static void arm(Attempt attempt) {
    switch (attempt) {
      case FAIL_BEFORE_APPLY -> emulator.faults().failBeforeApply(Trigger.next(1));
      case APPLY_THEN_DROP -> emulator.faults().applyThenDropConnection(Trigger.next(1));
      case CLEAN -> {}
    }
  }

  private static CaptureAnswer unreplayed(CaptureAnswer answer) {
    if (answer instanceof Captured captured) {
      return new Captured(captured.captureId(), false);
    }
    if (answer instanceof Declined declined) {
      return new Declined(declined.declineCode(), false);
    }
    return answer;
  }

  private static int ledgerSize(String orderId) throws IOException, InterruptedException {
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(
                    URI.create(emulator.baseUrl() + "/v1/captures?orderId=" + orderId))
                .header("Authorization", "Bearer " + emulator.apiKey())
                .timeout(Duration.ofSeconds(30))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(200);
    return JSON.readTree(response.body()).size();
  }
}
