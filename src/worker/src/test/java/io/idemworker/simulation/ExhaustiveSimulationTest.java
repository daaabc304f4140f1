package io.idemworker.simulation;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
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

  /**
   * The schedule the deep search once found (28 steps): with the queue's delivery limit at 3, a
   * lock expiry, a handler (A2) that stalls past its lease while the other copy (B) takes over and
   * then crashes, both copies used to end {@code MaxDeliveryCountExceeded} with the payment record
   * {@code InProgress}. The same choices now: the copy whose lock expired stops before its claim
   * ({@code LOCK_LOST}), and a copy that meets a live lease waits it out and runs the flow again in
   * the same delivery instead of spending one; the record ends {@code Completed}, captured once.
   * Replayed step by step, so it runs in the default build; the deep profile explores every
   * schedule ({@link #twoPhasePayment_holdsInEverySchedule}).
   */
  @Test
  void twoPhasePayment_theOnce28StepSchedule_nowEndsCompleted() {
    // given the schedule's choices, then the first step each state allows
    List<String> picks =
        List.of(
            "broker delivers A as A1",
            "the producer sends B; broker delivers B as B1",
            "the lock of A1 expires",
            "broker delivers A as A2",
            "A2: batch(create payment",
            "A1 returns Retry(LOCK_LOST)",
            "A2: provider capture",
            "B1: batch(create payment",
            "B1: read payment",
            "B1 returns Retry(NOT_YET)",
            "B1: batch(create payment",
            "B1: read payment",
            "B1: patch(payment:pay-1 {attempt = 2",
            "A2: batch(create",
            "A2: read payment",
            "A2 returns Retry(NOT_YET)",
            "crash B1");

    // when it is followed through the real flow
    Replay.Result result = Replay.follow(new PaymentModel(true), Setup.bounded(2), picks);
    System.out.println(result.render());

    // then no invariant breaks: the stalled copy's lost lock stopped it, the lease meetings spent
    // no delivery, and the payment completed with one capture
    assertThat(result.violation()).isEmpty();
    assertThat(result.end().quiet()).isTrue();
    assertThat(result.steps().get(5)).contains("its lock is gone, so it stops");
    assertThat(result.steps().get(9)).contains("handles it again in the same delivery");
    assertThat(result.steps())
        .filteredOn(step -> step.contains("→ captured capture:pay-1"))
        .hasSize(1);
    assertThat(result.end().copies())
        .extracting(World.Copy::status)
        .containsOnly(World.Status.COMPLETED);
  }

  /**
   * Every schedule of two copies of a payment request (one crash, one lock expiry, delivery limit
   * 3): captured once, never untraceable, and the record ends {@code Completed}, or a copy is
   * dead-lettered {@code CallInProgress}, never {@code InProgress} behind {@code
   * MaxDeliveryCountExceeded} alone. About 700,000 states (tens of seconds of CPU), so it runs with
   * {@code -Psimulation-deep}.
   */
  @Test
  @org.junit.jupiter.api.Tag("deep-simulation")
  void twoPhasePayment_holdsInEverySchedule() {
    Explorer.Report report = Explorer.explore(new PaymentModel(true), Setup.bounded(2));
    System.out.println("simulation " + report.summary());
    report.counterexample().ifPresent(c -> System.out.println(c.render()));

    assertExhaustedWithoutViolation(report);
  }
}
