package io.idemworker.payments;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idemworker.emulator.payments.PaymentFaults.Pause;
import io.idemworker.emulator.payments.PaymentFaults.Trigger;
import io.idemworker.emulator.payments.PaymentProviderEmulator;
import io.idemworker.orders.CaptureAnswer;
import io.idemworker.orders.CaptureAnswer.Ambiguous;
import io.idemworker.orders.CaptureAnswer.Captured;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class PaymentProviderEmulatorLifecycleTest {

  @Test
  void closeWhileAnExecutionIsHeld_cutsItAndGivesTheKeyUp_andARestartServesTheRetry()
      throws Exception {
    PaymentProviderEmulator emulator = PaymentProviderEmulator.builder().start();
    try {
      Pause pause = emulator.faults().pauseBeforeApply(Trigger.next(1));
      CompletableFuture<CaptureAnswer> cut =
          CompletableFuture.supplyAsync(
              () -> provider(emulator).capture("pay-1", "ord-1", BigDecimal.ONE, "EUR"));
      assertThat(pause.awaitHeld(Duration.ofSeconds(30))).isTrue();

      emulator.close();
      CaptureAnswer whileHeld = cut.get(30, TimeUnit.SECONDS);
      emulator.start();
      CaptureAnswer retried = provider(emulator).capture("pay-1", "ord-1", BigDecimal.ONE, "EUR");

      assertThat(whileHeld).isInstanceOf(Ambiguous.class);
      assertThat(retried)
          .isInstanceOfSatisfying(Captured.class, c -> assertThat(c.replayed()).isFalse());
      assertThat(emulator.stats().executed()).isEqualTo(1);
    } finally {
      emulator.close();
    }
  }

  @Test
  void portBeforeStart_isRefused() {
    PaymentProviderEmulator emulator = PaymentProviderEmulator.builder().build();

    assertThatThrownBy(emulator::port).hasMessageContaining("not started");
  }

  @Test
  void badSettings_areRefusedNamingThem() {
    PaymentProviderEmulator.Builder builder = PaymentProviderEmulator.builder();

    assertThatThrownBy(() -> builder.port(70_000)).hasMessageContaining("port must be in 0..65535");
    assertThatThrownBy(() -> builder.apiKey("has space")).hasMessageContaining("apiKey");
    assertThatThrownBy(() -> builder.keyRetention(Duration.ZERO))
        .hasMessageContaining("keyRetention");
    assertThatThrownBy(() -> builder.threads(0)).hasMessageContaining("threads");
  }

  private static HttpPaymentProvider provider(PaymentProviderEmulator emulator) {
    return new HttpPaymentProvider(emulator.baseUrl(), emulator.apiKey(), Duration.ofSeconds(30));
  }
}
