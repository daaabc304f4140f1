package io.idemworker.core;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Fencing by the delivery's lock: a store whose writes first ask the {@link DeliveryLock} whether
 * it is still held, and the signal that stops the flow when it is not. Reads pass unfenced (they
 * change nothing). The signal is internal to the flow: {@link IdempotentConsumer#handle} turns it
 * into {@link Outcome.RetryCause#LOCK_LOST}, so no caller ever sees it.
 *
 * <p>Thread-safe when the lock and the store are.
 */
final class LockFence implements EffectStore {
  private final EffectStore store;
  private final DeliveryLock lock;

  LockFence(EffectStore store, DeliveryLock lock) {
    this.store = Objects.requireNonNull(store, "store");
    this.lock = Objects.requireNonNull(lock, "lock");
  }

  /**
   * What is left of the lock when it has at least {@code needed} left.
   *
   * @param lock the lock
   * @param needed what the next step needs
   * @param before the next step, in words, for the outcome's description
   * @return what is left
   * @throws Lost when it does not
   */
  static Duration require(DeliveryLock lock, Duration needed, String before) {
    Optional<Duration> left = lock.holdFor(needed);
    if (left.isEmpty()) {
      throw new Lost(before);
    }
    return left.get();
  }

  @Override
  public WriteResult apply(WriteSet writeSet) {
    require(lock, Duration.ZERO, "a store write");
    return store.apply(writeSet);
  }

  @Override
  public UpdateResult update(String partitionKey, DocumentPatch patch) {
    require(lock, Duration.ZERO, "a store write");
    return store.update(partitionKey, patch);
  }

  @Override
  public ReadResult read(String partitionKey, String id) {
    return store.read(partitionKey, id);
  }

  @Override
  public LookupResult findAnchor(String partitionKey, String anchorId) {
    return store.findAnchor(partitionKey, anchorId);
  }

  /** The lock is gone before {@link #before()}; carries no stack trace (it is not an error). */
  static final class Lost extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Lost(String before) {
      super(before, null, false, false);
    }

    String before() {
      return getMessage();
    }
  }
}
