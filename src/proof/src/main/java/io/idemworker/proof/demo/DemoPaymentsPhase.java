package io.idemworker.proof.demo;

import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import io.idemworker.proof.emulators.AdjustableClock;
import io.idemworker.proof.faults.FaultInjector;
import io.idemworker.proof.faults.FaultPlan;
import io.idemworker.proof.producer.DemoPayments;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The demo's payments phase: sends the capture requests in the order that makes each hazard hit the
 * requests meant for it, and waits for each step to settle. Used once, from the demo's thread.
 */
final class DemoPaymentsPhase {
  private final PrintStream out;
  private final Duration timeout;

  DemoPaymentsPhase(PrintStream out, Duration timeout) {
    this.out = out;
    this.timeout = timeout;
  }

  /**
   * Phase 4: payment captures, each exposed to one hazard of a call outside the transaction, then
   * keys reused with another amount.
   *
   * @param ambiguousCaptures the plan's faults for this phase, fired before the requests meant for
   *     them are sent: the provider executes each and drops the connection before answering
   * @return true if every step settled within the timeout
   */
  boolean run(
      ServiceBusSenderClient sender,
      AdjustableClock brokerClock,
      DemoPayments payments,
      DemoTally tally,
      FaultInjector faults,
      List<FaultPlan.Event> ambiguousCaptures)
      throws InterruptedException {
    out.println(
        "phase 4: payment captures: the provider's answer lost to a dropped connection, declines, a crash after the provider call");
    List<DemoPayments.Request> ambiguous = payments.requests(DemoPayments.Hazard.AMBIGUOUS);
    // Alone, so that the drops hit exactly these requests' first executions.
    faults.fireAndWait(ambiguousCaptures);
    List<ServiceBusMessage> batch = new ArrayList<>();
    ambiguous.forEach(r -> batch.add(DemoPayments.message(r)));
    DemoCommand.sendAll(sender, batch);
    boolean settled =
        tally.awaitQuiet(
            d -> DemoCommand.applied(d, DemoCommand.PAYMENT) >= ambiguous.size(), timeout);
    faults.clear();
    List<DemoPayments.Request> concurrent = payments.requests(DemoPayments.Hazard.CONCURRENT);
    for (DemoPayments.Request r : payments.requests) {
      if (r.hazard() != DemoPayments.Hazard.AMBIGUOUS
          && r.hazard() != DemoPayments.Hazard.CONCURRENT) {
        batch.add(DemoPayments.message(r));
      }
    }
    DemoCommand.sendAll(sender, batch);
    int single = payments.requests.size() - concurrent.size();
    settled &=
        tally.awaitQuiet(d -> DemoCommand.applied(d, DemoCommand.PAYMENT) >= single, timeout);

    out.printf(
        "phase 4b: concurrent copies of new payment requests; %s later, completed keys reused with another amount%n",
        DemoCommand.DUPLICATE_WINDOW);
    // Counted before the reused keys are sent: counted after, it could already hold their
    // dead-letters, and the wait below would wait for two more that never come.
    long conflicts =
        (long) payments.reusedKeys.size()
            + DemoCommand.deadLettered(tally.deliveries(), "IdempotencyConflict");
    concurrent.forEach(r -> batch.add(DemoPayments.message(r)));
    DemoCommand.sendAll(sender, batch);
    // The second copies, and the reused keys, must get past the broker's duplicate detection too.
    brokerClock.advance(DemoCommand.DUPLICATE_WINDOW.plusSeconds(1));
    concurrent.forEach(r -> batch.add(DemoPayments.message(r)));
    payments.reusedKeys.forEach(r -> batch.add(DemoPayments.message(r)));
    DemoCommand.sendAll(sender, batch);
    int all = payments.requests.size();
    settled &=
        tally.awaitQuiet(
            d ->
                DemoCommand.applied(d, DemoCommand.PAYMENT) >= all
                    && DemoCommand.duplicates(d, DemoCommand.PAYMENT) >= concurrent.size()
                    && DemoCommand.deadLettered(d, "IdempotencyConflict") >= conflicts,
            timeout);
    return settled;
  }
}
