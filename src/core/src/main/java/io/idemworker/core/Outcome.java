package io.idemworker.core;

import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * How the handling of one delivery ended. Every delivery ends in exactly one of these; the broker
 * adapter maps each to one settlement:
 *
 * <ul>
 *   <li>{@link Processed}, {@link Duplicate} and {@link Stale} → complete;
 *   <li>{@link DeadLettered} → dead-letter with {@link DeadLetterReason#code()} and the
 *       description;
 *   <li>{@link Retry} → abandon after a back-off that stays inside the lock, so the broker
 *       redelivers; with {@link RetryCause#LOCK_LOST}, no settlement (the lock is gone).
 * </ul>
 *
 * <p>{@link #fold} is the exhaustive match: Java 17 has no pattern {@code switch} over sealed types
 * yet, so adding a sixth outcome breaks every caller at compile time instead of falling through.
 */
public sealed interface Outcome {

  /**
   * The idempotency key, when one could be derived.
   *
   * @return the key
   */
  Optional<IdempotencyKey> knownKey();

  /**
   * The business entity's id, when the body was readable enough to tell.
   *
   * @return the entity id
   */
  Optional<String> knownEntityId();

  /**
   * A short label for logs and metrics: {@code processed}, {@code duplicate}, {@code stale}, {@code
   * dead_lettered} or {@code retried}.
   *
   * @return the label
   */
  String label();

  /**
   * Applies the function for this outcome's kind.
   *
   * @param processed applied to {@link Processed}
   * @param duplicate applied to {@link Duplicate}
   * @param stale applied to {@link Stale}
   * @param deadLettered applied to {@link DeadLettered}
   * @param retry applied to {@link Retry}
   * @param <R> the result type
   * @return the applied function's result
   */
  <R> R fold(
      Function<Processed, R> processed,
      Function<Duplicate, R> duplicate,
      Function<Stale, R> stale,
      Function<DeadLettered, R> deadLettered,
      Function<Retry, R> retry);

  /**
   * The effect was applied now, by this delivery.
   *
   * @param key the key
   * @param entityId the entity created
   */
  record Processed(IdempotencyKey key, String entityId) implements Outcome {
    /** Requires both values. */
    public Processed {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(entityId, "entityId");
    }

    @Override
    public Optional<IdempotencyKey> knownKey() {
      return Optional.of(key);
    }

    @Override
    public Optional<String> knownEntityId() {
      return Optional.of(entityId);
    }

    @Override
    public String label() {
      return "processed";
    }

    @Override
    public <R> R fold(
        Function<Processed, R> processed,
        Function<Duplicate, R> duplicate,
        Function<Stale, R> stale,
        Function<DeadLettered, R> deadLettered,
        Function<Retry, R> retry) {
      return processed.apply(this);
    }
  }

  /**
   * The effect had already been applied by an earlier copy of this message; nothing was written.
   *
   * @param key the key
   * @param entityId the entity that already exists
   * @param source where this copy came from, told from the stamp of the delivery that wrote the
   *     effect
   * @param producerAttempt the producer's send attempt this copy carried ({@code
   *     idemworker-send-attempt}, e.g. 2 for a {@code resend} after a lost acknowledgement); 0 when
   *     not stamped
   */
  record Duplicate(IdempotencyKey key, String entityId, DuplicateSource source, int producerAttempt)
      implements Outcome {
    /** Requires every value; the attempt is not negative. */
    public Duplicate {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(entityId, "entityId");
      Objects.requireNonNull(source, "source");
      if (producerAttempt < 0) {
        throw new IllegalArgumentException("producerAttempt must be at least 0");
      }
    }

    /**
     * A duplicate whose producer attempt is not known.
     *
     * @param key the key
     * @param entityId the entity that already exists
     * @param source where this copy came from
     */
    public Duplicate(IdempotencyKey key, String entityId, DuplicateSource source) {
      this(key, entityId, source, 0);
    }

    /**
     * The source as an operator reads it: the label, and the producer's attempt when stamped
     * ({@code resend (producer attempt 2)}).
     *
     * @return e.g. {@code resend (producer attempt 2)} or {@code redelivery}
     */
    public String provenance() {
      return producerAttempt > 0
          ? source.label() + " (producer attempt " + producerAttempt + ")"
          : source.label();
    }

    /**
     * A duplicate whose source is not told.
     *
     * @param key the key
     * @param entityId the entity that already exists
     */
    public Duplicate(IdempotencyKey key, String entityId) {
      this(key, entityId, DuplicateSource.UNKNOWN);
    }

    @Override
    public Optional<IdempotencyKey> knownKey() {
      return Optional.of(key);
    }

    @Override
    public Optional<String> knownEntityId() {
      return Optional.of(entityId);
    }

    @Override
    public String label() {
      return "duplicate";
    }

    @Override
    public <R> R fold(
        Function<Processed, R> processed,
        Function<Duplicate, R> duplicate,
        Function<Stale, R> stale,
        Function<DeadLettered, R> deadLettered,
        Function<Retry, R> retry) {
      return duplicate.apply(this);
    }
  }

  /**
   * The message carries an older version of a state than the one stored: a newer message overtook
   * it. Nothing was written; the message is completed, because applying it would move the state
   * backwards and retrying cannot make it newer.
   *
   * @param key the key
   * @param entityId the entity whose newer state was kept
   * @param description the versions compared, e.g. {@code version 2 < stored 3}
   */
  record Stale(IdempotencyKey key, String entityId, String description) implements Outcome {
    /** Requires every value. */
    public Stale {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(entityId, "entityId");
      Objects.requireNonNull(description, "description");
    }

    @Override
    public Optional<IdempotencyKey> knownKey() {
      return Optional.of(key);
    }

    @Override
    public Optional<String> knownEntityId() {
      return Optional.of(entityId);
    }

    @Override
    public String label() {
      return "stale";
    }

    @Override
    public <R> R fold(
        Function<Processed, R> processed,
        Function<Duplicate, R> duplicate,
        Function<Stale, R> stale,
        Function<DeadLettered, R> deadLettered,
        Function<Retry, R> retry) {
      return stale.apply(this);
    }
  }

  /**
   * The message can never be processed as it is; it goes to the dead-letter queue at once.
   *
   * @param knownKey the key, if one was derived
   * @param knownEntityId the entity id, if known
   * @param reason the reason code
   * @param description what is wrong, naming the field; never the field's value
   */
  record DeadLettered(
      Optional<IdempotencyKey> knownKey,
      Optional<String> knownEntityId,
      DeadLetterReason reason,
      String description)
      implements Outcome {
    /** Requires every component. */
    public DeadLettered {
      Objects.requireNonNull(knownKey, "knownKey");
      Objects.requireNonNull(knownEntityId, "knownEntityId");
      Objects.requireNonNull(reason, "reason");
      Objects.requireNonNull(description, "description");
    }

    @Override
    public String label() {
      return "dead_lettered";
    }

    @Override
    public <R> R fold(
        Function<Processed, R> processed,
        Function<Duplicate, R> duplicate,
        Function<Stale, R> stale,
        Function<DeadLettered, R> deadLettered,
        Function<Retry, R> retry) {
      return deadLettered.apply(this);
    }
  }

  /**
   * The message is fine but could not be processed now; the broker must redeliver it.
   *
   * @param knownKey the key, if one was derived
   * @param knownEntityId the entity id, if known
   * @param cause why: a passing fault, or the worker's own misconfiguration
   * @param description what failed, e.g. the store's status code
   * @param retryAfter how long until a retry can succeed, when the flow knows it (a lease another
   *     attempt holds): the adapter waits that long, within the lock, instead of spending
   *     deliveries that cannot succeed. A duration, not an instant, so that no two clocks (the
   *     flow's and the adapter's, or two replicas') have to agree
   */
  record Retry(
      Optional<IdempotencyKey> knownKey,
      Optional<String> knownEntityId,
      RetryCause cause,
      String description,
      Optional<java.time.Duration> retryAfter)
      implements Outcome {
    /** Requires every component. */
    public Retry {
      Objects.requireNonNull(knownKey, "knownKey");
      Objects.requireNonNull(knownEntityId, "knownEntityId");
      Objects.requireNonNull(cause, "cause");
      Objects.requireNonNull(description, "description");
      Objects.requireNonNull(retryAfter, "retryAfter");
    }

    /**
     * A retry with no earliest time: the adapter's back-off decides.
     *
     * @param knownKey the key, if one was derived
     * @param knownEntityId the entity id, if known
     * @param cause why
     * @param description what failed
     */
    public Retry(
        Optional<IdempotencyKey> knownKey,
        Optional<String> knownEntityId,
        RetryCause cause,
        String description) {
      this(knownKey, knownEntityId, cause, description, Optional.empty());
    }

    @Override
    public String label() {
      return "retried";
    }

    @Override
    public <R> R fold(
        Function<Processed, R> processed,
        Function<Duplicate, R> duplicate,
        Function<Stale, R> stale,
        Function<DeadLettered, R> deadLettered,
        Function<Retry, R> retry) {
      return retry.apply(this);
    }
  }

  /** Why a {@link Retry} happened. */
  enum RetryCause {
    /** Throttling, timeouts, lost connections, unavailable service: retrying will work. */
    TRANSIENT,
    /**
     * Something the message depends on has not arrived yet (a status change that overtook its
     * entity): the store is healthy, so this neither counts towards a pause nor pauses; on the
     * delivery the broker would dead-letter anyway the flow dead-letters it itself, with the reason
     * named.
     */
    NOT_YET,
    /**
     * The worker's own configuration is wrong (credentials, permissions, missing container): good
     * messages must not be dead-lettered; the worker pauses and reports not ready.
     */
    MISCONFIGURATION,
    /**
     * The delivery's lock is gone (its renewal was refused, its link closed, or it ran out while
     * the handler stalled): the handler stopped before its next store write or external call,
     * because the broker may already have handed the message to another receiver. No settlement is
     * tried (the broker would refuse it); the message comes back when the lock ends. Frequent ones
     * mean the lock is too short for the handler, or replicas stall.
     */
    LOCK_LOST
  }
}
