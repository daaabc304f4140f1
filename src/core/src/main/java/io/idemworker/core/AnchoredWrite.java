package io.idemworker.core;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.core.IdempotentConsumer.Attempt;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Create-as-check: one atomic write whose anchor's create is the duplicate check.
 *
 * <ul>
 *   <li>applied → {@link Outcome.Processed} (one round trip);
 *   <li>the anchor exists → one read of it: the same fingerprint is a {@link Outcome.Duplicate},
 *       another is an {@code IdempotencyConflict} naming the differing fields (two round trips);
 *   <li>a patched document is missing → when the change declares a seed for it, the seed is created
 *       (applied, or already there) and the write set applied once more, whose result is then
 *       answered as here (three round trips for a first event); without a seed, or when the target
 *       is still missing, not yet (retried, then dead-lettered with the declared reason);
 *   <li>a patched document refuses its condition → dead-lettered with the declared reason;
 *   <li>a store failure → classified by {@link Attempt#failed}.
 * </ul>
 *
 * <p>The anchor carries the stamp of the delivery that wrote it ({@link DeliveryOrigin}); the read
 * on the duplicate path compares it with this delivery's to name the duplicate's source.
 *
 * <p>The anchor is checked before any patch, so a copy of a message whose relative change was
 * applied is a duplicate even if the changed document has since changed again.
 */
final class AnchoredWrite {
  private AnchoredWrite() {}

  static Outcome apply(
      EffectStore store, Change.Anchored change, Fingerprint fingerprint, Attempt attempt) {
    WriteSet writeSet = stamped(change.writeSet(), attempt);
    EffectStore.WriteResult result =
        store
            .apply(writeSet)
            .fold(
                applied -> applied,
                exists -> exists,
                missing ->
                    change.seedFor(missing.id()).isPresent()
                        ? seedThenApply(store, change, writeSet, missing.id())
                        : missing,
                refused -> refused,
                failed -> failed);
    return result.fold(
        applied -> new Outcome.Processed(attempt.key(), attempt.entityId()),
        exists -> duplicateOrConflict(store, writeSet, fingerprint, attempt),
        missing -> attempt.notYet(change.rules().orElseThrow().ifMissing()),
        refused -> {
          Change.Rejection rejection =
              change
                  .rules()
                  .orElseThrow()
                  .refusal(store, writeSet.partitionKey(), writeSet.patches().get(0).id());
          return attempt.deadLetter(rejection.reason(), rejection.description());
        },
        failed -> attempt.failed(failed.failure()));
  }

  /** The anchor exists: one read of it tells a duplicate from a reused key. */
  private static Outcome duplicateOrConflict(
      EffectStore store, WriteSet writeSet, Fingerprint fingerprint, Attempt attempt) {
    EffectStore.LookupResult lookup =
        store.findAnchor(writeSet.partitionKey(), writeSet.anchorId());
    if (lookup instanceof EffectStore.Found found) {
      Fingerprint stored = found.anchor().fingerprint();
      if (stored.value().equals(fingerprint.value())) {
        return attempt.duplicate(found.anchor().writtenBy());
      }
      Set<String> differing = fingerprint.differingFields(stored);
      return attempt.conflict(String.join(", ", differing));
    }
    if (lookup instanceof EffectStore.Failed failed) {
      return attempt.failed(failed.failure());
    }
    return attempt.retry(
        Outcome.RetryCause.TRANSIENT,
        "the store reported a conflict but the anchor is gone (expired or deleted); retrying");
  }

  /**
   * Creates the seed of a missing target as a one-document write set (the seed is its own anchor,
   * fingerprinted by its content), then applies the write set once more. A seed that already exists
   * was created by another message, which is as good; a seed that fails is the answer.
   */
  private static EffectStore.WriteResult seedThenApply(
      EffectStore store, Change.Anchored change, WriteSet writeSet, String id) {
    ObjectNode seed = change.seedFor(id).orElseThrow();
    return store
        .apply(WriteSet.of(writeSet.partitionKey(), Fingerprint.of(seed), seed, List.of()))
        .fold(
            created -> store.apply(writeSet),
            exists -> store.apply(writeSet),
            missing -> store.apply(writeSet),
            refused -> store.apply(writeSet),
            failed -> failed);
  }

  /**
   * The write set with this delivery's stamp on its anchor, when the delivery's origin is known.
   */
  private static WriteSet stamped(WriteSet writeSet, Attempt attempt) {
    if (attempt.origin().isEmpty()) {
      return writeSet;
    }
    List<ObjectNode> documents = new ArrayList<>(writeSet.documents());
    documents.set(0, attempt.stamped(writeSet.anchor()));
    return new WriteSet(
        writeSet.partitionKey(), documents, writeSet.patches(), writeSet.fingerprint());
  }
}
