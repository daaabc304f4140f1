package io.idemworker.core;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Objects;
import java.util.function.Function;

/**
 * The port to the database that holds the effects. Three operations, each exactly one round trip:
 * an atomic write set, a conditional patch of one document, and a point read.
 *
 * <p>Implementations must be thread-safe and classify their own failures into {@link StoreFailure}
 * instead of throwing for store errors.
 *
 * <p><b>Atomicity and races.</b> {@link #apply} creates and patches every operation of the write
 * set or none, and detects an existing anchor in the same operation that creates it: when two
 * callers apply write sets with the same anchor at once, exactly one gets {@link Applied}. {@link
 * #update} evaluates its condition and applies its operations as one step: two concurrent updates
 * guarded by {@link DocumentPatch.AbsentOrBelow} on the same field cannot both pass against the
 * same stored value.
 */
public interface EffectStore {

  /**
   * Creates every document of the write set and applies its patches, or does nothing.
   *
   * @param writeSet the operations
   * @return {@link Applied}; {@link AnchorExists} when the anchor was already there (reported
   *     before anything a patch would meet); {@link TargetMissing} or {@link ConditionFailed} for
   *     the first patch that could not apply; or {@link Failed}. Only {@link Applied} wrote
   *     anything.
   */
  WriteResult apply(WriteSet writeSet);

  /**
   * Patches one existing document when its condition holds.
   *
   * @param partitionKey the partition key value
   * @param patch the change
   * @return {@link Applied}, {@link TargetMissing}, {@link ConditionFailed} (nothing written), or
   *     {@link Failed}
   */
  UpdateResult update(String partitionKey, DocumentPatch patch);

  /**
   * Reads one document.
   *
   * @param partitionKey the partition key value
   * @param id the document id
   * @return {@link Document}, {@link Absent}, or {@link Failed}
   */
  ReadResult read(String partitionKey, String id);

  /**
   * Reads an anchor's fingerprint after {@link #apply} reported {@link AnchorExists}: one {@link
   * #read}.
   *
   * @param partitionKey the partition key value
   * @param anchorId the anchor's id
   * @return {@link Found}, {@link Absent}, or {@link Failed} (also when the document carries no
   *     fingerprint: something else owns that id)
   */
  default LookupResult findAnchor(String partitionKey, String anchorId) {
    ReadResult read = read(partitionKey, anchorId);
    if (read instanceof Document document) {
      return StoredAnchor.fromDocument(document.content())
          .<LookupResult>map(Found::new)
          .orElseGet(
              () ->
                  new Failed(
                      new StoreFailure(
                          StoreFailure.Kind.PERMANENT,
                          200,
                          "document " + anchorId + " exists but carries no fingerprint")));
    }
    return (LookupResult) read;
  }

  /**
   * The result of {@link #apply}. Callers dispatch with {@link #fold}, so a new kind of result does
   * not compile until every caller answers it.
   */
  sealed interface WriteResult
      permits Applied, AnchorExists, TargetMissing, ConditionFailed, Failed {
    /**
     * Applies the function for this kind of result.
     *
     * @param <T> what the caller makes of the result
     * @param applied every operation was applied
     * @param anchorExists the anchor already existed; nothing was written
     * @param targetMissing a patched document does not exist; nothing was written
     * @param conditionFailed a patched document refused its condition; nothing was written
     * @param failed the call failed
     * @return the chosen function's value
     */
    <T> T fold(
        Function<Applied, T> applied,
        Function<AnchorExists, T> anchorExists,
        Function<TargetMissing, T> targetMissing,
        Function<ConditionFailed, T> conditionFailed,
        Function<Failed, T> failed);
  }

  /**
   * The result of {@link #update}. Callers dispatch with {@link #fold}, as for {@link WriteResult}.
   */
  sealed interface UpdateResult permits Applied, TargetMissing, ConditionFailed, Failed {
    /**
     * Applies the function for this kind of result.
     *
     * @param <T> what the caller makes of the result
     * @param applied the patch was applied
     * @param targetMissing the document does not exist; nothing was written
     * @param conditionFailed the document refused the patch's condition; nothing was written
     * @param failed the call failed
     * @return the chosen function's value
     */
    <T> T fold(
        Function<Applied, T> applied,
        Function<TargetMissing, T> targetMissing,
        Function<ConditionFailed, T> conditionFailed,
        Function<Failed, T> failed);
  }

  /** The result of {@link #read}. */
  sealed interface ReadResult permits Document, Absent, Failed {}

  /** The result of {@link #findAnchor}. */
  sealed interface LookupResult permits Found, Absent, Failed {}

  /** Every operation was applied. */
  record Applied() implements WriteResult, UpdateResult {
    @Override
    public <T> T fold(
        Function<Applied, T> applied,
        Function<AnchorExists, T> anchorExists,
        Function<TargetMissing, T> targetMissing,
        Function<ConditionFailed, T> conditionFailed,
        Function<Failed, T> failed) {
      return applied.apply(this);
    }

    @Override
    public <T> T fold(
        Function<Applied, T> applied,
        Function<TargetMissing, T> targetMissing,
        Function<ConditionFailed, T> conditionFailed,
        Function<Failed, T> failed) {
      return applied.apply(this);
    }
  }

  /** The anchor already existed; nothing was written. */
  record AnchorExists() implements WriteResult {
    @Override
    public <T> T fold(
        Function<Applied, T> applied,
        Function<AnchorExists, T> anchorExists,
        Function<TargetMissing, T> targetMissing,
        Function<ConditionFailed, T> conditionFailed,
        Function<Failed, T> failed) {
      return anchorExists.apply(this);
    }
  }

  /**
   * A patched document does not exist; nothing was written.
   *
   * @param id the missing document's id
   */
  record TargetMissing(String id) implements WriteResult, UpdateResult {
    /** Requires the id. */
    public TargetMissing {
      Objects.requireNonNull(id, "id");
    }

    @Override
    public <T> T fold(
        Function<Applied, T> applied,
        Function<AnchorExists, T> anchorExists,
        Function<TargetMissing, T> targetMissing,
        Function<ConditionFailed, T> conditionFailed,
        Function<Failed, T> failed) {
      return targetMissing.apply(this);
    }

    @Override
    public <T> T fold(
        Function<Applied, T> applied,
        Function<TargetMissing, T> targetMissing,
        Function<ConditionFailed, T> conditionFailed,
        Function<Failed, T> failed) {
      return targetMissing.apply(this);
    }
  }

  /**
   * A patched document exists but does not satisfy the patch's condition; nothing was written.
   *
   * @param id the document's id
   */
  record ConditionFailed(String id) implements WriteResult, UpdateResult {
    /** Requires the id. */
    public ConditionFailed {
      Objects.requireNonNull(id, "id");
    }

    @Override
    public <T> T fold(
        Function<Applied, T> applied,
        Function<AnchorExists, T> anchorExists,
        Function<TargetMissing, T> targetMissing,
        Function<ConditionFailed, T> conditionFailed,
        Function<Failed, T> failed) {
      return conditionFailed.apply(this);
    }

    @Override
    public <T> T fold(
        Function<Applied, T> applied,
        Function<TargetMissing, T> targetMissing,
        Function<ConditionFailed, T> conditionFailed,
        Function<Failed, T> failed) {
      return conditionFailed.apply(this);
    }
  }

  /**
   * The document as stored.
   *
   * @param content a copy of it
   */
  record Document(ObjectNode content) implements ReadResult {
    /** Requires the content. */
    public Document {
      Objects.requireNonNull(content, "content");
    }
  }

  /**
   * The anchor was found.
   *
   * @param anchor what it holds
   */
  record Found(StoredAnchor anchor) implements LookupResult {}

  /** No document with that id (it expired, was deleted, or never existed). */
  record Absent() implements LookupResult, ReadResult {}

  /**
   * The call failed.
   *
   * @param failure the classified failure
   */
  record Failed(StoreFailure failure)
      implements WriteResult, UpdateResult, LookupResult, ReadResult {
    @Override
    public <T> T fold(
        Function<Applied, T> applied,
        Function<AnchorExists, T> anchorExists,
        Function<TargetMissing, T> targetMissing,
        Function<ConditionFailed, T> conditionFailed,
        Function<Failed, T> failed) {
      return failed.apply(this);
    }

    @Override
    public <T> T fold(
        Function<Applied, T> applied,
        Function<TargetMissing, T> targetMissing,
        Function<ConditionFailed, T> conditionFailed,
        Function<Failed, T> failed) {
      return failed.apply(this);
    }
  }
}
