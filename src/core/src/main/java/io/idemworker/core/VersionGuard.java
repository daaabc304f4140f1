package io.idemworker.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.core.IdempotentConsumer.Attempt;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * An absolute state behind a version guard: one conditional patch that sets the state and the
 * version only when the stored version is absent or lower. No marker: applying the same state again
 * changes nothing, and the guard refuses older ones, so there is no duplicate window to close and
 * nothing that must outlive redeliveries.
 *
 * <ul>
 *   <li>applied → {@link Outcome.Processed} (one round trip);
 *   <li>refused by the guard → one read to tell why (two round trips): a stored version above this
 *       one → {@link Outcome.Stale}; equal, with the same state → {@link Outcome.Duplicate}; equal,
 *       with another state → {@code IdempotencyConflict} naming the differing fields;
 *   <li>no target → not yet (retried, then dead-lettered with the declared reason).
 * </ul>
 *
 * <p>Versions only grow, so the read after a refusal sees a version at least as high as the one
 * that refused: the classification never races with a later writer into a wrong answer.
 */
final class VersionGuard {
  private VersionGuard() {}

  static Outcome apply(EffectStore store, Change.Versioned change, Attempt attempt) {
    List<DocumentPatch.Operation> operations = new ArrayList<>();
    change
        .state()
        .forEach((field, value) -> operations.add(new DocumentPatch.SetField(field, value)));
    operations.add(
        new DocumentPatch.SetField(change.versionField(), LongNode.valueOf(change.version())));
    attempt
        .stamp()
        .ifPresent(stamp -> operations.add(new DocumentPatch.SetField(stampField(change), stamp)));
    DocumentPatch patch =
        new DocumentPatch(
            change.targetId(),
            operations,
            Optional.of(new DocumentPatch.AbsentOrBelow(change.versionField(), change.version())));
    return store
        .update(change.partitionKey(), patch)
        .fold(
            applied -> new Outcome.Processed(attempt.key(), attempt.entityId()),
            missing -> attempt.notYet(change.ifMissing()),
            refused ->
                classify(store.read(change.partitionKey(), change.targetId()), change, attempt),
            failed -> attempt.failed(failed.failure()));
  }

  private static Outcome classify(
      EffectStore.ReadResult read, Change.Versioned change, Attempt attempt) {
    if (read instanceof EffectStore.Failed failed) {
      return attempt.failed(failed.failure());
    }
    if (read instanceof EffectStore.Absent) {
      return attempt.notYet(change.ifMissing());
    }
    ObjectNode stored = ((EffectStore.Document) read).content();
    JsonNode storedVersion = stored.get(change.versionField());
    if (storedVersion == null || !storedVersion.canConvertToLong()) {
      return attempt.retry(
          Outcome.RetryCause.TRANSIENT,
          "the guard refused version "
              + change.version()
              + " but "
              + change.versionField()
              + " is not stored as an integer; retrying");
    }
    long current = storedVersion.asLong();
    if (current > change.version()) {
      return new Outcome.Stale(
          attempt.key(),
          attempt.entityId(),
          change.versionField() + " " + change.version() + " < stored " + current);
    }
    if (current < change.version()) {
      // Only a store that broke its contract gets here; let a redelivery try the guard again.
      return attempt.retry(
          Outcome.RetryCause.TRANSIENT,
          "the guard refused version " + change.version() + " over stored " + current);
    }
    List<String> differing = new ArrayList<>();
    for (Map.Entry<String, JsonNode> field : change.state().entrySet()) {
      JsonNode value = stored.get(field.getKey());
      if (value == null
          || !CanonicalJson.write(value).equals(CanonicalJson.write(field.getValue()))) {
        differing.add(field.getKey());
      }
    }
    if (differing.isEmpty()) {
      return attempt.duplicate(DeliveryOrigin.read(stored.get(stampField(change))));
    }
    return attempt.conflict(String.join(", ", differing));
  }

  /**
   * The field beside the version that holds the stamp of the delivery that set it, e.g. {@code
   * statusVersionWrittenBy}.
   *
   * @param change the change
   * @return the field name
   */
  static String stampField(Change.Versioned change) {
    return change.versionField() + "WrittenBy";
  }
}
