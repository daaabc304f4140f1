package io.idemworker.simulation;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every schedule of two copies of one message (three with {@code -Psimulation-deep}), one crash and
 * one lock expiry, for each message type, through the real flow: no invariant breaks.
 */
@Timeout(value = 30, unit = TimeUnit.MINUTES)
class ExhaustiveSimulationTest {
  private static final int COPIES = Integer.getInteger("simulation.copies", 2);

  private static Explorer.Report explored(Model model) {
    Explorer.Report report = Explorer.explore(model, Setup.bounded(COPIES));
    System.out.println("simulation " + report.summary());
    report.counterexample().ifPresent(c -> System.out.println(c.render()));
    return report;
  }

  private static void assertExhaustedWithoutViolation(Explorer.Report report) {
    assertThat(report.counterexample()).map(Explorer.Counterexample::render).isEmpty();
    assertThat(report.quietStates()).isPositive();
    assertThat(report.schedules())
        .isGreaterThanOrEqualTo(java.math.BigInteger.valueOf(report.quietStates()));
  }

  @Test
  void createAsCheck_holdsInEverySchedule() {
    // given the real flow for OrderPlaced, when every schedule is explored
    Explorer.Report report = explored(new OrderPlacedModel());

    // then the order is written once and every copy completes, whatever the interleaving
    assertExhaustedWithoutViolation(report);
  }

  @Test
  void versionGuard_holdsInEverySchedule() {
    Explorer.Report report = explored(new StatusModel());

    assertExhaustedWithoutViolation(report);
  }

  @Test
  void creditBehindMarker_holdsInEverySchedule() {
    Explorer.Report report = explored(CreditModel.withDefaultMarkers());

    assertExhaustedWithoutViolation(report);
  }
}
