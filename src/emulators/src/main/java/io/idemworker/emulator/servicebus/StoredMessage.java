package io.idemworker.emulator.servicebus;

import java.time.Instant;
import java.util.UUID;
import org.apache.qpid.proton.message.Message;

/**
 * A message held by an {@link EntityStore}. Mutable state is guarded by the owning store's monitor.
 */
final class StoredMessage {
  enum State {
    AVAILABLE,
    LOCKED,
    DEFERRED,
    SCHEDULED,
    GONE
  }

  final long sequenceNumber;
  final Message message;
  final Instant expiresAt;
  final long ttlMillis;
  Instant enqueuedTime;
  Instant scheduledEnqueueTime;
  int deliveryCount;
  State state;
  UUID lockToken;
  Instant lockedUntil;
  Object lockOwner;

  /** Set by defer: a deferred message stays deferred when its lock is abandoned or lost. */
  boolean deferred;

  StoredMessage(
      long sequenceNumber,
      Message message,
      Instant enqueuedTime,
      Instant expiresAt,
      long ttlMillis,
      int deliveryCount) {
    this.sequenceNumber = sequenceNumber;
    this.message = message;
    this.enqueuedTime = enqueuedTime;
    this.expiresAt = expiresAt;
    this.ttlMillis = ttlMillis;
    this.deliveryCount = deliveryCount;
  }

  /** An immutable view taken under the store's monitor, safe to encode on another thread. */
  record Snapshot(
      long sequenceNumber,
      Message message,
      Instant enqueuedTime,
      Instant scheduledEnqueueTime,
      long ttlMillis,
      int deliveryCount,
      State state,
      UUID lockToken,
      Instant lockedUntil) {}

  Snapshot snapshot() {
    // A copy of the sections: the store may swap the application properties later (modify),
    // while another connection thread encodes this snapshot.
    return new Snapshot(
        sequenceNumber,
        MessageCodec.copy(message),
        enqueuedTime,
        scheduledEnqueueTime,
        ttlMillis,
        deliveryCount,
        deferred && state == State.LOCKED ? State.DEFERRED : state,
        lockToken,
        lockedUntil);
  }
}
