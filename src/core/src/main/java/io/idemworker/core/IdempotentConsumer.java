package io.idemworker.core;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.core.MessageDecoder.Decoding;
import io.idemworker.core.MessageDecoder.ValidMessage;
import io.idemworker.core.Outcome.RetryCause;
import java.time.Clock;
import java.util.Objects;
import java.util.Optional;

/**
 * The flow for one delivery: key, size, decode, fingerprint, then the protection the message type
 * declared ({@link Change}): create-as-check, optionally with an inbox marker as the anchor; a
 * version guard; or a two-phase record around a call that cannot join the transaction.
 *
 * <p>Store round trips: one for a message that takes effect; two when the store refuses it and one
 * read tells why (a duplicate, a reused key, a stale version). There is never a read before the
 * write, so concurrent copies of one message are arbitrated by the store.
 *
 * <p>A message whose target has not arrived (a status change that overtook the create) is retried;
 * on the delivery the broker would dead-letter anyway ({@code maxDeliveryCount}) it is
 * dead-lettered here instead, so its reason is named rather than {@code MaxDeliveryCountExceeded}.
 *
 * <p>Thread-safe when its collaborators are; it keeps no state between calls. {@link #handle} never
 * throws: a bug or an unexpected exception in a collaborator becomes a transient {@link
 * Outcome.Retry}, so the broker's delivery limit, not this code, decides when to give up.
 */
public final class IdempotentConsumer {
  /** Service Bus's default MaxDeliveryCount. */
  public static final int DEFAULT_MAX_DELIVERY_COUNT = 10;

  private final KeyStrategy keyStrategy;
  private final MessageDecoder decoder;
  private final EffectStore store;
  private final Clock clock;
  private final int maxBodyBytes;
  private final int maxDeliveryCount;

  /**
   * Creates the flow for a queue with the default delivery limit.
   *
   * @param keyStrategy derives the idempotency key
   * @param decoder reads and validates bodies
   * @param store the effect store
   * @param clock stamps the acceptance time
   * @param maxBodyBytes bodies larger than this are dead-lettered; at least 1
   */
  public IdempotentConsumer(
      KeyStrategy keyStrategy,
      MessageDecoder decoder,
      EffectStore store,
      Clock clock,
      int maxBodyBytes) {
    this(keyStrategy, decoder, store, clock, maxBodyBytes, DEFAULT_MAX_DELIVERY_COUNT);
  }

  /**
   * Creates the flow.
   *
   * @param keyStrategy derives the idempotency key
   * @param decoder reads and validates bodies
   * @param store the effect store
   * @param clock stamps the acceptance time
   * @param maxBodyBytes bodies larger than this are dead-lettered; at least 1
   * @param maxDeliveryCount the queue's MaxDeliveryCount; at least 1
   */
  public IdempotentConsumer(
      KeyStrategy keyStrategy,
      MessageDecoder decoder,
      EffectStore store,
      Clock clock,
      int maxBodyBytes,
      int maxDeliveryCount) {
    this.keyStrategy = Objects.requireNonNull(keyStrategy, "keyStrategy");
    this.decoder = Objects.requireNonNull(decoder, "decoder");
    this.store = Objects.requireNonNull(store, "store");
    this.clock = Objects.requireNonNull(clock, "clock");
    if (maxBodyBytes < 1) {
      throw new IllegalArgumentException("maxBodyBytes must be at least 1, was " + maxBodyBytes);
    }
    if (maxDeliveryCount < 1) {
      throw new IllegalArgumentException(
          "maxDeliveryCount must be at least 1, was " + maxDeliveryCount);
    }
    this.maxBodyBytes = maxBodyBytes;
    this.maxDeliveryCount = maxDeliveryCount;
  }

  /**
   * Handles one delivery whose broker identity is unknown: what it writes carries no writer's
   * stamp, and a duplicate's source is {@link DuplicateSource#UNKNOWN}.
   *
   * @param message the delivery
   * @return how it ended
   */
  public Outcome handle(IncomingMessage message) {
    return handle(message, Optional.empty());
  }

  /**
   * Handles one delivery. The anchor (marker, record, or guarded state) it writes carries its
   * origin ({@link DeliveryOrigin#FIELD}); a duplicate compares its origin with the stored one and
   * says where it came from ({@link Outcome.Duplicate#source()}), at no extra round trip.
   *
   * @param message the delivery
   * @param origin the delivery's broker identity, when the adapter knows it
   * @return how it ended
   */
  public Outcome handle(IncomingMessage message, Optional<DeliveryOrigin> origin) {
    return handle(message, origin, DeliveryLock.NONE);
  }

  /**
   * Handles one delivery under its broker lock: every store write, and the start of a call that
   * cannot join the transaction, first asks the lock; when it is gone the flow stops there and
   * answers {@link Outcome.RetryCause#LOCK_LOST}, with nothing more written or called. A two-phase
   * claim's lease is derived from what is left of the lock (see {@link Change.TwoPhase#lease()}).
   *
   * @param message the delivery
   * @param origin the delivery's broker identity, when the adapter knows it
   * @param lock the delivery's lock
   * @return how it ended
   */
  public Outcome handle(
      IncomingMessage message, Optional<DeliveryOrigin> origin, DeliveryLock lock) {
    Objects.requireNonNull(lock, "lock");
    Optional<IdempotencyKey> key = Optional.empty();
    Optional<String> entityId = Optional.empty();
    try {
      KeyStrategy.KeyResult keyResult = keyStrategy.keyOf(message);
      if (keyResult instanceof KeyStrategy.Missing missing) {
        return new Outcome.DeadLettered(key, entityId, missing.reason(), missing.description());
      }
      IdempotencyKey found = ((KeyStrategy.Found) keyResult).key();
      key = Optional.of(found);
      if (message.body().length > maxBodyBytes) {
        return new Outcome.DeadLettered(
            key,
            entityId,
            DeadLetterReason.BODY_TOO_LARGE,
            "body is "
                + message.body().length
                + " bytes; the limit (maxBodyBytes) is "
                + maxBodyBytes);
      }
      Decoding decoding = decoder.decode(message);
      if (decoding instanceof MessageDecoder.Invalid invalid) {
        return new Outcome.DeadLettered(
            key, invalid.entityId(), invalid.reason(), invalid.description());
      }
      ValidMessage valid = ((MessageDecoder.Valid) decoding).message();
      entityId = Optional.of(valid.entityId());
      Fingerprint fingerprint = Fingerprint.of(valid.immutableFields());
      java.time.Instant now = clock.instant();
      Change change = valid.change(found, fingerprint, now);
      Attempt attempt =
          new Attempt(found, valid.entityId(), isLastDelivery(message), origin, clock, now, lock);
      EffectStore fenced = lock == DeliveryLock.NONE ? store : new LockFence(store, lock);
      return change.fold(
          anchored -> AnchoredWrite.apply(fenced, anchored, fingerprint, attempt),
          versioned -> VersionGuard.apply(fenced, versioned, attempt),
          twoPhase -> TwoPhaseCall.apply(fenced, twoPhase, fingerprint, attempt, clock));
    } catch (LockFence.Lost lost) {
      return new Outcome.Retry(
          key,
          entityId,
          RetryCause.LOCK_LOST,
          "the delivery's lock ended before "
              + lost.before()
              + " (a renewal refused, the link gone, or the lock ran out); stopped there, the"
              + " broker redelivers when the lock ends");
    } catch (RuntimeException e) {
      return new Outcome.Retry(
          key,
          entityId,
          RetryCause.TRANSIENT,
          "unexpected " + e.getClass().getSimpleName() + " while handling the message");
    }
  }

  /** Service Bus dead-letters a message abandoned on its {@code maxDeliveryCount}-th delivery. */
  private boolean isLastDelivery(IncomingMessage message) {
    return message.deliveryCount() + 1 >= maxDeliveryCount;
  }

  /**
   * One attempt at one message, as the protections need it.
   *
   * @param key the key
   * @param entityId the business id
   * @param lastDelivery true when a retry would exhaust the broker's delivery limit
   * @param origin the delivery's broker identity, when known
   * @param clock the flow's clock
   * @param received when the handler started, by that clock
   * @param lock the delivery's lock
   */
  record Attempt(
      IdempotencyKey key,
      String entityId,
      boolean lastDelivery,
      Optional<DeliveryOrigin> origin,
      Clock clock,
      java.time.Instant received,
      DeliveryLock lock) {

    Attempt(
        IdempotencyKey key,
        String entityId,
        boolean lastDelivery,
        Optional<DeliveryOrigin> origin,
        Clock clock,
        java.time.Instant received) {
      this(key, entityId, lastDelivery, origin, clock, received, DeliveryLock.NONE);
    }

    Attempt(IdempotencyKey key, String entityId, boolean lastDelivery) {
      this(
          key,
          entityId,
          lastDelivery,
          Optional.empty(),
          Clock.systemUTC(),
          java.time.Instant.EPOCH);
    }

    /** This delivery's stamp, when its origin is known. */
    Optional<ObjectNode> stamp() {
      return origin.map(o -> o.stamp(java.time.Duration.between(received, clock.instant())));
    }

    /**
     * A copy of {@code document} carrying this delivery's stamp, when its origin is known. The copy
     * is shallow: it shares the document's nested nodes, which nothing changes once a change is
     * built (stores serialise or copy what they are given).
     */
    ObjectNode stamped(ObjectNode document) {
      ObjectNode copy = document.objectNode();
      copy.setAll(document);
      stamp().ifPresent(stamp -> copy.set(DeliveryOrigin.FIELD, stamp));
      return copy;
    }

    /** A duplicate of the effect {@code writer} wrote, with its source told. */
    Outcome duplicate(Optional<DeliveryOrigin.Written> writer) {
      return new Outcome.Duplicate(
          key,
          entityId,
          DuplicateSource.classify(origin, writer),
          origin.map(DeliveryOrigin::producerAttempt).orElse(0));
    }

    Outcome failed(StoreFailure failure) {
      String description = "store status " + failure.statusCode() + ": " + failure.description();
      return switch (failure.kind()) {
        case TRANSIENT -> retry(RetryCause.TRANSIENT, description);
        case MISCONFIGURATION -> retry(RetryCause.MISCONFIGURATION, description);
        case PERMANENT -> deadLetter(DeadLetterReason.STORE_REJECTED, description);
      };
    }

    Outcome notYet(Change.Rejection ifNeverArrives) {
      if (lastDelivery) {
        return deadLetter(
            ifNeverArrives.reason(),
            ifNeverArrives.description()
                + " (still missing on the last delivery the queue allows)");
      }
      return retry(RetryCause.NOT_YET, ifNeverArrives.description() + "; retrying");
    }

    Outcome retry(RetryCause cause, String description) {
      return new Outcome.Retry(Optional.of(key), Optional.of(entityId), cause, description);
    }

    Outcome deadLetter(DeadLetterReason reason, String description) {
      return new Outcome.DeadLettered(Optional.of(key), Optional.of(entityId), reason, description);
    }

    Outcome conflict(String differing) {
      return deadLetter(
          DeadLetterReason.IDEMPOTENCY_CONFLICT,
          "key "
              + key.value()
              + " was already used for different content; differing fields: "
              + differing);
    }
  }
}
