package io.idemworker.core;

/**
 * The port to the database that holds the effects.
 *
 * <p>Implementations must be thread-safe. {@link #apply} must be atomic (every document of the
 * write set or none) and must detect an existing anchor in the same operation that creates it: when
 * two callers apply write sets with the same anchor at once, exactly one gets {@link Applied}.
 * Implementations classify their own failures into {@link StoreFailure} and do not throw for store
 * errors.
 */
public interface EffectStore {

  /**
   * Creates every document of the write set, or none.
   *
   * @param writeSet the documents
   * @return {@link Applied}, {@link AnchorExists} when the anchor was already there (nothing was
   *     written), or {@link Failed}
   */
  WriteResult apply(WriteSet writeSet);

  /**
   * Reads an anchor's fingerprint after {@link #apply} reported {@link AnchorExists}.
   *
   * @param partitionKey the partition key value
   * @param anchorId the anchor's id
   * @return {@link Found}, {@link Absent}, or {@link Failed}
   */
  LookupResult findAnchor(String partitionKey, String anchorId);

  /** The result of {@link #apply}. */
  sealed interface WriteResult permits Applied, AnchorExists, Failed {}

  /** The result of {@link #findAnchor}. */
  sealed interface LookupResult permits Found, Absent, Failed {}

  /** Every document was created. */
  record Applied() implements WriteResult {}

  /** The anchor already existed; nothing was written. */
  record AnchorExists() implements WriteResult {}

  /**
   * The anchor was found.
   *
   * @param anchor what it holds
   */
  record Found(StoredAnchor anchor) implements LookupResult {}

  /** No anchor with that id (it expired, was deleted, or never existed). */
  record Absent() implements LookupResult {}

  /**
   * The call failed.
   *
   * @param failure the classified failure
   */
  record Failed(StoreFailure failure) implements WriteResult, LookupResult {}
}
