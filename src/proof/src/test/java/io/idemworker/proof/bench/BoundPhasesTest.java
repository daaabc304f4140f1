package io.idemworker.proof.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.idemworker.proof.bench.BoundPhases.Step;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BoundPhasesTest {

  private static List<String> stepsOverEveryCount(BoundPhases phases) {
    List<String> steps = new ArrayList<>();
    for (int n = 0; n <= phases.total(); n++) {
      Step step = phases.at(n);
      if (step != Step.NOTHING) {
        steps.add(n + ":" + step);
      }
    }
    return steps;
  }

  @Test
  void aColdWarmUp_armsTheLatenciesFirst_thenOpensAndClosesTheWindow_thenEnds() {
    // given 20,000 orders with no latency, 100 under latency, 455 measured, 42 in the tail
    BoundPhases phases = new BoundPhases(20_000, 100, 455, 42);

    // when every settled count is read in turn / then each step comes once, in order
    assertThat(phases.total()).isEqualTo(20_597);
    assertThat(phases.armedFromTheStart()).isFalse();
    assertThat(stepsOverEveryCount(phases))
        .containsExactly(
            "20000:ARM", "20100:OPEN_WINDOW", "20555:CLOSE_WINDOW", "20597:ALL_SETTLED");
  }

  @Test
  void theWindowsMessages_areThoseSettledAfterItOpensUpToTheOneThatClosesIt() {
    BoundPhases phases = new BoundPhases(100, 10, 20, 5);

    assertThat(phases.inWindow(110)).isFalse();
    assertThat(phases.inWindow(111)).isTrue();
    assertThat(phases.inWindow(130)).isTrue();
    assertThat(phases.inWindow(131)).isFalse();
  }

  @Test
  void aCallsTimeOutsideItsHandler_isConcurrencyOverTheRateLessTheHandlerTime() {
    // given 100 messages in 1 s whose handlers took 20 ms each, at 4 concurrent calls
    BoundCell.Mark start = new BoundCell.Mark(0, 0, 0, 0, 0);
    BoundCell.Mark end = new BoundCell.Mark(1_000_000_000L, 0, 0, 0, 0);
    BoundCell.Window window = new BoundCell.Window(100, start, end, 100 * 20.0);

    // then each call took 40 ms per message, 20 of them outside the handler
    assertThat(window.handlerMillisPerMessage()).isEqualTo(20.0);
    assertThat(window.outsideHandlerMillis(4)).isCloseTo(20.0, within(1e-9));
  }

  @Test
  void theCompilersCores_areTheirCpuOverTheWindow() {
    // given a 2 s window in which the child's JIT threads used 0.5 s of its 2 s of CPU
    BoundCell.Mark start = new BoundCell.Mark(0, 1_000_000_000L, 300_000_000L, 0, 0);
    BoundCell.Mark end = new BoundCell.Mark(2_000_000_000L, 3_000_000_000L, 800_000_000L, 0, 0);
    BoundCell.Window window = new BoundCell.Window(100, start, end, 0);

    assertThat(window.childCores()).isCloseTo(1.0, within(1e-9));
    assertThat(window.compilerCores()).isCloseTo(0.25, within(1e-9));
  }

  @Test
  void withoutAColdWarmUp_theLatenciesAreArmedFromTheStart_andNoCountArmsThem() {
    BoundPhases phases = new BoundPhases(0, 10, 20, 52);

    assertThat(phases.armedFromTheStart()).isTrue();
    assertThat(stepsOverEveryCount(phases))
        .containsExactly("10:OPEN_WINDOW", "30:CLOSE_WINDOW", "82:ALL_SETTLED");
  }

  @Test
  void phasesThatWouldMakeTwoStepsCoincide_areRefused() {
    assertThatThrownBy(() -> new BoundPhases(100, 0, 10, 1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new BoundPhases(100, 1, 10, 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new BoundPhases(-1, 1, 10, 1))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
