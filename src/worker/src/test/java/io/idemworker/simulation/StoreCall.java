package io.idemworker.simulation;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.core.DocumentPatch;
import io.idemworker.core.EffectStore;
import io.idemworker.core.Fingerprint;
import io.idemworker.core.InMemoryEffectStore;
import io.idemworker.core.WriteSet;
import io.idemworker.orders.CaptureAnswer;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * One store round trip as the scheduler sees it: a step of its own, executed atomically against the
 * simulated store, with a description in words for counterexamples.
 */
sealed interface StoreCall {

  /**
   * The partition the call touches.
   *
   * @return the partition key value
   */
  String partitionKey();

  /**
   * The request in words; equal requests have equal descriptions (replay checks this).
   *
   * @return the description
   */
  String describe();

  /**
   * Runs the call against the real in-memory store.
   *
   * @param store the store materialised from the snapshot
   * @return the store's result
   */
  Object run(InMemoryEffectStore store);

  /**
   * The documents the call wrote, given its result.
   *
   * @param result what {@link #run} returned
   * @return ids of written documents
   */
  Set<String> written(Object result);

  /**
   * Documents the call overwrites whatever they hold (only a blind write has any).
   *
   * @return ids
   */
  default Set<String> replaced() {
    return Set.of();
  }

  /** {@link EffectStore#apply}: the atomic batch with create-as-check on the anchor. */
  record Apply(WriteSet writeSet) implements StoreCall {
    @Override
    public String partitionKey() {
      return writeSet.partitionKey();
    }

    @Override
    public String describe() {
      return "batch(" + operations(writeSet, "create") + ")";
    }

    @Override
    public Object run(InMemoryEffectStore store) {
      return store.apply(writeSet);
    }

    @Override
    public Set<String> written(Object result) {
      return result instanceof EffectStore.Applied ? ids(writeSet) : Set.of();
    }
  }

  /**
   * A blind write of a whole write set: documents replaced, patches applied, no create-as-check.
   * Only mutants use it (an upsert after a read).
   */
  record Upsert(WriteSet writeSet) implements StoreCall {
    @Override
    public String partitionKey() {
      return writeSet.partitionKey();
    }

    @Override
    public String describe() {
      return "blind write(" + operations(writeSet, "upsert") + ")";
    }

    @Override
    public Object run(InMemoryEffectStore store) {
      return store.apply(writeSet);
    }

    @Override
    public Set<String> written(Object result) {
      return result instanceof EffectStore.Applied ? ids(writeSet) : Set.of();
    }

    @Override
    public Set<String> replaced() {
      Set<String> ids = new LinkedHashSet<>();
      writeSet.documents().forEach(document -> ids.add(document.get("id").asText()));
      return ids;
    }
  }

  /** {@link EffectStore#update}: a conditional patch of one document. */
  record Update(String partitionKey, DocumentPatch patch) implements StoreCall {
    @Override
    public String describe() {
      return "patch(" + describePatch(patch) + ")";
    }

    @Override
    public Object run(InMemoryEffectStore store) {
      return store.update(partitionKey, patch);
    }

    @Override
    public Set<String> written(Object result) {
      return result instanceof EffectStore.Applied ? Set.of(patch.id()) : Set.of();
    }
  }

  /**
   * A capture at the simulated payment provider, which keeps its own ledger (partition {@value
   * #PROVIDER}) and executes an idempotency key once: a repeat with the same parameters gets the
   * first answer replayed, one with other parameters a key conflict.
   */
  record Capture(String idempotencyKey, String orderId, BigDecimal amount, String currency)
      implements StoreCall {
    @Override
    public String partitionKey() {
      return PROVIDER;
    }

    @Override
    public String describe() {
      return "provider capture "
          + amount.toPlainString()
          + " "
          + currency
          + " for "
          + orderId
          + " (Idempotency-Key "
          + idempotencyKey
          + ")";
    }

    @Override
    public Object run(InMemoryEffectStore store) {
      ObjectNode parameters =
          JsonNodeFactory.instance
              .objectNode()
              .put("orderId", orderId)
              .put("amount", amount.toPlainString())
              .put("currency", currency);
      Fingerprint fingerprint = Fingerprint.of(parameters);
      String id = captureId(idempotencyKey);
      if (store.findAnchor(PROVIDER, declineId(idempotencyKey)) instanceof EffectStore.Found) {
        // The provider declined this key earlier (CallFaults): it replays the decline.
        return new CaptureAnswer.Declined("card_declined", true);
      }
      EffectStore.WriteResult created =
          store.apply(
              WriteSet.of(PROVIDER, fingerprint, parameters.deepCopy().put("id", id), List.of()));
      if (created instanceof EffectStore.Applied) {
        return new CaptureAnswer.Captured(id, false);
      }
      EffectStore.LookupResult stored = store.findAnchor(PROVIDER, id);
      if (stored instanceof EffectStore.Found found
          && found.anchor().fingerprint().value().equals(fingerprint.value())) {
        return new CaptureAnswer.Captured(id, true);
      }
      return new CaptureAnswer.KeyConflict("key " + idempotencyKey + " used with other parameters");
    }

    @Override
    public Set<String> written(Object result) {
      return result instanceof CaptureAnswer.Captured captured && !captured.replayed()
          ? Set.of(captured.captureId())
          : Set.of();
    }
  }

  /** The provider's partition in the simulated store. */
  String PROVIDER = "provider";

  /**
   * The id of the provider's record of a decline for a key ({@link CallFaults}).
   *
   * @param idempotencyKey the key
   * @return {@code decline:{key}}
   */
  static String declineId(String idempotencyKey) {
    return "decline:" + idempotencyKey;
  }

  /**
   * The id of the provider's capture for a key (also the capture id it answers with).
   *
   * @param idempotencyKey the key
   * @return {@code capture:{key}}
   */
  static String captureId(String idempotencyKey) {
    return "capture:" + idempotencyKey;
  }

  /** {@link EffectStore#read}: a point read. */
  record Read(String partitionKey, String id) implements StoreCall {
    @Override
    public String describe() {
      return "read " + id;
    }

    @Override
    public Object run(InMemoryEffectStore store) {
      return store.read(partitionKey, id);
    }

    @Override
    public Set<String> written(Object result) {
      return Set.of();
    }
  }

  /**
   * A store result in words, as a counterexample prints it.
   *
   * @param result the result
   * @return e.g. {@code applied}, {@code 409 anchor exists}
   */
  static String describeResult(Object result) {
    if (result instanceof EffectStore.Applied) {
      return "applied";
    }
    if (result instanceof EffectStore.AnchorExists) {
      return "409 anchor exists";
    }
    if (result instanceof EffectStore.TargetMissing missing) {
      return "404 " + missing.id() + " missing";
    }
    if (result instanceof EffectStore.ConditionFailed failed) {
      return "412 condition failed on " + failed.id();
    }
    if (result instanceof EffectStore.Absent) {
      return "404 absent";
    }
    if (result instanceof EffectStore.Document document) {
      return "found " + summary(document.content());
    }
    if (result instanceof EffectStore.Failed failed) {
      return "failed " + failed.failure().statusCode() + " " + failed.failure().kind();
    }
    if (result instanceof CaptureAnswer.Captured captured) {
      return (captured.replayed() ? "replayed " : "captured ") + captured.captureId();
    }
    return String.valueOf(result);
  }

  /**
   * A document without its fingerprint and order lines, for counterexamples.
   *
   * @param document the document
   * @return its remaining fields as JSON
   */
  static String summary(ObjectNode document) {
    ObjectNode shown = document.deepCopy();
    shown.remove(List.of(WriteSet.FINGERPRINT_FIELD, WriteSet.FIELD_DIGESTS_FIELD, "lines"));
    return shown.toString();
  }

  private static Set<String> ids(WriteSet writeSet) {
    Set<String> ids = new LinkedHashSet<>();
    writeSet.documents().forEach(document -> ids.add(document.get("id").asText()));
    writeSet.patches().forEach(patch -> ids.add(patch.id()));
    return ids;
  }

  private static String operations(WriteSet writeSet, String verb) {
    List<String> parts = new ArrayList<>();
    writeSet.documents().forEach(document -> parts.add(verb + " " + document.get("id").asText()));
    writeSet.patches().forEach(patch -> parts.add("patch " + describePatch(patch)));
    return String.join(" + ", parts);
  }

  private static String describeCondition(DocumentPatch.Condition condition) {
    return condition.fold(
        equals -> equals.field() + " = " + equals.value(),
        below -> below.field() + " absent or < " + below.bound(),
        least -> least.field() + " >= " + least.bound(),
        array -> array.field() + " is an array",
        all -> {
          List<String> parts = new ArrayList<>();
          all.conditions().forEach(c -> parts.add(describeCondition(c)));
          return String.join(" and ", parts);
        });
  }

  private static String describePatch(DocumentPatch patch) {
    List<String> operations = new ArrayList<>();
    for (DocumentPatch.Operation operation : patch.operations()) {
      operations.add(
          operation.fold(
              set -> set.field() + " = " + set.value(),
              increment -> increment.field() + " += " + increment.delta(),
              append -> append.field() + " += [" + append.value() + "]"));
    }
    String condition =
        patch
            .condition()
            .map(
                c -> {
                  return " if " + describeCondition(c);
                })
            .orElse("");
    return patch.id() + " {" + String.join(", ", operations) + "}" + condition;
  }
}
