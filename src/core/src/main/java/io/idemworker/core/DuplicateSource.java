package io.idemworker.core;

import java.util.Locale;
import java.util.Optional;

/**
 * Where a duplicate came from, told by comparing the delivery at hand with the stamp of the one
 * that wrote the effect ({@link DeliveryOrigin}). A rising duplicate rate means different things by
 * source; docs/operations.md says what each usually means and what to change.
 */
public enum DuplicateSource {
  /**
   * The same enqueued copy (same sequence number) delivered again: the handler that wrote crashed,
   * or lost its lock, before its settlement reached the broker.
   */
  REDELIVERY,
  /**
   * Another copy, received after the effect was written: the producer sent the message again later,
   * outside the broker's duplicate-detection window (or the queue has none).
   */
  RESEND,
  /**
   * Another copy, received before the effect was written: two copies were in flight at once and the
   * store arbitrated between them.
   */
  CONCURRENT,
  /** A copy an operator resubmitted from the dead-letter queue. */
  RESUBMIT,
  /** Another copy the outbox relay published (it published the event again after a crash). */
  REPUBLISH,
  /**
   * Not told: the delivery carried no broker identity, or the effect was written before stamps
   * existed.
   */
  UNKNOWN;

  /**
   * The label in outcome lines and metrics.
   *
   * @return e.g. {@code redelivery}
   */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * Classifies a duplicate. The same sequence number is a redelivery whatever else holds; then a
   * resubmitted or relayed copy is named for that; then whether this copy was received before the
   * write tells a concurrent copy from a later resend. Receipts compare by the lock's end as
   * received (the broker's clock; one lock duration for both, so it cancels), the write by the
   * writer's lock end plus its time from receipt to write.
   *
   * @param current the duplicate delivery, if its origin is known
   * @param writer the delivery that wrote the effect, if its stamp was found
   * @return the source
   */
  public static DuplicateSource classify(
      Optional<DeliveryOrigin> current, Optional<DeliveryOrigin.Written> writer) {
    if (current.isEmpty()) {
      return UNKNOWN;
    }
    DeliveryOrigin now = current.get();
    if (writer.isPresent() && writer.get().origin().sequenceNumber() == now.sequenceNumber()) {
      return REDELIVERY;
    }
    if (now.via() == DeliveryOrigin.Via.RESUBMIT) {
      return RESUBMIT;
    }
    if (now.via() == DeliveryOrigin.Via.RELAY) {
      return REPUBLISH;
    }
    if (writer.isEmpty()) {
      return UNKNOWN;
    }
    return now.lockedUntil().isBefore(writer.get().writtenAtOnLockScale()) ? CONCURRENT : RESEND;
  }
}
