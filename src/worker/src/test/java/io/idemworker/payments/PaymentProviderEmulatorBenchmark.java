package io.idemworker.payments;

import static org.assertj.core.api.Assertions.assertThat;

import io.idemworker.emulator.payments.PaymentProviderEmulator;
import io.idemworker.orders.CaptureAnswer;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Captures per second through {@link HttpPaymentProvider}: one caller (latency per request over a
 * kept-alive connection, where a delayed-ACK stall would show as ~40 ms) and 16 callers. Run with
 * {@code mvn -B verify -Pbench -Dtest=PaymentProviderEmulatorBenchmark}.
 */
@Tag("benchmark")
class PaymentProviderEmulatorBenchmark {
  private static final int MEASURED = Integer.getInteger("bench.ops", 10_000);
  private static final int CONCURRENCY = 16;

  @Test
  void capturesOneCallerAndSixteenCallers() throws Exception {
    try (PaymentProviderEmulator emulator = PaymentProviderEmulator.builder().start()) {
      HttpPaymentProvider provider =
          new HttpPaymentProvider(emulator.baseUrl(), emulator.apiKey(), Duration.ofSeconds(30));
      AtomicInteger keys = new AtomicInteger();
      sequential(provider, keys, 1_000);

      long[] latencies = sequential(provider, keys, MEASURED / 5);
      Arrays.sort(latencies);
      long started = System.nanoTime();
      concurrent(provider, keys, MEASURED);
      double seconds = (System.nanoTime() - started) / 1e9;

      System.out.printf(
          Locale.ROOT,
          "payments emulator: 1 caller p50 %.2f ms p99 %.2f ms; %d callers %.0f captures/s%n",
          latencies[latencies.length / 2] / 1e6,
          latencies[latencies.length * 99 / 100] / 1e6,
          CONCURRENCY,
          MEASURED / seconds);
      assertThat(emulator.stats().executed()).isEqualTo(keys.get());
    }
  }

  private static long[] sequential(HttpPaymentProvider provider, AtomicInteger keys, int n) {
    long[] latencies = new long[n];
    for (int i = 0; i < n; i++) {
      long start = System.nanoTime();
      capture(provider, keys.incrementAndGet());
      latencies[i] = System.nanoTime() - start;
    }
    return latencies;
  }

  private static void concurrent(HttpPaymentProvider provider, AtomicInteger keys, int n)
      throws Exception {
    ExecutorService callers = Executors.newFixedThreadPool(CONCURRENCY);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int c = 0; c < CONCURRENCY; c++) {
        done.add(
            callers.submit(
                () -> {
                  for (int i = 0; i < n / CONCURRENCY; i++) {
                    capture(provider, keys.incrementAndGet());
                  }
                }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      callers.shutdownNow();
    }
  }

  private static void capture(HttpPaymentProvider provider, int key) {
    CaptureAnswer answer = provider.capture("pay-" + key, "ord-" + key, BigDecimal.TEN, "EUR");
    assertThat(answer).isInstanceOf(CaptureAnswer.Captured.class);
  }
}
