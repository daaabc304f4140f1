package io.idemworker.simulation;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.core.EffectStore;
import io.idemworker.core.Fingerprint;
import io.idemworker.core.StoreFailure;
import io.idemworker.core.WriteSet;
import io.idemworker.orders.CaptureAnswer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Faults that strike one pending call instead of its normal answer: a store call that fails
 * transiently (not applied), a store write whose reply is lost (applied, answered as a timeout),
 * and the payment provider's other answers (in flight, ambiguous after or without capturing, a
 * decline). Each is one more step for a delivery whose next call it applies to, so the explorer
 * tries it at every call of every schedule, within a budget per schedule.
 *
 * <p>The budget left is part of the state: a document {@code faults} in the partition {@value
 * #PARTITION} of the simulated store (no invariant reads that partition), so the world's canonical
 * text tells apart states with different budgets left without a field in {@link World}.
 *
 * @param kinds the faults that may strike
 * @param budget how many may strike in one schedule
 */
record CallFaults(Set<Kind> kinds, int budget) {
  /** The partition holding the simulation's own bookkeeping. */
  static final String PARTITION = "sim";

  /** No call faults: the explorations as they were. */
  static final CallFaults NONE = new CallFaults(EnumSet.noneOf(Kind.class), 0);

  /** Copies the set. */
  CallFaults {
    kinds = Set.copyOf(Objects.requireNonNull(kinds, "kinds"));
    if (budget < 0) {
      throw new IllegalArgumentException("budget >= 0");
    }
  }

  /**
   * Some faults, at most {@code budget} per schedule.
   *
   * @param budget the budget
   * @param first a kind
   * @param more more kinds
   * @return the faults
   */
  static CallFaults of(int budget, Kind first, Kind... more) {
    return new CallFaults(EnumSet.of(first, more), budget);
  }

  /** A fault. */
  enum Kind {
    /** A store call fails transiently (503): not applied. */
    STORE_TRANSIENT,
    /** A store write is applied but its reply is lost: the handler sees a timeout (408). */
    STORE_REPLY_LOST,
    /** The provider answers 409: another attempt with this key is in flight. Nothing captured. */
    PROVIDER_IN_FLIGHT,
    /** The provider captured, but the answer was lost (a timeout): {@code Ambiguous}. */
    PROVIDER_AMBIGUOUS_CAPTURED,
    /**
     * The call failed before the provider captured, and the caller cannot tell: {@code Ambiguous}.
     */
    PROVIDER_AMBIGUOUS_NOT_CAPTURED,
    /**
     * The provider declines the capture (402), and replays the decline for the key from then on.
     */
    PROVIDER_DECLINED
  }

  /**
   * What a fault did to one call.
   *
   * @param description the answer in words, for counterexamples
   * @param answer what the handler is answered
   * @param store the store after it (the budget spent)
   */
  record Struck(String description, Object answer, SimulatedStore store) {}

  /**
   * Every fault that may strike a pending call in this state.
   *
   * @param call the call
   * @param store the store
   * @param now virtual seconds
   * @return one entry per applicable fault, in a fixed order
   */
  List<Struck> strike(StoreCall call, SimulatedStore store, long now) {
    List<Struck> struck = new ArrayList<>();
    if (store.number(PARTITION, "faults", "used", now) >= budget) {
      return struck;
    }
    SimulatedStore spent = spend(store, now);
    boolean capture = call instanceof StoreCall.Capture;
    boolean write = !capture && !(call instanceof StoreCall.Read);
    if (!capture && kinds.contains(Kind.STORE_TRANSIENT)) {
      struck.add(
          new Struck(
              "503 transient failure (not applied)",
              failed(503, "service unavailable (simulated)"),
              spent));
    }
    if (write && kinds.contains(Kind.STORE_REPLY_LOST)) {
      SimulatedStore.Executed executed = spent.execute(call, now);
      struck.add(
          new Struck(
              StoreCall.describeResult(executed.result()) + ", but the reply is lost: 408 timeout",
              failed(408, "request timeout: the reply was lost (simulated)"),
              executed.after()));
    }
    if (capture) {
      StoreCall.Capture request = (StoreCall.Capture) call;
      if (kinds.contains(Kind.PROVIDER_IN_FLIGHT)) {
        struck.add(
            new Struck("409 in flight (nothing captured)", new CaptureAnswer.InFlight(), spent));
      }
      if (kinds.contains(Kind.PROVIDER_AMBIGUOUS_CAPTURED)) {
        SimulatedStore.Executed executed = spent.execute(call, now);
        struck.add(
            new Struck(
                StoreCall.describeResult(executed.result()) + ", but the answer is lost: ambiguous",
                new CaptureAnswer.Ambiguous("timeout after the request was sent (simulated)"),
                executed.after()));
      }
      if (kinds.contains(Kind.PROVIDER_AMBIGUOUS_NOT_CAPTURED)) {
        struck.add(
            new Struck(
                "connection reset before the provider captured: ambiguous",
                new CaptureAnswer.Ambiguous("connection reset (simulated)"),
                spent));
      }
      boolean decided =
          store
                  .visible(StoreCall.PROVIDER, StoreCall.captureId(request.idempotencyKey()), now)
                  .isPresent()
              || store
                  .visible(StoreCall.PROVIDER, StoreCall.declineId(request.idempotencyKey()), now)
                  .isPresent();
      if (kinds.contains(Kind.PROVIDER_DECLINED) && !decided) {
        struck.add(
            new Struck(
                "402 declined (card_declined)",
                new CaptureAnswer.Declined("card_declined", false),
                write(
                    spent,
                    StoreCall.PROVIDER,
                    StoreCall.declineId(request.idempotencyKey()),
                    now)));
      }
    }
    return struck;
  }

  private static EffectStore.Failed failed(int status, String description) {
    return new EffectStore.Failed(
        new StoreFailure(StoreFailure.Kind.TRANSIENT, status, description));
  }

  private static SimulatedStore spend(SimulatedStore store, long now) {
    long used = store.number(PARTITION, "faults", "used", now);
    ObjectNode budget =
        JsonNodeFactory.instance.objectNode().put("id", "faults").put("used", used + 1);
    return store
        .execute(
            new StoreCall.Upsert(WriteSet.of(PARTITION, Fingerprint.of(budget), budget, List.of())),
            now)
        .after();
  }

  private static SimulatedStore write(SimulatedStore store, String partition, String id, long now) {
    ObjectNode document = JsonNodeFactory.instance.objectNode().put("id", id);
    return store
        .execute(
            new StoreCall.Upsert(
                WriteSet.of(partition, Fingerprint.of(document), document, List.of())),
            now)
        .after();
  }
}
