package io.idemworker.servicebus.sessions;

import com.fasterxml.jackson.databind.JsonNode;
import io.idemworker.core.Change;
import io.idemworker.core.EffectStore;
import io.idemworker.core.Fingerprint;
import io.idemworker.core.IdempotencyKey;
import io.idemworker.core.IncomingMessage;
import io.idemworker.core.MessageDecoder;
import io.idemworker.core.StoreFailure;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What session mode must know of a message before the flow runs it: which entity it belongs to,
 * checked against its {@code SessionId}, and, for a versioned change (a status change), its version
 * and where the applied version is stored. It decodes with the flow's own decoder, so a message
 * type needs nothing new to take part: every {@link Change.Versioned} waits for its predecessor.
 * Thread-safe; the decoder touches no store.
 */
final class SessionRules {
  private static final IdempotencyKey PEEK_KEY = new IdempotencyKey("session-peek");

  private final MessageDecoder decoder;
  private final EffectStore store;

  /**
   * Creates the rules.
   *
   * @param decoder the flow's decoder
   * @param store read once per session when the session state does not know the applied version
   */
  SessionRules(MessageDecoder decoder, EffectStore store) {
    this.decoder = Objects.requireNonNull(decoder, "decoder");
    this.store = Objects.requireNonNull(store, "store");
  }

  /**
   * What a message is, as far as ordering goes.
   *
   * @param entityId the entity it belongs to, when the body tells
   * @param versioned the versioned change it asks for, if it is one
   */
  record Peeked(Optional<String> entityId, Optional<Change.Versioned> versioned) {
    OptionalLong version() {
      return versioned.map(v -> OptionalLong.of(v.version())).orElse(OptionalLong.empty());
    }
  }

  Peeked peek(IncomingMessage message) {
    MessageDecoder.Decoding decoding;
    try {
      decoding = decoder.decode(message);
    } catch (RuntimeException e) {
      return new Peeked(Optional.empty(), Optional.empty());
    }
    if (decoding instanceof MessageDecoder.Invalid invalid) {
      return new Peeked(invalid.entityId(), Optional.empty());
    }
    MessageDecoder.ValidMessage valid = ((MessageDecoder.Valid) decoding).message();
    Change change;
    try {
      change = valid.change(PEEK_KEY, Fingerprint.of(valid.immutableFields()), Instant.EPOCH);
    } catch (RuntimeException e) {
      return new Peeked(Optional.of(valid.entityId()), Optional.empty());
    }
    return new Peeked(
        Optional.of(valid.entityId()),
        change.fold(anchored -> Optional.empty(), Optional::of, twoPhase -> Optional.empty()));
  }

  /** The version a session starts from when its state does not know it. */
  sealed interface Stored {}

  /**
   * The stored version; 0 when the target or its version field does not exist yet.
   *
   * @param version the version
   */
  record StoredVersion(long version) implements Stored {}

  /**
   * The store could not tell.
   *
   * @param failure why
   */
  record Unknown(StoreFailure failure) implements Stored {}

  Stored storedVersion(Change.Versioned change) {
    EffectStore.ReadResult read = store.read(change.partitionKey(), change.targetId());
    if (read instanceof EffectStore.Failed failed) {
      return new Unknown(failed.failure());
    }
    if (read instanceof EffectStore.Document document) {
      JsonNode version = document.content().get(change.versionField());
      return new StoredVersion(
          version != null && version.canConvertToLong() ? version.asLong() : 0);
    }
    return new StoredVersion(0);
  }
}
