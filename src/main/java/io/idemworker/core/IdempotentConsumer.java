package io.idemworker.core;

import io.idemworker.core.MessageDecoder.Decoding;
import io.idemworker.core.MessageDecoder.ValidMessage;
import io.idemworker.core.Outcome.RetryCause;
import java.time.Clock;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The flow for one delivery: key, size, decode, fingerprint, one atomic write; on a conflict, one
 * read to tell a duplicate from a reused key.
 *
 * <p>Store round trips: exactly one for a new message, exactly two for a duplicate. There is no
 * read before the write, so concurrent copies of one message are arbitrated by the store.
 *
 * <p>Thread-safe when its collaborators are; it keeps no state between calls. {@link #handle} never
 * throws: a bug or an unexpected exception in a collaborator becomes a transient {@link
 * Outcome.Retry}, so the broker's delivery limit, not this code, decides when to give up.
 */
public final class IdempotentConsumer {
  private final KeyStrategy keyStrategy;
  private final MessageDecoder decoder;
  private final EffectStore store;
  private final Clock clock;
  private final int maxBodyBytes;

  /**
   * Creates the flow.
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
    this.keyStrategy = Objects.requireNonNull(keyStrategy, "keyStrategy");
    this.decoder = Objects.requireNonNull(decoder, "decoder");
    this.store = Objects.requireNonNull(store, "store");
    this.clock = Objects.requireNonNull(clock, "clock");
    if (maxBodyBytes < 1) {
      throw new IllegalArgumentException("maxBodyBytes must be at least 1, was " + maxBodyBytes);
    }
    this.maxBodyBytes = maxBodyBytes;
  }

  /**
   * Handles one delivery.
   *
   * @param message the delivery
   * @return how it ended
   */
  public Outcome handle(IncomingMessage message) {
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
                + " bytes; the limit (WORKER_MAX_BODY_BYTES) is "
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
      WriteSet writeSet = valid.writeSet(found, fingerprint, clock.instant());
      return write(found, valid.entityId(), writeSet);
    } catch (RuntimeException e) {
      return new Outcome.Retry(
          key,
          entityId,
          RetryCause.TRANSIENT,
          "unexpected " + e.getClass().getSimpleName() + " while handling the message");
    }
  }

  private Outcome write(IdempotencyKey key, String entityId, WriteSet writeSet) {
    EffectStore.WriteResult result = store.apply(writeSet);
    if (result instanceof EffectStore.Applied) {
      return new Outcome.Processed(key, entityId);
    }
    if (result instanceof EffectStore.Failed failed) {
      return onFailure(key, entityId, failed.failure());
    }
    EffectStore.LookupResult lookup =
        store.findAnchor(writeSet.partitionKey(), writeSet.anchorId());
    if (lookup instanceof EffectStore.Found found) {
      Fingerprint stored = found.anchor().fingerprint();
      if (stored.value().equals(writeSet.fingerprint().value())) {
        return new Outcome.Duplicate(key, entityId);
      }
      Set<String> differing = writeSet.fingerprint().differingFields(stored);
      return new Outcome.DeadLettered(
          Optional.of(key),
          Optional.of(entityId),
          DeadLetterReason.IDEMPOTENCY_CONFLICT,
          "key "
              + key.value()
              + " was already used for different content; differing fields: "
              + String.join(", ", differing));
    }
    if (lookup instanceof EffectStore.Failed failed) {
      return onFailure(key, entityId, failed.failure());
    }
    return new Outcome.Retry(
        Optional.of(key),
        Optional.of(entityId),
        RetryCause.TRANSIENT,
        "the store reported a conflict but the anchor is gone (expired or deleted); retrying");
  }

  private static Outcome onFailure(IdempotencyKey key, String entityId, StoreFailure failure) {
    String description = "store status " + failure.statusCode() + ": " + failure.description();
    return switch (failure.kind()) {
      case TRANSIENT ->
          new Outcome.Retry(
              Optional.of(key), Optional.of(entityId), RetryCause.TRANSIENT, description);
      case MISCONFIGURATION ->
          new Outcome.Retry(
              Optional.of(key), Optional.of(entityId), RetryCause.MISCONFIGURATION, description);
      case PERMANENT ->
          new Outcome.DeadLettered(
              Optional.of(key),
              Optional.of(entityId),
              DeadLetterReason.STORE_REJECTED,
              description);
    };
  }
}
