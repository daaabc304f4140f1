package io.idemworker.simulation;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The outbox relay's crash points and one topic consumer behind it: the relay loses no event and
 * publishes every copy of an event under the event's id ({@link RelayExploration}); the loyalty
 * consumer applies each event once, whatever copies arrive ({@link TopicConsumerModel}). Each has a
 * mutant the exploration catches.
 */
@Timeout(value = 30, unit = TimeUnit.MINUTES)
class TopicSimulationTest {
  private static final int EVENTS = Integer.getInteger("simulation.relayEvents", 2);
  private static final int RELAY_CRASHES = Integer.getInteger("simulation.relayCrashes", 2);

  private static RelayExploration.Report relay(RelayExploration.Flow flow) {
    RelayExploration.Report report = new RelayExploration(EVENTS, flow).explore(RELAY_CRASHES);
    System.out.println(
        "simulation relay ("
            + flow
            + ", "
            + EVENTS
            + " events, "
            + RELAY_CRASHES
            + " crashes): "
            + report.states()
            + " states");
    System.out.println(report.render());
    return report;
  }

  @Test
  void relay_losesNoEventAndRepublishesUnderTheSameId_withACrashAtEveryPoint() {
    RelayExploration.Report report = relay(RelayExploration.Flow.REAL);

    assertThat(report.violation()).map(steps -> String.join("\n", steps)).isEmpty();
    assertThat(report.states()).isGreaterThan(10);
  }

  @Test
  void mutant_relayMovingItsCheckpointBeforeSending_losesAnEvent() {
    RelayExploration.Report report = relay(RelayExploration.Flow.CHECKPOINT_BEFORE_SEND);

    assertThat(report.violation()).isPresent();
    assertThat(report.render()).contains("nothing lost").contains("the relay crashes (MARKED)");
  }

  @Test
  void mutant_relayMintingANewMessageIdPerSend_isCaughtAtTheFirstRepublish() {
    RelayExploration.Report report = relay(RelayExploration.Flow.NEW_ID_PER_SEND);

    assertThat(report.violation()).isPresent();
    assertThat(report.render()).contains("one MessageId per event");
  }

  @Test
  void topicConsumer_appliesEachEventOnce_withACrashAndRepublishedCopies() {
    Explorer.Report report =
        Explorer.explore(new TopicConsumerModel(), FaultSimulationTest.short2());
    System.out.println("simulation " + report.summary());
    report.counterexample().ifPresent(c -> System.out.println(c.render()));

    assertThat(report.counterexample()).map(Explorer.Counterexample::render).isEmpty();
    assertThat(report.quietStates()).isPositive();
  }

  @Test
  @Tag("deep-simulation")
  void deep_topicConsumer_appliesEachEventOnce_withALockExpiryToo() {
    Explorer.Report report =
        Explorer.explore(
            new TopicConsumerModel(), Setup.bounded(Integer.getInteger("simulation.copies", 3)));
    System.out.println("simulation " + report.summary());

    assertThat(report.counterexample()).map(Explorer.Counterexample::render).isEmpty();
  }

  @Test
  void topicConsumer_appliesEachEventOnce_withTransientFailuresAndLostReplies() {
    Explorer.Report report =
        Explorer.explore(
            new TopicConsumerModel(),
            FaultSimulationTest.short2(),
            CallFaults.of(1, CallFaults.Kind.STORE_TRANSIENT, CallFaults.Kind.STORE_REPLY_LOST));
    System.out.println("simulation " + report.summary());
    report.counterexample().ifPresent(c -> System.out.println(c.render()));

    assertThat(report.counterexample()).map(Explorer.Counterexample::render).isEmpty();
  }

  @Test
  void mutant_topicConsumerWithoutItsMarker_appliesARepublishedEventTwice() {
    Setup mutant =
        Setup.bounded(2).withStore("drop the marker from the batch", Mutants::dropMarkerFromBatch);

    Explorer.Report report = Explorer.explore(new TopicConsumerModel(), mutant);
    System.out.println("mutant " + report.summary());
    report.counterexample().ifPresent(c -> System.out.println(c.render()));

    assertThat(report.counterexample()).isPresent();
    assertThat(report.counterexample().orElseThrow().violation()).contains("effect exactly once");
  }

  @Test
  @Tag("deep-simulation")
  void deep_relayWithThreeEventsAndThreeCrashes_losesNothing() {
    RelayExploration.Report report = new RelayExploration(3, RelayExploration.Flow.REAL).explore(3);
    System.out.println(
        "simulation relay (REAL, 3 events, 3 crashes): " + report.states() + " states");

    assertThat(report.violation()).isEmpty();
  }
}
