package io.idemworker.core;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Records for requests whose answer a client may ask for again (an HTTP POST retried under the same
 * {@code Idempotency-Key}): the two-phase shape of {@link TwoPhaseCall} — claim with a lease, do
 * the work, complete with the answer under the attempt as fencing token — with the answer kept for
 * a window and then forgotten.
 *
 * <p>Each record is a document of its own partition ({@code id} = partition key = the record id the
 * caller derives from the key), because a client-chosen key may come back with another body that
 * concerns another entity: a record beside the entity could not see that reuse. The record carries
 * the request's {@link Fingerprint} (stamped as an anchor's), {@code status} ({@code InProgress} or
 * {@code Completed}), {@code attempt}, {@code leaseUntilMillis}, and once completed the stored
 * {@code response} (an opaque JSON object: this class knows nothing of HTTP) and {@code
 * expiresAtMillis}; and a Cosmos DB {@code ttl} a little longer than the window, so the store
 * removes it after the window without a sweeper.
 *
 * <p>{@link #claim} decides, in one round trip for a new key and two or three otherwise:
 *
 * <ul>
 *   <li>no record → {@link Claimed} attempt 1;
 *   <li>a record with another fingerprint, inside the window → {@link Reused} naming the fields;
 *   <li>completed, inside the window → {@link Replay} of the stored response;
 *   <li>in progress under a live lease → {@link InFlight} with the lease's remaining time;
 *   <li>in progress under an expired lease (its request crashed), or completed past the window →
 *       taken over with a patch conditioned on the status and attempt seen ({@link Claimed} attempt
 *       + 1); of two requests that race for it one wins and the other is told {@link InFlight}.
 * </ul>
 *
 * <p>Expiry is decided by this class's clock against {@code expiresAtMillis}, not by the store's
 * TTL sweep, so the window is exact and tests move time by hand.
 *
 * <p>Thread-safe when the store is; keeps no state between calls; never throws for store errors
 * (they come back as {@link Failed}).
 */
public final class RequestRecords {
  static final String EXPIRES_AT = "expiresAtMillis";
  static final String RESPONSE = "response";
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  /** Extra store lifetime past the window, so clock skew never removes a record early. */
  private static final Duration TTL_MARGIN = Duration.ofMinutes(5);

  private final EffectStore store;
  private final String partitionKeyField;
  private final Duration lease;
  private final Duration window;
  private final Clock clock;

  /**
   * Creates the records' logic.
   *
   * @param store the store holding the records
   * @param partitionKeyField the container's partition key field (e.g. {@code shipmentId}): each
   *     record carries its own id in it
   * @param lease how long a claim keeps other requests with the key out; positive
   * @param window how long a completed answer is replayed; longer than the lease
   * @param clock decides lease and window expiry
   */
  public RequestRecords(
      EffectStore store, String partitionKeyField, Duration lease, Duration window, Clock clock) {
    this.store = Objects.requireNonNull(store, "store");
    this.partitionKeyField = Objects.requireNonNull(partitionKeyField, "partitionKeyField");
    this.clock = Objects.requireNonNull(clock, "clock");
    if (lease.isNegative() || lease.isZero() || window.compareTo(lease) <= 0) {
      throw new IllegalArgumentException("need 0 < lease < window, was " + lease + ", " + window);
    }
    this.lease = lease;
    this.window = window;
  }

  /**
   * Claims the record for one request, or says why not.
   *
   * @param recordId the record's id and partition key: derived from the key (and the client it
   *     belongs to); at most 255 characters, none of {@code / \ ? #}
   * @param fingerprint the request's fingerprint
   * @return {@link Claimed}, {@link Replay}, {@link InFlight}, {@link Reused} or {@link Failed}
   */
  public Claim claim(String recordId, Fingerprint fingerprint) {
    // A record that the store's TTL removes between the create and the read is claimed afresh.
    for (int round = 0; round < 2; round++) {
      Optional<Claim> decided = claimOnce(recordId, fingerprint);
      if (decided.isPresent()) {
        return decided.get();
      }
    }
    return new Failed(
        new StoreFailure(
            StoreFailure.Kind.TRANSIENT, 404, "record " + recordId + " vanished twice; retrying"));
  }

  private Optional<Claim> claimOnce(String recordId, Fingerprint fingerprint) {
    ObjectNode record = JSON.objectNode();
    record.put("id", recordId);
    record.put(partitionKeyField, recordId);
    record.put("type", "requestRecord");
    record.put(TwoPhaseCall.STATUS, TwoPhaseCall.IN_PROGRESS);
    record.put(TwoPhaseCall.ATTEMPT, 1);
    record.put(TwoPhaseCall.LEASE_UNTIL, clock.millis() + lease.toMillis());
    record.put("ttl", ttlSeconds());
    EffectStore.WriteResult created =
        store.apply(WriteSet.of(recordId, fingerprint, record, List.of()));
    return created.fold(
        applied -> Optional.of(new Claimed(1)),
        exists -> afterCreateConflict(recordId, fingerprint),
        missing -> Optional.of(refusedCreate()),
        refused -> Optional.of(refusedCreate()),
        failed -> Optional.of(new Failed(failed.failure())));
  }

  private static Claim refusedCreate() {
    return new Failed(
        new StoreFailure(StoreFailure.Kind.PERMANENT, 500, "a create without patches was refused"));
  }

  /** The record exists: one read tells a replay, a reused key, a live lease or a takeover. */
  private Optional<Claim> afterCreateConflict(String recordId, Fingerprint fingerprint) {
    EffectStore.ReadResult read = store.read(recordId, recordId);
    if (read instanceof EffectStore.Failed failed) {
      return Optional.of(new Failed(failed.failure()));
    }
    if (read instanceof EffectStore.Absent) {
      return Optional.empty();
    }
    ObjectNode stored = ((EffectStore.Document) read).content();
    Optional<StoredAnchor> anchor = StoredAnchor.fromDocument(stored);
    if (anchor.isEmpty()) {
      return Optional.of(
          new Failed(
              new StoreFailure(
                  StoreFailure.Kind.PERMANENT, 200, recordId + " exists but has no fingerprint")));
    }
    long now = clock.millis();
    long seen = stored.path(TwoPhaseCall.ATTEMPT).asLong();
    boolean completed = TwoPhaseCall.COMPLETED.equals(stored.path(TwoPhaseCall.STATUS).asText());
    if (completed && stored.path(EXPIRES_AT).asLong() <= now) {
      return Optional.of(takeOver(recordId, fingerprint, seen, completed, now));
    }
    if (!anchor.get().fingerprint().value().equals(fingerprint.value())) {
      return Optional.of(
          new Reused(List.copyOf(fingerprint.differingFields(anchor.get().fingerprint()))));
    }
    if (completed) {
      if (!stored.path(RESPONSE).isObject()) {
        return Optional.of(
            new Failed(
                new StoreFailure(
                    StoreFailure.Kind.PERMANENT,
                    200,
                    recordId + " is completed without a response")));
      }
      return Optional.of(new Replay(((ObjectNode) stored.get(RESPONSE)).deepCopy()));
    }
    long leaseUntil = stored.path(TwoPhaseCall.LEASE_UNTIL).asLong();
    if (leaseUntil > now) {
      return Optional.of(new InFlight(Duration.ofMillis(leaseUntil - now)));
    }
    return Optional.of(takeOver(recordId, fingerprint, seen, completed, now));
  }

  /** Takes a crashed or expired record over; the attempt seen is the fencing token. */
  private Claim takeOver(
      String recordId, Fingerprint fingerprint, long seen, boolean completed, long now) {
    ObjectNode digests = JSON.objectNode();
    fingerprint.fields().forEach(digests::put);
    DocumentPatch.Condition unchanged =
        completed
            ? new DocumentPatch.AllOf(
                List.of(
                    new DocumentPatch.FieldEquals(
                        TwoPhaseCall.STATUS, JSON.textNode(TwoPhaseCall.COMPLETED)),
                    new DocumentPatch.FieldEquals(TwoPhaseCall.ATTEMPT, JSON.numberNode(seen))))
            : new DocumentPatch.AllOf(
                List.of(
                    new DocumentPatch.FieldEquals(
                        TwoPhaseCall.STATUS, JSON.textNode(TwoPhaseCall.IN_PROGRESS)),
                    new DocumentPatch.FieldEquals(TwoPhaseCall.ATTEMPT, JSON.numberNode(seen)),
                    new DocumentPatch.AbsentOrBelow(TwoPhaseCall.LEASE_UNTIL, now + 1)));
    DocumentPatch patch =
        new DocumentPatch(
            recordId,
            List.of(
                new DocumentPatch.SetField(
                    TwoPhaseCall.STATUS, JSON.textNode(TwoPhaseCall.IN_PROGRESS)),
                new DocumentPatch.SetField(TwoPhaseCall.ATTEMPT, JSON.numberNode(seen + 1)),
                new DocumentPatch.SetField(
                    TwoPhaseCall.LEASE_UNTIL, JSON.numberNode(now + lease.toMillis())),
                new DocumentPatch.SetField(
                    WriteSet.FINGERPRINT_FIELD, JSON.textNode(fingerprint.value())),
                new DocumentPatch.SetField(WriteSet.FIELD_DIGESTS_FIELD, digests),
                new DocumentPatch.SetField(EXPIRES_AT, JSON.numberNode(0L)),
                new DocumentPatch.SetField("ttl", JSON.numberNode(ttlSeconds()))),
            Optional.of(unchanged));
    // Refused or missing: another request took it over first (or the store removed it), and that
    // one is now in flight.
    return store
        .update(recordId, patch)
        .fold(
            applied -> new Claimed(seen + 1),
            missing -> new InFlight(lease),
            refused -> new InFlight(lease),
            failed -> new Failed(failed.failure()));
  }

  /**
   * Stores the answer and starts the window, if this attempt still holds the record.
   *
   * @param recordId the record
   * @param attempt the attempt {@link Claimed} returned
   * @param response the answer to replay, as an opaque JSON object
   * @return {@link EffectStore.Applied}; {@link EffectStore.ConditionFailed} when another attempt
   *     took the record over (its answer will be stored instead); {@link EffectStore.TargetMissing}
   *     or {@link EffectStore.Failed}
   */
  public EffectStore.UpdateResult complete(String recordId, long attempt, ObjectNode response) {
    long now = clock.millis();
    return store.update(
        recordId,
        new DocumentPatch(
            recordId,
            List.of(
                new DocumentPatch.SetField(
                    TwoPhaseCall.STATUS, JSON.textNode(TwoPhaseCall.COMPLETED)),
                new DocumentPatch.SetField(RESPONSE, response.deepCopy()),
                new DocumentPatch.SetField(EXPIRES_AT, JSON.numberNode(now + window.toMillis())),
                // The store's TTL counts from this last write.
                new DocumentPatch.SetField("ttl", JSON.numberNode(ttlSeconds()))),
            Optional.of(TwoPhaseCall.fencedBy(attempt))));
  }

  /**
   * Ends an attempt's lease without an answer (the work failed in a way a retry may fix), so the
   * client's retry takes over at once instead of being told the request is in flight.
   *
   * @param recordId the record
   * @param attempt the attempt {@link Claimed} returned
   * @return the store's answer; a refusal means another attempt holds the record, which is fine
   */
  public EffectStore.UpdateResult release(String recordId, long attempt) {
    return store.update(
        recordId,
        new DocumentPatch(
            recordId,
            List.of(new DocumentPatch.SetField(TwoPhaseCall.LEASE_UNTIL, JSON.numberNode(0L))),
            Optional.of(TwoPhaseCall.fencedBy(attempt))));
  }

  /**
   * How long a completed answer is replayed.
   *
   * @return the window
   */
  public Duration window() {
    return window;
  }

  private int ttlSeconds() {
    long seconds = window.plus(TTL_MARGIN).toSeconds();
    return (int) Math.min(Integer.MAX_VALUE, seconds);
  }

  /** The result of {@link #claim}. */
  public sealed interface Claim permits Claimed, Replay, InFlight, Reused, Failed {}

  /**
   * This request holds the record: do the work, then {@link #complete} or {@link #release}.
   *
   * @param attempt the fencing token
   */
  public record Claimed(long attempt) implements Claim {}

  /**
   * An earlier request with this key and this content completed inside the window.
   *
   * @param response the stored answer
   */
  public record Replay(ObjectNode response) implements Claim {
    /** Requires the response. */
    public Replay {
      Objects.requireNonNull(response, "response");
    }
  }

  /**
   * Another request with this key and this content holds a live lease.
   *
   * @param retryAfter how long until the lease ends
   */
  public record InFlight(Duration retryAfter) implements Claim {
    /** Requires a non-negative duration. */
    public InFlight {
      if (retryAfter.isNegative()) {
        throw new IllegalArgumentException("retryAfter must not be negative");
      }
    }
  }

  /**
   * The key was used inside the window for other content.
   *
   * @param differingFields the top-level fields that differ, in name order
   */
  public record Reused(List<String> differingFields) implements Claim {
    /** Copies the names. */
    public Reused {
      differingFields = List.copyOf(differingFields);
    }
  }

  /**
   * The store failed; nothing is known.
   *
   * @param failure the classified failure
   */
  public record Failed(StoreFailure failure) implements Claim {}
}
