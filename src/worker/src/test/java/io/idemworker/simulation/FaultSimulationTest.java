package io.idemworker.simulation;

import static org.assertj.core.api.Assertions.assertThat;

import io.idemworker.simulation.CallFaults.Kind;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The simulation with faults that strike calls ({@link CallFaults}): transient store failures, lost
 * store replies, and the payment provider's in-flight, ambiguous and declined answers. The real
 * flow holds every invariant in every schedule; each fault has a mutant that only it catches.
 *
 * <p>Short bounds in the default build (one fault per schedule, one crash, no lock expiry); the
 * {@code deep-simulation} tests add a lock expiry and a second fault ({@code -Psimulation-deep}).
 */
@Timeout(value = 30, unit = TimeUnit.MINUTES)
class FaultSimulationTest {
  private static final CallFaults STORE =
      CallFaults.of(1, Kind.STORE_TRANSIENT, Kind.STORE_REPLY_LOST);
  private static final CallFaults PROVIDER =
      CallFaults.of(
          1,
          Kind.PROVIDER_IN_FLIGHT,
          Kind.PROVIDER_AMBIGUOUS_CAPTURED,
          Kind.PROVIDER_AMBIGUOUS_NOT_CAPTURED,
          Kind.PROVIDER_DECLINED);

  /** Two copies, one crash, no lock expiry, a 60 s lock, three deliveries: the real flow. */
  static Setup short2() {
    return new Setup(
        2,
        1,
        0,
        Duration.ofSeconds(60),
        3,
        Setup.Settlement.AFTER_HANDLING,
        Setup::realStore,
        "real");
  }

  /**
   * One copy of a payment request, one crash and six deliveries. A fault or a crash that leaves the
   * claim's lease held costs up to two deliveries (its own, and the next one's wait for the lease),
   * so three are not enough (see {@link
   * #finding_aFaultThatLeavesTheClaimsLeaseHeld_spendsADelivery}); with two copies a copy can also
   * wait out the other's lease, which the deep test covers with the default ten deliveries.
   */
  static Setup oneCopySixDeliveries() {
    return new Setup(
        1,
        1,
        0,
        Duration.ofSeconds(60),
        6,
        Setup.Settlement.AFTER_HANDLING,
        Setup::realStore,
        "real");
  }

  private static Explorer.Report explored(Model model, Setup setup, CallFaults faults) {
    Explorer.Report report = Explorer.explore(model, setup, faults);
    System.out.println("simulation " + report.summary() + " faults " + faults.kinds());
    report.counterexample().ifPresent(c -> System.out.println(c.render()));
    return report;
  }

  private static void assertExhaustedWithoutViolation(Explorer.Report report) {
    assertThat(report.counterexample()).map(Explorer.Counterexample::render).isEmpty();
    assertThat(report.quietStates()).isPositive();
  }

  private static Explorer.Counterexample caught(Model model, Setup setup, CallFaults faults) {
    Explorer.Report report = Explorer.explore(model, setup, faults);
    System.out.println("mutant " + report.summary() + " faults " + faults.kinds());
    assertThat(report.counterexample())
        .as("the mutant %s must be caught", setup.flow())
        .isPresent();
    Explorer.Counterexample found = report.counterexample().orElseThrow();
    System.out.println(found.render());
    return found;
  }

  @Test
  void createAsCheck_holdsWithTransientFailuresAndLostReplies() {
    assertExhaustedWithoutViolation(explored(new OrderPlacedModel(), short2(), STORE));
  }

  @Test
  void creditBehindMarker_holdsWithTransientFailuresAndLostReplies() {
    assertExhaustedWithoutViolation(explored(CreditModel.withDefaultMarkers(), short2(), STORE));
  }

  @Test
  void versionGuard_holdsWithTransientFailuresAndLostReplies() {
    Setup one =
        new Setup(
            1,
            1,
            0,
            Duration.ofSeconds(60),
            3,
            Setup.Settlement.AFTER_HANDLING,
            Setup::realStore,
            "real");
    assertExhaustedWithoutViolation(explored(new StatusModel(), one, STORE));
  }

  @Test
  void twoPhasePayment_holdsWithEveryProviderAnswer() {
    assertExhaustedWithoutViolation(
        explored(
            new ProviderAnswersModel(UnaryOperator.identity()), oneCopySixDeliveries(), PROVIDER));
  }

  @Test
  void twoPhasePayment_holdsWithTransientFailuresAndLostReplies() {
    assertExhaustedWithoutViolation(
        explored(
            new ProviderAnswersModel(UnaryOperator.identity()), oneCopySixDeliveries(), STORE));
  }

  /**
   * A finding, kept as a test so that it flips when the flow changes. A claim whose reply is lost,
   * or a provider answering "in flight", ends the delivery with a retry while the claim's lease is
   * still held by the attempt that just gave up; the redelivery of the same copy then waits the
   * lease out, spending a delivery on it. With three deliveries, one such fault and one crash
   * dead-letter the copy {@code MaxDeliveryCountExceeded} in 10 steps (nothing captured twice; the
   * record stays {@code InProgress} until a resubmission). Same family as the 28-step schedule in
   * docs/simulation.md: a redelivery of the claiming copy (the same sequence number in the claim's
   * {@code writtenBy}) could take its own lease over at once, or the wait could stop counting
   * against the delivery limit.
   */
  @Test
  void finding_aFaultThatLeavesTheClaimsLeaseHeld_spendsADelivery() {
    Explorer.Report report =
        explored(new ProviderAnswersModel(UnaryOperator.identity()), short2(), PROVIDER);

    Explorer.Counterexample found = report.counterexample().orElseThrow();
    assertThat(found.violation()).contains("(MaxDeliveryCountExceeded)");
    assertThat(found.steps()).anyMatch(step -> step.contains("waits 30 s (until the lease ends)"));
    assertThat(found.steps()).anyMatch(step -> step.contains("409 in flight"));
  }

  @Test
  void mutant_transientFailureTakenForSuccess_losesTheOrder_onlyWithTransientFailures() {
    Setup mutant =
        short2()
            .withStore(
                "transient failure taken for success", FaultMutants::transientTakenForSuccess);

    Explorer.Counterexample found =
        caught(new OrderPlacedModel(), mutant, CallFaults.of(1, Kind.STORE_TRANSIENT));

    assertThat(found.violation()).contains("nothing lost");
    assertThat(found.steps()).anyMatch(step -> step.contains("503 transient failure"));
    assertThat(Explorer.explore(new OrderPlacedModel(), mutant, CallFaults.NONE).counterexample())
        .as("without the fault the mutant goes unnoticed")
        .isEmpty();
  }

  @Test
  void mutant_timeoutRewrittenBlind_appliesTheCreditTwice_whenAReplyIsLost() {
    Setup mutant =
        short2().withStore("timed-out batch rewritten blind", FaultMutants::timeoutRewrittenBlind);

    Explorer.Counterexample found =
        caught(CreditModel.withDefaultMarkers(), mutant, CallFaults.of(1, Kind.STORE_REPLY_LOST));

    assertThat(found.violation()).contains("effect exactly once").contains("applied 2 times");
    assertThat(found.steps()).anyMatch(step -> step.contains("but the reply is lost"));
    assertThat(
            Explorer.explore(CreditModel.withDefaultMarkers(), mutant, CallFaults.NONE)
                .counterexample())
        .as("without the fault the mutant goes unnoticed")
        .isEmpty();
  }

  @Test
  void mutant_ambiguousTakenForDecline_recordsACaptureAsDeclined() {
    Explorer.Counterexample found =
        caught(
            new ProviderAnswersModel(FaultMutants::ambiguousTakenForDecline),
            short2().withStore("ambiguous taken for a decline", Setup::realStore),
            CallFaults.of(1, Kind.PROVIDER_AMBIGUOUS_CAPTURED));

    assertThat(found.violation()).contains("captured").contains("declined");
  }

  @Test
  void mutant_inFlightTakenForCapture_marksTheOrderPaidWithNothingCaptured() {
    Explorer.Counterexample found =
        caught(
            new ProviderAnswersModel(FaultMutants::inFlightTakenForCapture),
            short2().withStore("in flight taken for a capture", Setup::realStore),
            CallFaults.of(1, Kind.PROVIDER_IN_FLIGHT));

    assertThat(found.violation()).contains("paid but nothing was captured");
  }

  /**
   * Two call faults, a crash and a lock expiry: four faults, each of which may spend a delivery, so
   * the queue allows five (with three, the broker dead-letters a valid copy after three faults, as
   * it should). The payment gets the default ten, with one copy (a fault that leaves a lease held
   * may cost two deliveries; two copies with ten deliveries do not finish in minutes).
   */
  @Test
  @Tag("deep-simulation")
  void deep_everyModel_holdsWithTwoFaultsACrashAndALockExpiry() {
    Setup deep =
        new Setup(
            2,
            1,
            1,
            Duration.ofSeconds(60),
            5,
            Setup.Settlement.AFTER_HANDLING,
            Setup::realStore,
            "real");
    CallFaults store = new CallFaults(STORE.kinds(), 2);
    assertExhaustedWithoutViolation(explored(new OrderPlacedModel(), deep, store));
    assertExhaustedWithoutViolation(explored(CreditModel.withDefaultMarkers(), deep, store));
    // Two copies of a payment with ten deliveries is more than the 2 GB test heap explores in
    // minutes: one copy, a crash, a lock expiry and two provider answers, ten deliveries.
    Setup payments =
        new Setup(
            1,
            1,
            1,
            Duration.ofSeconds(60),
            10,
            Setup.Settlement.AFTER_HANDLING,
            Setup::realStore,
            "real");
    assertExhaustedWithoutViolation(
        explored(
            new ProviderAnswersModel(UnaryOperator.identity()),
            payments,
            new CallFaults(PROVIDER.kinds(), 2)));
  }
}
