package io.idemworker.simulation;

import io.idemworker.core.EffectStore;
import io.idemworker.core.ForwardingEffectStore;
import io.idemworker.core.StoreFailure;
import io.idemworker.core.WriteSet;
import io.idemworker.orders.CaptureAnswer;
import io.idemworker.orders.PaymentProvider;

/**
 * Broken answers to the faults {@link CallFaults} injects, each as a wrapper around what the real
 * flow calls (the store, or the provider), so the real protections run unchanged against them. The
 * simulation must catch each one, and only with its fault switched on.
 */
final class FaultMutants {
  private FaultMutants() {}

  private static boolean transientFailure(Object result) {
    return result instanceof EffectStore.Failed failed
        && failed.failure().kind() == StoreFailure.Kind.TRANSIENT;
  }

  /** Passes every call through; mutants override what they break. */
  private abstract static class Forwarding extends ForwardingEffectStore {
    Forwarding(ScheduledStore store) {
      super(store);
    }
  }

  /**
   * A transient failure of the batch taken for success ("the write probably went through"): the
   * flow reports processed and the message is completed.
   *
   * @param store the scheduled store
   * @return the mutant
   */
  static EffectStore transientTakenForSuccess(ScheduledStore store) {
    return new Forwarding(store) {
      @Override
      public WriteResult apply(WriteSet writeSet) {
        WriteResult result = store.apply(writeSet);
        return transientFailure(result) ? new Applied() : result;
      }
    };
  }

  /**
   * A timed-out batch written again at once, blind ("make sure it is there"): harmless when the
   * first write did not happen, a second effect when only its reply was lost.
   *
   * @param store the scheduled store
   * @return the mutant
   */
  static EffectStore timeoutRewrittenBlind(ScheduledStore store) {
    return new Forwarding(store) {
      @Override
      public WriteResult apply(WriteSet writeSet) {
        WriteResult result = store.apply(writeSet);
        return transientFailure(result) ? store.upsert(writeSet) : result;
      }
    };
  }

  /**
   * An ambiguous provider answer taken for a decline ("no confirmation, so not paid"): the record
   * is completed as declined although the provider may have captured.
   *
   * @param provider the simulated provider
   * @return the mutant
   */
  static PaymentProvider ambiguousTakenForDecline(PaymentProvider provider) {
    return (key, orderId, amount, currency) -> {
      CaptureAnswer answer = provider.capture(key, orderId, amount, currency);
      return answer instanceof CaptureAnswer.Ambiguous
          ? new CaptureAnswer.Declined("no_confirmation", false)
          : answer;
    };
  }

  /**
   * An in-flight answer taken for a capture ("someone is already charging, so it is charged"): the
   * order is marked paid though nothing may ever be captured.
   *
   * @param provider the simulated provider
   * @return the mutant
   */
  static PaymentProvider inFlightTakenForCapture(PaymentProvider provider) {
    return (key, orderId, amount, currency) -> {
      CaptureAnswer answer = provider.capture(key, orderId, amount, currency);
      return answer instanceof CaptureAnswer.InFlight
          ? new CaptureAnswer.Captured(StoreCall.captureId(key), true)
          : answer;
    };
  }
}
