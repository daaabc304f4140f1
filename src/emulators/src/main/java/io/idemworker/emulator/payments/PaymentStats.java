package io.idemworker.emulator.payments;

import java.util.concurrent.atomic.LongAdder;

/**
 * A snapshot of one emulator's counters since start-up.
 *
 * @param requests every HTTP request received, whatever its answer (including faulted ones)
 * @param executed captures executed: ledger entries, captured or declined
 * @param declined of {@code executed}, those declined
 * @param replays answers replayed from a stored response ({@code Idempotent-Replayed: true})
 * @param inFlightConflicts 409 answers: the key was still being executed
 * @param keyConflicts 422 answers: the key was used with other parameters
 * @param rejected 400, 401, 404, 405, 413 and 415 answers
 * @param faulted executions cut by {@code failBeforeApply} or {@code applyThenDropConnection}
 */
public record PaymentStats(
    long requests,
    long executed,
    long declined,
    long replays,
    long inFlightConflicts,
    long keyConflicts,
    long rejected,
    long faulted) {

  /** The live counters behind the snapshots. Thread-safe. */
  static final class Counters {
    final LongAdder requests = new LongAdder();
    final LongAdder executed = new LongAdder();
    final LongAdder declined = new LongAdder();
    final LongAdder replays = new LongAdder();
    final LongAdder inFlightConflicts = new LongAdder();
    final LongAdder keyConflicts = new LongAdder();
    final LongAdder rejected = new LongAdder();
    final LongAdder faulted = new LongAdder();

    PaymentStats snapshot() {
      return new PaymentStats(
          requests.sum(),
          executed.sum(),
          declined.sum(),
          replays.sum(),
          inFlightConflicts.sum(),
          keyConflicts.sum(),
          rejected.sum(),
          faulted.sum());
    }
  }
}
