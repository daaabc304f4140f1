package io.idemworker.emulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class LatenciesTest {
  /** 2.1 ms: a millisecond-rounding wait (JDK 17's {@code TimeUnit.sleep}) takes 3 ms or more. */
  private static final long WAIT_NANOS = 2_100_000;

  @Test
  void aSubMillisecondPartIsNotRoundedUpToAWholeMillisecond() throws InterruptedException {
    long shortest = Long.MAX_VALUE;
    for (int i = 0; i < 50; i++) {
      long start = System.nanoTime();
      Latencies.awaitNanoTime(start + WAIT_NANOS);
      long took = System.nanoTime() - start;
      assertThat(took).as("never ends before its deadline").isGreaterThanOrEqualTo(WAIT_NANOS);
      shortest = Math.min(shortest, took);
    }
    // The old wait could not end before 3.0 ms; one of 50 ending within 0.8 ms of scheduler slack
    // is enough to tell the two apart on a loaded machine.
    assertThat(shortest).isLessThan(TimeUnit.MICROSECONDS.toNanos(2_900));
  }

  @Test
  @Timeout(10)
  void aDeadlineInThePastReturnsAtOnce() throws InterruptedException {
    Latencies.awaitNanoTime(System.nanoTime() - 1);
    Latencies.await(Duration.ZERO);
    Latencies.await(Duration.ofMillis(-5));
  }

  @Test
  @Timeout(10)
  void anInterruptEndsTheWaitWithInterruptedException() {
    try {
      Thread.currentThread().interrupt();
      assertThatThrownBy(() -> Latencies.await(Duration.ofSeconds(30)))
          .isInstanceOf(InterruptedException.class);
      assertThat(Thread.currentThread().isInterrupted())
          .as("flag cleared, as sleep does")
          .isFalse();
    } finally {
      Thread.interrupted();
    }
  }

  @Test
  void aDrawWithoutSpreadIsTheMean_andWithSpreadStaysWithinItAroundTheMean() {
    assertThat(Latencies.drawNanos(Duration.ofMillis(8), 0)).isEqualTo(8_000_000);
    assertThat(Latencies.drawNanos(Duration.ZERO, 0.5)).isZero();
    long sum = 0;
    long min = Long.MAX_VALUE;
    long max = 0;
    for (int i = 0; i < 4_000; i++) {
      long n = Latencies.drawNanos(Duration.ofMillis(8), 0.5);
      assertThat(n).isBetween(4_000_000L, 12_000_000L);
      sum += n;
      min = Math.min(min, n);
      max = Math.max(max, n);
    }
    assertThat(sum / 4_000.0).isCloseTo(8_000_000, org.assertj.core.data.Offset.offset(300_000.0));
    assertThat(min).isLessThan(4_500_000);
    assertThat(max).isGreaterThan(11_500_000);
  }

  @Test
  void aSpreadOutsideZeroToOneIsRejected() {
    assertThat(Latencies.requireSpread(0)).isZero();
    assertThat(Latencies.requireSpread(1)).isEqualTo(1);
    for (double bad : new double[] {-0.01, 1.01, Double.NaN, Double.POSITIVE_INFINITY}) {
      assertThatThrownBy(() -> Latencies.requireSpread(bad))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("spread must be between 0 and 1");
      assertThatThrownBy(() -> Latencies.drawNanos(Duration.ofMillis(1), bad))
          .isInstanceOf(IllegalArgumentException.class);
    }
    assertThatThrownBy(() -> Latencies.drawNanos(Duration.ofMillis(-1), 0.5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("mean must not be negative");
  }
}
