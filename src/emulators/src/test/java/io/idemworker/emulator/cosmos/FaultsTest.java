package io.idemworker.emulator.cosmos;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Fault bookkeeping without HTTP. */
class FaultsTest {
  private final Faults faults = new Faults();

  private List<Integer> statuses(Operation op, int requests) {
    List<Integer> out = new ArrayList<>();
    for (int i = 0; i < requests; i++) {
      out.add(faults.onRequest(op).failure().map(Fault::statusCode).orElse(0));
    }
    return out;
  }

  @Test
  void limitedFault_firesThatManyTimesThenDisarms() {
    faults.inject(Operation.CREATE, Fault.status(429).times(2));

    assertThat(statuses(Operation.CREATE, 4)).containsExactly(429, 429, 0, 0);
  }

  @Test
  void unlimitedFault_staysUntilCleared() {
    faults.inject(Operation.READ, Fault.status(403));

    assertThat(statuses(Operation.READ, 3)).containsExactly(403, 403, 403);
    faults.clear(Operation.READ);
    assertThat(statuses(Operation.READ, 1)).containsExactly(0);
  }

  @Test
  void failNth_failsExactlyTheNthRequest() {
    faults.failNth(Operation.BATCH, 3, Fault.status(503));

    assertThat(statuses(Operation.BATCH, 5)).containsExactly(0, 0, 503, 0, 0);
  }

  @Test
  void faultsOfOneOperation_doNotTouchAnother() {
    faults.inject(Operation.DELETE, Fault.status(503));

    assertThat(statuses(Operation.CREATE, 2)).containsExactly(0, 0);
  }

  @Test
  void latencies_addUp_andDoNotFailTheRequest() {
    faults.inject(Operation.READ, Fault.latency(Duration.ofMillis(5)));
    faults.inject(Operation.READ, Fault.latency(Duration.ofMillis(7)).times(1));

    Faults.Outcome first = faults.onRequest(Operation.READ);
    Faults.Outcome second = faults.onRequest(Operation.READ);

    assertThat(first.latency()).isEqualTo(Duration.ofMillis(12));
    assertThat(first.failure()).isEmpty();
    assertThat(second.latency()).isEqualTo(Duration.ofMillis(5));
  }

  @Test
  void throttleDefaults_areSubStatus3200AndARetryAfter() {
    Fault f = Fault.status(429);

    assertThat(f.subStatusCode()).isEqualTo(3200);
    assertThat(f.retryAfterDelay()).isPositive();
  }

  @Test
  void latencyWithSpread_isDrawnPerRequestAroundItsMean() {
    faults.injectLatency(Duration.ofMillis(10), 0.5);

    List<Long> nanos = new ArrayList<>();
    for (int i = 0; i < 2_000; i++) {
      nanos.add(faults.onRequest(Operation.BATCH).latency().toNanos());
    }

    assertThat(nanos).allSatisfy(n -> assertThat(n).isBetween(5_000_000L, 15_000_000L));
    assertThat(nanos.stream().mapToLong(Long::longValue).average().orElseThrow())
        .isCloseTo(10_000_000, org.assertj.core.data.Offset.offset(500_000.0));
    assertThat(nanos.stream().mapToLong(Long::longValue).min().orElseThrow()).isLessThan(6_000_000);
    assertThat(nanos.stream().mapToLong(Long::longValue).max().orElseThrow())
        .isGreaterThan(14_000_000);
  }

  @Test
  void latencyWithoutSpread_isExactlyTheMean() {
    faults.injectLatency(Duration.ofMillis(10), 0);

    assertThat(faults.onRequest(Operation.BATCH).latency()).isEqualTo(Duration.ofMillis(10));
    assertThat(faults.onRequest(Operation.READ).latency()).isEqualTo(Duration.ofMillis(10));
  }

  @Test
  void latencySpreadOutsideZeroToOne_isRejected() {
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> Fault.latency(Duration.ofMillis(1), 1.01))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("spread");
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> faults.injectLatency(Duration.ofMillis(1), Double.NaN))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void timesKeepsTheSpread_withLatencyReplacesItByAConstant() {
    faults.inject(Operation.READ, Fault.latency(Duration.ofMillis(10), 1).times(500));
    long distinct =
        java.util.stream.IntStream.range(0, 500)
            .mapToLong(i -> faults.onRequest(Operation.READ).latency().toNanos())
            .distinct()
            .count();
    assertThat(distinct).isGreaterThan(400);

    faults.inject(
        Operation.CREATE,
        Fault.latency(Duration.ofMillis(10), 1).withLatency(Duration.ofMillis(3)));
    assertThat(faults.onRequest(Operation.CREATE).latency()).isEqualTo(Duration.ofMillis(3));
    assertThat(faults.onRequest(Operation.CREATE).latency()).isEqualTo(Duration.ofMillis(3));
  }
}
