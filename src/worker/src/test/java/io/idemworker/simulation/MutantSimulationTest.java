package io.idemworker.simulation;

import static org.assertj.core.api.Assertions.assertThat;

import io.idemworker.core.MarkerRetention;
import io.idemworker.orders.InboxMarkers;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The simulation bites: each broken protection is caught, and the shortest schedule that breaks it
 * is printed in words.
 */
class MutantSimulationTest {
  private static final Setup BOUNDED = Setup.bounded(2);

  private static Explorer.Counterexample caught(Model model, Setup setup) {
    Explorer.Report report = Explorer.explore(model, setup);
    System.out.println("mutant " + report.summary());
    assertThat(report.counterexample())
        .as("the mutant %s must be caught", setup.flow())
        .isPresent();
    Explorer.Counterexample counterexample = report.counterexample().orElseThrow();
    System.out.println(counterexample.render());
    return counterexample;
  }

  @Test
  void markerDroppedFromTheBatch_appliesTheCreditTwice() {
    // given a flow whose batch carries the credit but not its inbox marker
    Setup mutant =
        BOUNDED.withStore("drop the marker from the batch", Mutants::dropMarkerFromBatch);

    // when every schedule is explored
    Explorer.Counterexample found = caught(CreditModel.withDefaultMarkers(), mutant);

    // then a second copy applies the credit again
    assertThat(found.violation()).contains("effect exactly once").contains("applied 2 times");
  }

  @Test
  void readThenWriteInsteadOfCreateAsCheck_writesTheOrderTwice() {
    Setup mutant = BOUNDED.withStore("read-then-write", Mutants::readThenWrite);

    Explorer.Counterexample found = caught(new OrderPlacedModel(), mutant);

    // then two copies both read "absent" before either writes
    assertThat(found.violation()).contains("written 2 times");
    assertThat(found.steps())
        .filteredOn(step -> step.contains("read ord-1 → 404 absent"))
        .hasSize(2);
  }

  @Test
  void readThenWriteInsteadOfCreateAsCheck_appliesTheCreditTwice() {
    Setup mutant = BOUNDED.withStore("read-then-write", Mutants::readThenWrite);

    Explorer.Counterexample found = caught(CreditModel.withDefaultMarkers(), mutant);

    assertThat(found.violation()).contains("applied 2 times");
  }

  @Test
  void completeBeforeCommit_losesTheOrderWhenTheHandlerCrashes() {
    Setup mutant =
        BOUNDED.withSettlement("complete before commit", Setup.Settlement.BEFORE_HANDLING);

    Explorer.Counterexample found = caught(new OrderPlacedModel(), mutant);

    assertThat(found.violation()).contains("nothing lost");
    assertThat(found.steps()).anyMatch(step -> step.startsWith("crash "));
  }

  @Test
  void completeBeforeCommit_losesTheCredit() {
    Setup mutant =
        BOUNDED.withSettlement("complete before commit", Setup.Settlement.BEFORE_HANDLING);

    Explorer.Counterexample found = caught(CreditModel.withDefaultMarkers(), mutant);

    assertThat(found.violation()).contains("applied 0 times");
  }

  @Test
  void statusPatchWithoutItsVersionGuard_letsStaleOverwriteNewer() {
    Setup mutant = BOUNDED.withStore("unguarded status patch", Mutants::unguardedPatch);

    Explorer.Counterexample found = caught(new StatusModel(), mutant);

    assertThat(found.violation()).contains("stale never overwrites newer");
  }

  @Test
  void markerTtlShorterThanTheRedeliveryHorizon_isCaughtWhenTheMarkerExpires() {
    // given a marker TTL of one lock duration, which the start-up check refuses
    Duration ttl = BOUNDED.lockDuration();
    MarkerRetention retention =
        new MarkerRetention(
            BOUNDED.lockDuration(), BOUNDED.maxDeliveryCount(), Duration.ZERO, Duration.ZERO);
    assertThat(retention.problemWith(Optional.of(ttl))).isPresent();
    Model model =
        new CreditModel(new InboxMarkers(InboxMarkers.DEFAULT_CONSUMER, Optional.of(ttl)));

    // when every schedule is explored
    Explorer.Counterexample found =
        caught(model, BOUNDED.withStore("marker TTL below the horizon", Setup::realStore));

    // then the marker is gone while a copy can still arrive
    assertThat(found.violation()).contains("marker horizon");
  }

  @Test
  void claimAfterTheProviderCall_leavesACaptureWithoutItsRecord() {
    // given a flow that captures before it claims
    Setup mutant =
        BOUNDED.withStore("claim after the provider call", Mutants::claimAfterProviderCall);

    // when every schedule is explored
    Explorer.Counterexample found = caught(new PaymentModel(true), mutant);

    // then the capture exists while no record says the payment is under way
    assertThat(found.violation()).contains("no untraceable effect");
    assertThat(found.steps()).last().asString().contains("provider capture");
  }

  @Test
  void completeBeforeCommit_losesThePayment() {
    Setup mutant =
        BOUNDED.withSettlement("complete before commit", Setup.Settlement.BEFORE_HANDLING);

    Explorer.Counterexample found = caught(new PaymentModel(true), mutant);

    assertThat(found.violation()).contains("payment record is absent");
  }
}
