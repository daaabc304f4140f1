package io.idemworker.servicebus.sessions;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * One order's versioned status messages through a session, every send order, with a crash after any
 * of the holder's operations ({@link SessionExploration}): nothing is lost, no version applies
 * twice or before its predecessor, the order ends at its highest version. Each mutant of the
 * session's order of writes is caught with its shortest schedule.
 */
@Timeout(value = 30, unit = TimeUnit.MINUTES)
class SessionSimulationTest {
  /** Versions 1..3 and a duplicate of version 2, sent in any order. */
  private static final List<Long> DEFAULT = List.of(1L, 2L, 3L, 2L);

  private static SessionExploration.Report explore(
      List<Long> versions, SessionExploration.Flow flow, int crashes) {
    long start = System.nanoTime();
    SessionExploration.Report report = new SessionExploration(versions, flow).explore(crashes);
    System.out.println(
        "simulation session ("
            + flow
            + ", versions "
            + versions
            + ", "
            + crashes
            + " crashes): "
            + report.states()
            + " states, "
            + report.quiet()
            + " quiet states, "
            + (System.nanoTime() - start) / 1_000_000
            + " ms");
    System.out.println(report.render());
    return report;
  }

  @Test
  void session_appliesEveryVersionOnceInOrder_whateverTheSendOrderAndWhereverItCrashes() {
    SessionExploration.Report report = explore(DEFAULT, SessionExploration.Flow.REAL, 2);

    assertThat(report.violation()).map(steps -> String.join("\n", steps)).isEmpty();
    assertThat(report.states()).isGreaterThan(1_000);
    assertThat(report.quiet()).isGreaterThan(10);
  }

  @Test
  void mutant_deferBeforeRecordingInTheSessionState_losesAMessageOnACrash() {
    SessionExploration.Report report =
        explore(DEFAULT, SessionExploration.Flow.DEFER_BEFORE_RECORD, 1);

    assertThat(report.violation()).isPresent();
    assertThat(report.render())
        .contains("defers")
        .contains("then the worker crashes")
        .contains("nothing lost");
  }

  @Test
  void mutant_drainIgnoringTheGap_appliesAVersionBeforeItsPredecessor() {
    SessionExploration.Report report =
        explore(DEFAULT, SessionExploration.Flow.DRAIN_IGNORES_GAP, 1);

    assertThat(report.violation()).isPresent();
    assertThat(report.render()).contains("in order, once each");
  }

  @Test
  void mutant_completingTheGapFillerFirst_strandsTheWaitingOnesOnACrash() {
    SessionExploration.Report report =
        explore(DEFAULT, SessionExploration.Flow.SETTLE_FILLER_FIRST, 1);

    assertThat(report.violation()).isPresent();
    assertThat(report.render()).contains("then the worker crashes").contains("nothing lost");
  }

  @Test
  void mutantsGoUnnoticedWithoutCrashes_exceptTheOneThatBreaksTheOrder() {
    assertThat(explore(DEFAULT, SessionExploration.Flow.DEFER_BEFORE_RECORD, 0).violation())
        .isEmpty();
    assertThat(explore(DEFAULT, SessionExploration.Flow.SETTLE_FILLER_FIRST, 0).violation())
        .isEmpty();
    assertThat(explore(DEFAULT, SessionExploration.Flow.DRAIN_IGNORES_GAP, 0).violation())
        .isPresent();
  }

  @Test
  @Tag("deep-simulation")
  void deep_fourVersionsWithTwoDuplicatesAndThreeCrashes_appliesEachOnceInOrder() {
    SessionExploration.Report report =
        explore(List.of(1L, 2L, 3L, 4L, 2L, 4L), SessionExploration.Flow.REAL, 3);

    assertThat(report.violation()).map(steps -> String.join("\n", steps)).isEmpty();
    assertThat(report.states()).isGreaterThan(10_000);
  }
}
