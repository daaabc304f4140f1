package io.idemworker.proof.chaos;

import io.idemworker.proof.audit.Check;
import io.idemworker.proof.audit.StateAudit;
import io.idemworker.proof.producer.DemoScenario;
import io.idemworker.servicebus.ServiceBusConnection;
import io.idemworker.servicebus.deadletter.DeadLetterResubmitter;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * The chaos run's dead-letter resubmission, a duplicate source: after the drain, every copy the
 * workers refused as a reused key ({@code IdempotencyConflict}) or as a status of an order never
 * placed ({@code OrderNotFound}) goes back to the queue once, unchanged, with the application's own
 * {@link DeadLetterResubmitter} (what {@code resubmit} runs), past the broker's duplicate-detection
 * window. Each must be refused again with the same reason, without an effect: the audit's
 * dead-letter, order and payment checks read the result unchanged, and {@link #check} says that
 * every expected copy was sent.
 */
final class ChaosResubmit {
  /**
   * The refusals sent back; {@code MaxDeliveryCountExceeded} is the broker's own dead-letter of an
   * {@code OrderNotFound} whose last-delivery settlement was lost (the audit accepts it for that).
   */
  static final Set<String> REASONS =
      Set.of("IdempotencyConflict", "OrderNotFound", StateAudit.MAX_DELIVERY_COUNT_EXCEEDED);

  private ChaosResubmit() {}

  /**
   * Resubmits; the caller has moved past the window since the refused copies were sent ({@link
   * ChaosBroker#pastWindow}), or the broker would drop them as duplicates.
   *
   * @return how many copies were sent back
   */
  static long run(String connectionString) {
    List<DeadLetterResubmitter.Entry> entries =
        new DeadLetterResubmitter(
                new ServiceBusConnection.ConnectionString(connectionString), ChaosCommand.QUEUE)
            .resubmit(REASONS, 1_000_000, false, Duration.ofSeconds(2));
    return entries.stream().filter(DeadLetterResubmitter.Entry::resubmitted).count();
  }

  /**
   * The copies the scenario's refusals of those reasons make: reused ids and keys, never placed.
   */
  static long expected(DemoScenario scenario) {
    return scenario.conflicts.size() + scenario.payments.reusedKeys.size() + 1L;
  }

  /** Every expected copy was sent back once (their outcome is in the other checks). */
  static Check check(DemoScenario scenario, long resubmitted, boolean ran) {
    long expected = expected(scenario);
    return new Check(
        "dead-letter resubmission: the "
            + expected
            + " refused copies (reused order ids and payment keys: IdempotencyConflict; the status"
            + " of an order never placed: OrderNotFound) sent back once after the drain; each"
            + " dead-lettered again with its reason and applied nowhere (the rows above)",
        ran && resubmitted == expected,
        ran
            ? "resubmitted " + resubmitted + ", expected " + expected
            : "not run: the first drain did not finish");
  }
}
