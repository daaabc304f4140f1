package io.idemworker.proof.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.idemworker.emulator.junit.AzureEmulators;
import io.idemworker.emulator.junit.Emulators;
import io.idemworker.http.ApiServer;
import io.idemworker.http.IntakeFaults;
import io.idemworker.http.OrderApi;
import io.idemworker.testing.EmulatorClients;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

@AzureEmulators(serviceBus = false)
class HttpBenchTest {
  static Emulators azure;

  @Test
  void smallBench_postsEveryOrderOnce_andReportsTheRate() {
    // given an api on the Cosmos DB emulator
    ApiServer api =
        OrderApi.local(
            EmulatorClients.orders(azure),
            Duration.ofSeconds(30),
            Duration.ofDays(1),
            Clock.systemUTC(),
            IntakeFaults.NONE,
            8,
            OrderApi.Webhooks.unconfigured());
    api.start();
    try {
      // when the bench posts 40 orders from 4 clients after 5 of warm-up
      CapturedRun run =
          CapturedRun.of(
              HttpBench::new,
              "--url",
              "http://127.0.0.1:" + api.port(),
              "--orders",
              "40",
              "--warm-up",
              "5",
              "--concurrency",
              "4");

      // then every answer was 201 and the line to quote is printed
      assertThat(run.exit()).as(run.output()).isZero();
      assertThat(run.output())
          .containsPattern("POST /orders: 40 orders in [0-9.]+ s = [0-9]+ orders/s with 4 clients")
          .contains("statuses {201=40}");
    } finally {
      api.close();
    }
  }

  @Test
  void outOfRangeOptions_areRefused() {
    assertThat(CapturedRun.of(HttpBench::new, "--concurrency", "0").exit()).isEqualTo(2);
    assertThat(CapturedRun.of(HttpBench::new, "--orders", "0").exit()).isEqualTo(2);
  }
}
