package io.idemworker.emulator.payments;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idemworker.emulator.payments.PaymentFaults.Failure;
import io.idemworker.emulator.payments.PaymentFaults.Pause;
import io.idemworker.emulator.payments.PaymentFaults.Trigger;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class PaymentFaultsTest {
  private final PaymentFaults faults = new PaymentFaults();

  @Test
  void nextN_firesOnTheNextNExecutionsOnly() {
    faults.failBeforeApply(Trigger.next(2));

    List<Failure> seen =
        IntStream.range(0, 4).mapToObj(i -> faults.onExecution().failure()).toList();

    assertThat(seen)
        .containsExactly(
            Failure.FAIL_BEFORE_APPLY, Failure.FAIL_BEFORE_APPLY, Failure.NONE, Failure.NONE);
  }

  @Test
  void seededProbability_givesTheSameFaultsForTheSameSeed() {
    List<Boolean> first = draws(Trigger.probability(0.3, 7));
    List<Boolean> second = draws(Trigger.probability(0.3, 7));

    assertThat(second).isEqualTo(first);
    assertThat(first).contains(true, false);
    assertThat(draws(Trigger.probability(0, 7))).containsOnly(false);
    assertThat(draws(Trigger.probability(1, 7))).containsOnly(true);
  }

  @Test
  void failBeforeApplyWins_andLeavesTheDropArmedForTheNextExecution() {
    faults.applyThenDropConnection(Trigger.next(1)).failBeforeApply(Trigger.next(1));

    assertThat(faults.onExecution().failure()).isEqualTo(Failure.FAIL_BEFORE_APPLY);
    assertThat(faults.onExecution().failure()).isEqualTo(Failure.APPLY_THEN_DROP);
    assertThat(faults.onExecution().failure()).isEqualTo(Failure.NONE);
  }

  @Test
  void latencies_addUp() {
    faults
        .latency(Duration.ofMillis(5), Trigger.always())
        .latency(Duration.ofMillis(7), Trigger.next(1));

    assertThat(faults.onExecution().latency()).isEqualTo(Duration.ofMillis(12));
    assertThat(faults.onExecution().latency()).isEqualTo(Duration.ofMillis(5));
  }

  @Test
  void clear_disarmsEverything_andReleasesPauses() throws Exception {
    Pause pause = faults.pauseBeforeApply(Trigger.always());
    faults.failBeforeApply(Trigger.always()).latency(Duration.ofSeconds(1), Trigger.always());
    assertThat(faults.onExecution().pauses()).containsExactly(pause);

    faults.clear();

    assertThat(faults.onExecution())
        .isEqualTo(new PaymentFaults.Plan(Duration.ZERO, List.of(), Failure.NONE));
    pause.hold(); // returns at once: released
    assertThat(pause.heldCount()).isEqualTo(1);
  }

  @Test
  void badArguments_areRefusedNamingThem() {
    assertThatThrownBy(() -> Trigger.next(0)).hasMessageContaining("n must be >= 1");
    assertThatThrownBy(() -> Trigger.probability(1.5, 1)).hasMessageContaining("p must be in 0..1");
    assertThatThrownBy(() -> faults.latency(Duration.ofMillis(-1), Trigger.always()))
        .hasMessageContaining("delay must not be negative");
  }

  private static List<Boolean> draws(Trigger trigger) {
    List<Boolean> draws = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      draws.add(trigger.fires());
    }
    return draws;
  }
}
