package io.idemworker.proof.audit;

import io.idemworker.orders.OrderMessageTypes;
import io.idemworker.orders.OrderReasons;
import io.idemworker.proof.producer.DemoScenario;
import io.idemworker.servicebus.deadletter.DeadLetterReader.DeadLetter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@link StateAudit}'s check of the dead-letter queues: the orders queue's holds exactly the
 * messages the scenario meant to be refused, each with its reason, and the topic consumers'
 * subscriptions' hold nothing. Counts lost effects (a refusal missing) and wrong dead-letters.
 *
 * <p>Not thread-safe; used once, by {@link StateAudit}.
 */
final class DeadLetterAudit {
  private final DemoScenario scenario;
  private final List<DeadLetter> queueDeadLetters;
  private final List<DeadLetter> subscriptionDeadLetters;
  long lost;
  long wrongDeadLetters;

  /**
   * @param scenario what the producer sent
   * @param queueDeadLetters the orders queue's dead-letters
   * @param subscriptionDeadLetters the consumers' subscriptions' dead-letters
   */
  DeadLetterAudit(
      DemoScenario scenario,
      List<DeadLetter> queueDeadLetters,
      List<DeadLetter> subscriptionDeadLetters) {
    this.scenario = scenario;
    this.queueDeadLetters = queueDeadLetters;
    this.subscriptionDeadLetters = subscriptionDeadLetters;
  }

  /** Exactly the expected refusals in the queue's dead-letters, each with its reason; none else. */
  Check check() {
    List<String> problems = new ArrayList<>();
    // messageId → expected reason; poison without a message id matches by reason only.
    Map<String, String> expectedById = new HashMap<>();
    List<String> anyIdReasons = new ArrayList<>();
    for (DemoScenario.Poison p : scenario.poisons) {
      String id = p.message().getMessageId();
      if (id == null) {
        anyIdReasons.add(p.expected().code());
      } else {
        expectedById.put(id, p.expected().code());
      }
    }
    scenario.conflicts.forEach(id -> expectedById.put(id, "IdempotencyConflict"));
    scenario.payments.reusedKeys.forEach(
        r -> expectedById.put(r.paymentRequestId(), "IdempotencyConflict"));
    scenario.lifecycle.wrongCurrency.forEach(
        c -> expectedById.put(c.creditId(), OrderReasons.CURRENCY_MISMATCH.code()));
    expectedById.put(
        OrderMessageTypes.statusMessageId(scenario.lifecycle.neverPlaced, 1),
        OrderReasons.ORDER_NOT_FOUND.code());
    Map<String, String> unmatched = new HashMap<>(expectedById);
    Map<String, Long> reasons = new TreeMap<>();
    long byBroker = 0;
    for (DeadLetter d : queueDeadLetters) {
      reasons.merge(d.reason(), 1L, Long::sum);
      String id = d.messageId().orElse("");
      String expected = unmatched.remove(id);
      if (expected != null && expected.equals(d.reason())) {
        continue;
      }
      if (lastDeliveryReason(expected)
          && d.reason().equals(StateAudit.MAX_DELIVERY_COUNT_EXCEEDED)) {
        byBroker++;
        continue;
      }
      if (expected == null && anyIdReasons.remove(d.reason())) {
        continue;
      }
      wrongDeadLetters++;
      problems.add(
          id
              + " dead-lettered as "
              + d.reason()
              + (expected == null ? "" : ", expected " + expected));
    }
    unmatched.forEach(
        (id, reason) -> {
          lost++;
          problems.add(id + " not dead-lettered (expected " + reason + ")");
        });
    anyIdReasons.forEach(
        reason -> {
          lost++;
          problems.add("a poison with reason " + reason + " not dead-lettered");
        });
    for (DeadLetter d : subscriptionDeadLetters) {
      wrongDeadLetters++;
      problems.add(d.source().label() + ": " + d.messageId().orElse("?") + " " + d.reason());
    }
    return StateAudit.check(
        "the dead-letter queue holds exactly the poison, reused keys, wrong currencies and the status of an order never placed ("
            + (expectedById.size()
                + scenario.poisons.stream().filter(p -> p.message().getMessageId() == null).count())
            + ", each with its reason: "
            + reasons.toString().replaceAll("[{}]", "")
            + (byBroker == 0
                ? ""
                : "; "
                    + byBroker
                    + " OrderNotFound dead-lettered by the broker as "
                    + StateAudit.MAX_DELIVERY_COUNT_EXCEEDED
                    + " instead: the worker refuses it on the last delivery, and when that"
                    + " settlement is lost (a link closed) the broker dead-letters it itself")
            + "); the subscriptions' dead-letter queues are empty",
        problems);
  }

  /**
   * A reason the worker gives only on the last delivery the queue allows (a dependent whose order
   * never came): if that settlement is lost, the broker's own dead-letter is the same outcome.
   */
  private static boolean lastDeliveryReason(String expected) {
    return OrderReasons.ORDER_NOT_FOUND.code().equals(expected);
  }
}
