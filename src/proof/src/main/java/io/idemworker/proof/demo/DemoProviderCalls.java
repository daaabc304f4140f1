package io.idemworker.proof.demo;

import io.idemworker.orders.CaptureAnswer;
import io.idemworker.orders.PaymentProvider;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;

/**
 * The workers' payment provider as the demo watches it: every capture call, in the order the calls
 * returned, with the key it carried and how the provider answered. The provider's ledger says what
 * it executed; this says what the workers asked for, so the audit can tell a repeat the flow needed
 * (an answer that was never recorded) from a wasted one. Thread-safe.
 */
final class DemoProviderCalls implements PaymentProvider {
  /**
   * One call.
   *
   * @param idempotencyKey the key it carried
   * @param orderId the order it paid for
   * @param amount the amount it asked for
   * @param answer what the provider answered
   */
  record Call(String idempotencyKey, String orderId, BigDecimal amount, CaptureAnswer answer) {
    /** A final answer the provider gave from its stored result of an earlier call with the key. */
    boolean replayed() {
      return (answer instanceof CaptureAnswer.Captured c && c.replayed())
          || (answer instanceof CaptureAnswer.Declined d && d.replayed());
    }

    /** A final answer given by executing the call now. */
    boolean executed() {
      return (answer instanceof CaptureAnswer.Captured c && !c.replayed())
          || (answer instanceof CaptureAnswer.Declined d && !d.replayed());
    }

    /** The answer was lost on its way (the provider may or may not have executed it). */
    boolean ambiguous() {
      return answer instanceof CaptureAnswer.Ambiguous;
    }
  }

  private final PaymentProvider provider;
  private final List<Call> calls = new ArrayList<>();

  DemoProviderCalls(PaymentProvider provider) {
    this.provider = provider;
  }

  @Override
  public CaptureAnswer capture(
      String idempotencyKey, String orderId, BigDecimal amount, String currency) {
    CaptureAnswer answer = provider.capture(idempotencyKey, orderId, amount, currency);
    synchronized (calls) {
      calls.add(new Call(idempotencyKey, orderId, amount, answer));
    }
    return answer;
  }

  /** Every call so far, in the order they returned. */
  List<Call> calls() {
    synchronized (calls) {
      return List.copyOf(calls);
    }
  }

  /** The calls that carried {@code idempotencyKey}, in the order they returned. */
  static List<Call> withKey(List<Call> calls, String idempotencyKey) {
    return calls.stream().filter(c -> c.idempotencyKey().equals(idempotencyKey)).toList();
  }
}
