package io.idemworker.emulator.servicebus;

import java.time.Instant;
import java.util.Date;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.apache.qpid.proton.amqp.messaging.ApplicationProperties;
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

  /** The message's SessionId (AMQP group-id), or null. */
  final String sessionId;

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
    this.sessionId = sessionIdOf(message);
    this.enqueuedTime = enqueuedTime;
    this.expiresAt = expiresAt;
    this.ttlMillis = ttlMillis;
    this.deliveryCount = deliveryCount;
  }

  /** The message's {@code x-opt-scheduled-enqueue-time}, or null. */
  static Instant scheduledTime(Message m) {
    if (m.getMessageAnnotations() == null || m.getMessageAnnotations().getValue() == null) {
      return null;
    }
    Object v = m.getMessageAnnotations().getValue().get(EntityStore.SCHEDULED_ENQUEUE_TIME);
    return v instanceof Date d ? d.toInstant() : null;
  }

  /**
   * A message arriving in an entity of {@code settings}; its time-to-live (the shorter of its own
   * and the entity's default) runs from its (scheduled) enqueue time.
   */
  static StoredMessage arriving(
      Message m, long sequenceNumber, Instant now, Instant scheduled, QueueSettings settings) {
    long ttl = settings.defaultMessageTimeToLive().toMillis();
    if (m.getHeader() != null && m.getHeader().getTtl() != null) {
      long own = m.getHeader().getTtl().longValue();
      if (own > 0) {
        ttl = Math.min(ttl, own);
      }
    }
    Instant base = scheduled != null && scheduled.isAfter(now) ? scheduled : now;
    Instant expiresAt = saturatedPlus(base, ttl);
    return new StoredMessage(sequenceNumber, m, now, expiresAt, Math.min(ttl, 0xFFFFFFFFL), 0);
  }

  private static Instant saturatedPlus(Instant t, long millis) {
    try {
      return t.plusMillis(millis);
    } catch (ArithmeticException | java.time.DateTimeException e) {
      return Instant.MAX;
    }
  }

  /** Merges {@code propertiesToModify} into the application properties (abandon, defer...). */
  void modifyProperties(Map<String, Object> propertiesToModify) {
    if (propertiesToModify == null || propertiesToModify.isEmpty()) {
      return;
    }
    Map<String, Object> props = new HashMap<>();
    if (message.getApplicationProperties() != null
        && message.getApplicationProperties().getValue() != null) {
      props.putAll(message.getApplicationProperties().getValue());
    }
    props.putAll(propertiesToModify);
    message.setApplicationProperties(new ApplicationProperties(props));
  }

  /** The SessionId of a message (its AMQP group-id); null when it has none or an empty one. */
  static String sessionIdOf(Message m) {
    String id = m.getProperties() == null ? null : m.getProperties().getGroupId();
    return id == null || id.isEmpty() ? null : id;
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
