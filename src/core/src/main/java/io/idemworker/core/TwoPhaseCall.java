package io.idemworker.core;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.core.IdempotentConsumer.Attempt;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A side effect that cannot join the transaction, made effectively-once in two phases.
 *
 * <ol>
 *   <li><b>Claim</b> (one round trip): create the record {@code InProgress}, attempt 1, with a
 *       lease, in one batch with the claim patches. If it exists, one read decides: another
 *       fingerprint → {@code IdempotencyConflict}; {@code Completed} → {@link Outcome.Duplicate};
 *       {@code InProgress} with a live lease → another delivery is on it, retry later; with an
 *       expired lease → take it over (attempt + 1, a new lease) with a patch conditioned on the
 *       status and the attempt seen: the attempt number is the fencing token, so of two deliveries
 *       that both saw the lease expire, one takes over and the other is refused.
 *   <li><b>Call</b>, passing the idempotency key on: the other side executes a key once and replays
 *       its answer, so an attempt that repeats a call whose answer was lost (a crash, a timeout)
 *       gets the first answer back instead of a second effect.
 *   <li><b>Complete</b> (one round trip): one batch creates the outgoing event (its id derives from
 *       the key), moves the record to {@code Completed} with the answer, conditioned on the status
 *       and this attempt, and applies the completion's patches. A second completion collides with
 *       the event, or is refused by the condition: the effect is recorded once.
 * </ol>
 *
 * <p>The record carries the stamp of the delivery that claimed or last took it over ({@link
 * DeliveryOrigin}), so a duplicate names its source from the read it makes anyway. A completion
 * that meets its event already created (another attempt completed first) reads the record once to
 * tell.
 *
 * <p>Round trips: a new call 2 (claim, complete), a completed duplicate 2 (claim, read), a takeover
 * 4 (claim, read, take over, complete). An ambiguous answer, a refusal and a failed completion
 * release the lease (one more patch) so the redelivery may take over at once instead of waiting the
 * lease out; a delivery that finds another attempt's live lease asks to be retried no earlier than
 * the lease's end ({@link Outcome.Retry#retryAfter}), so contested copies do not spend their
 * delivery count on tries that cannot succeed.
 *
 * <p><b>Fenced by the delivery's lock.</b> The claim and a takeover wait until the lock has the
 * call's timeout plus {@link Change.TwoPhase#CALL_MARGIN} left, and write a lease that ends at the
 * lock's end or the configured ceiling, whichever is first; the call starts only when the lock and
 * that lease both still have that much left (else the lease is released and the delivery retried).
 * A lock that is gone stops the flow before the next write or the call ({@link
 * Outcome.RetryCause#LOCK_LOST}). On the last delivery the queue allows, a contested record is
 * dead-lettered {@link DeadLetterReason#CALL_IN_PROGRESS} rather than abandoned into the broker's
 * {@code MaxDeliveryCountExceeded}.
 */
final class TwoPhaseCall {
  static final String IN_PROGRESS = "InProgress";
  static final String COMPLETED = "Completed";
  static final String STATUS = "status";

  /**
   * The record's claim number, its fencing token: 1 at the claim, one more at each takeover,
   * whether or not that claim went on to call (a takeover left too little lease releases the record
   * without calling). Not a count of calls: those are one plus the answers never recorded.
   */
  static final String ATTEMPT = "attempt";

  static final String LEASE_UNTIL = "leaseUntilMillis";
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  private TwoPhaseCall() {}

  static Outcome apply(
      EffectStore store,
      Change.TwoPhase change,
      Fingerprint fingerprint,
      Attempt attempt,
      Clock clock) {
    Duration lockLeft = LockFence.require(attempt.lock(), change.callNeeds(), "the claim");
    long leaseUntil = leaseEnd(change, clock, lockLeft);
    ObjectNode claim = attempt.stamped(change.record());
    claim.put(STATUS, IN_PROGRESS);
    claim.put(ATTEMPT, 1);
    claim.put(LEASE_UNTIL, leaseUntil);
    EffectStore.WriteResult claimed =
        store.apply(
            WriteSet.of(
                change.partitionKey(), fingerprint, claim, List.of(), change.claimPatches()));
    return claimed.fold(
        applied -> callAndComplete(store, change, fingerprint, attempt, clock, 1, leaseUntil),
        exists -> afterClaimConflict(store, change, fingerprint, attempt, clock),
        missing -> attempt.notYet(change.rules().ifMissing()),
        refused -> {
          Change.Rejection rejection =
              change.claimPatches().isEmpty()
                  ? change.rules().ifConditionFails()
                  : change
                      .rules()
                      .refusal(store, change.partitionKey(), change.claimPatches().get(0).id());
          return attempt.deadLetter(rejection.reason(), rejection.description());
        },
        failed -> attempt.failed(failed.failure()));
  }

  /**
   * The record exists: one read tells a duplicate, a reused key, a live lease or a takeover; a
   * takeover is one conditional update fenced by the attempt number seen.
   */
  private static Outcome afterClaimConflict(
      EffectStore store,
      Change.TwoPhase change,
      Fingerprint fingerprint,
      Attempt attempt,
      Clock clock) {
    String recordId = change.record().get("id").asText();
    EffectStore.ReadResult read = store.read(change.partitionKey(), recordId);
    if (read instanceof EffectStore.Failed failed) {
      return attempt.failed(failed.failure());
    }
    if (read instanceof EffectStore.Absent) {
      return attempt.retry(
          Outcome.RetryCause.TRANSIENT, "the record " + recordId + " vanished after a conflict");
    }
    ObjectNode stored = ((EffectStore.Document) read).content();
    Optional<StoredAnchor> anchor = StoredAnchor.fromDocument(stored);
    if (anchor.isEmpty()) {
      return attempt.failed(
          new StoreFailure(
              StoreFailure.Kind.PERMANENT, 200, recordId + " exists but carries no fingerprint"));
    }
    if (!anchor.get().fingerprint().value().equals(fingerprint.value())) {
      return attempt.conflict(
          String.join(", ", fingerprint.differingFields(anchor.get().fingerprint())));
    }
    if (COMPLETED.equals(stored.path(STATUS).asText())) {
      return attempt.duplicate(anchor.get().writtenBy());
    }
    long seen = stored.path(ATTEMPT).asLong();
    long now = clock.millis();
    if (stored.path(LEASE_UNTIL).asLong() > now) {
      Instant leaseEnd = Instant.ofEpochMilli(stored.path(LEASE_UNTIL).asLong());
      return contested(
          attempt,
          recordId,
          "attempt " + seen + " holds the lease until " + leaseEnd,
          Optional.of(Duration.ofMillis(leaseEnd.toEpochMilli() - now)));
    }
    Duration lockLeft = LockFence.require(attempt.lock(), change.callNeeds(), "the takeover");
    long leaseUntil = leaseEnd(change, clock, lockLeft);
    List<DocumentPatch.Operation> takeoverOperations = new ArrayList<>();
    takeoverOperations.add(new DocumentPatch.SetField(ATTEMPT, JSON.numberNode(seen + 1)));
    takeoverOperations.add(new DocumentPatch.SetField(LEASE_UNTIL, JSON.numberNode(leaseUntil)));
    attempt
        .stamp()
        .ifPresent(
            stamp ->
                takeoverOperations.add(new DocumentPatch.SetField(DeliveryOrigin.FIELD, stamp)));
    DocumentPatch takeover =
        new DocumentPatch(
            recordId,
            takeoverOperations,
            Optional.of(
                new DocumentPatch.AllOf(
                    List.of(
                        new DocumentPatch.FieldEquals(STATUS, JSON.textNode(IN_PROGRESS)),
                        new DocumentPatch.FieldEquals(ATTEMPT, JSON.numberNode(seen)),
                        new DocumentPatch.AbsentOrBelow(LEASE_UNTIL, now + 1)))));
    return store
        .update(change.partitionKey(), takeover)
        .fold(
            applied ->
                callAndComplete(store, change, fingerprint, attempt, clock, seen + 1, leaseUntil),
            missing -> tookOverFirst(change, attempt, recordId, seen),
            refused -> tookOverFirst(change, attempt, recordId, seen),
            failed -> attempt.failed(failed.failure()));
  }

  private static Outcome tookOverFirst(
      Change.TwoPhase change, Attempt attempt, String recordId, long seen) {
    return contested(
        attempt,
        recordId,
        "another delivery took over attempt " + seen + " first",
        Optional.of(change.lease()));
  }

  /**
   * Another attempt holds the record (or this one cannot start its call in time): retry no earlier
   * than {@code retryAfter}; on the last delivery the queue allows, dead-letter with {@link
   * DeadLetterReason#CALL_IN_PROGRESS} instead, so the reason is named rather than the broker's
   * {@code MaxDeliveryCountExceeded}, and a resubmission finishes it.
   */
  private static Outcome contested(
      Attempt attempt, String recordId, String why, Optional<Duration> retryAfter) {
    if (attempt.lastDelivery()) {
      return attempt.deadLetter(
          DeadLetterReason.CALL_IN_PROGRESS,
          recordId
              + " is still InProgress on the last delivery the queue allows: "
              + why
              + "; resubmit once that attempt completed or its lease ended");
    }
    return new Outcome.Retry(
        Optional.of(attempt.key()),
        Optional.of(attempt.entityId()),
        Outcome.RetryCause.NOT_YET,
        recordId + ": " + why + "; retrying after it",
        retryAfter);
  }

  private static Outcome callAndComplete(
      EffectStore store,
      Change.TwoPhase change,
      Fingerprint fingerprint,
      Attempt attempt,
      Clock clock,
      long attemptNumber,
      long leaseUntil) {
    String recordId = change.record().get("id").asText();
    // The lock first (it may wait for a renewal), then the lease by the clock after that wait:
    // the call starts only if both outlast it, so no takeover and no redelivery can overlap it.
    LockFence.require(attempt.lock(), change.callNeeds(), "the call");
    long leaseLeft = leaseUntil - clock.millis();
    if (leaseLeft < change.callNeeds().toMillis()) {
      release(store, change, recordId, attemptNumber);
      return contested(
          attempt,
          recordId,
          "attempt "
              + attemptNumber
              + "'s lease has "
              + Math.max(0, leaseLeft)
              + " ms left, less than the call needs ("
              + change.callNeeds()
              + "); the call was not started",
          Optional.empty());
    }
    ExternalCall.Answer answer = change.call().call();
    if (answer instanceof ExternalCall.Busy busy) {
      return contested(
          attempt,
          recordId,
          "the call is in flight elsewhere: " + busy.description(),
          Optional.empty());
    }
    if (answer instanceof ExternalCall.KeyReused reused) {
      return attempt.conflict(
          "the other side saw the key with other parameters (" + reused.description() + ")");
    }
    if (answer instanceof ExternalCall.Unknown unknown) {
      release(store, change, recordId, attemptNumber);
      return attempt.retry(
          Outcome.RetryCause.TRANSIENT,
          "the call's outcome is unknown ("
              + unknown.description()
              + "); the retry reuses the key");
    }
    if (answer instanceof ExternalCall.Refused refused) {
      release(store, change, recordId, attemptNumber);
      return attempt.retry(
          Outcome.RetryCause.MISCONFIGURATION, "the call was refused: " + refused.description());
    }
    ObjectNode result = ((ExternalCall.Done) answer).result();
    Instant completedAt = clock.instant();
    Change.CompletionPlan plan = change.completion().plan(result, completedAt);
    List<DocumentPatch> patches = new ArrayList<>();
    patches.add(
        new DocumentPatch(
            recordId,
            List.of(
                new DocumentPatch.SetField(STATUS, JSON.textNode(COMPLETED)),
                new DocumentPatch.SetField("result", result),
                new DocumentPatch.SetField("completedAt", JSON.textNode(completedAt.toString()))),
            Optional.of(fencedBy(attemptNumber))));
    patches.addAll(plan.patches());
    EffectStore.WriteResult completed =
        store.apply(
            WriteSet.of(change.partitionKey(), fingerprint, plan.event(), List.of(), patches));
    return completed.fold(
        applied -> new Outcome.Processed(attempt.key(), attempt.entityId()),
        exists -> afterRefusedCompletion(store, change, attempt, clock, attemptNumber),
        missing -> afterRefusedCompletion(store, change, attempt, clock, attemptNumber),
        refused -> afterRefusedCompletion(store, change, attempt, clock, attemptNumber),
        failed -> {
          // The call happened; whoever retries must be able to take over at once and replay it.
          release(store, change, recordId, attemptNumber);
          return attempt.failed(failed.failure());
        });
  }

  /**
   * The completion was refused by the fence: another attempt took the record over. One read tells
   * whether that one already completed (a duplicate) or still holds its lease.
   */
  private static Outcome afterRefusedCompletion(
      EffectStore store, Change.TwoPhase change, Attempt attempt, Clock clock, long attemptNumber) {
    String recordId = change.record().get("id").asText();
    EffectStore.ReadResult read = store.read(change.partitionKey(), recordId);
    if (read instanceof EffectStore.Document document
        && COMPLETED.equals(document.content().path(STATUS).asText())) {
      return attempt.duplicate(DeliveryOrigin.read(document.content().get(DeliveryOrigin.FIELD)));
    }
    Optional<Duration> successorLease =
        read instanceof EffectStore.Document document
            ? Optional.of(
                    Duration.ofMillis(
                        document.content().path(LEASE_UNTIL).asLong() - clock.millis()))
                .filter(d -> !d.isNegative())
            : Optional.empty();
    return contested(
        attempt,
        recordId,
        "attempt " + attemptNumber + " lost it to a takeover before completing",
        successorLease);
  }

  /** Ends this attempt's lease so a redelivery can take over without waiting it out. */
  private static void release(
      EffectStore store, Change.TwoPhase change, String recordId, long attemptNumber) {
    store.update(
        change.partitionKey(),
        new DocumentPatch(
            recordId,
            List.of(new DocumentPatch.SetField(LEASE_UNTIL, JSON.numberNode(0L))),
            Optional.of(fencedBy(attemptNumber))));
  }

  /** The fencing condition: the record is still in progress under this attempt. */
  static DocumentPatch.Condition fencedBy(long attemptNumber) {
    return new DocumentPatch.AllOf(
        List.of(
            new DocumentPatch.FieldEquals(STATUS, JSON.textNode(IN_PROGRESS)),
            new DocumentPatch.FieldEquals(ATTEMPT, JSON.numberNode(attemptNumber))));
  }

  /**
   * The lease a claim or takeover writes: the ceiling, cut at the delivery's lock end, so that when
   * the lock goes (a crash, a stall) the lease is over by the time the message comes back.
   */
  private static long leaseEnd(Change.TwoPhase change, Clock clock, Duration lockLeft) {
    Duration lease = lockLeft.compareTo(change.lease()) < 0 ? lockLeft : change.lease();
    return clock.millis() + lease.toMillis();
  }
}
