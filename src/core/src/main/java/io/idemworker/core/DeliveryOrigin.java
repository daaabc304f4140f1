package io.idemworker.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * What identifies one delivery at the broker, so that the document it writes can say which delivery
 * wrote it and a later duplicate can say where it came from ({@link DuplicateSource}).
 *
 * <p>Kept apart from {@link IncomingMessage} on purpose: no {@link KeyStrategy} may build a key on
 * broker-made values. The flow only stamps it on the anchor (field {@value #FIELD}) and compares it
 * on the duplicate path, which reads the anchor anyway, so classifying costs no round trip.
 *
 * <p>Stored form, a few short fields (RU grows with document size):
 *
 * <pre>{@code "writtenBy": {"seq": 42, "enq": 1764669600000, "lu": 1764669660120, "w": 35,
 *               "dc": 0, "via": "resubmit", "pa": 2}}</pre>
 *
 * {@code enq} and {@code lu} are the broker's clock, {@code w} a duration on the writer's, so
 * comparing stamps needs no agreement between the broker's and the workers' clocks.
 *
 * <p>({@code via} only when not {@code send}, {@code pa} only when the producer stamped an
 * attempt).
 *
 * @param sequenceNumber the broker's sequence number: equal for every delivery of one enqueued
 *     message, different for each copy a producer (or an operator) sent
 * @param enqueuedTime when the broker accepted the copy
 * @param lockedUntil when this delivery's lock ended as received, by the broker's clock: a copy
 *     enqueued before it was in flight while this delivery held the message
 * @param deliveryCount deliveries of this copy before this one (0 on the first)
 * @param via how the copy came to be enqueued
 * @param producerAttempt the producer's send attempt from {@code idemworker-send-attempt}, 0 when
 *     the producer did not stamp one
 */
public record DeliveryOrigin(
    long sequenceNumber,
    Instant enqueuedTime,
    Instant lockedUntil,
    long deliveryCount,
    Via via,
    int producerAttempt) {

  /** The anchor field holding the writer's origin. */
  public static final String FIELD = "writtenBy";

  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  /** Requires every value; counts are not negative. */
  public DeliveryOrigin {
    Objects.requireNonNull(enqueuedTime, "enqueuedTime");
    Objects.requireNonNull(lockedUntil, "lockedUntil");
    Objects.requireNonNull(via, "via");
    if (deliveryCount < 0 || producerAttempt < 0) {
      throw new IllegalArgumentException("deliveryCount and producerAttempt are at least 0");
    }
  }

  /** How a copy came to be enqueued. */
  public enum Via {
    /** A producer sent it (the usual way). */
    SEND,
    /** An operator resubmitted it from the dead-letter queue ({@code dlq resubmit}). */
    RESUBMIT,
    /** The outbox relay published it (topic consumers). */
    RELAY;

    /**
     * The stored and logged label.
     *
     * @return e.g. {@code resubmit}
     */
    public String label() {
      return name().toLowerCase(Locale.ROOT);
    }

    static Optional<Via> fromLabel(String label) {
      for (Via via : values()) {
        if (via.label().equals(label)) {
          return Optional.of(via);
        }
      }
      return Optional.empty();
    }
  }

  /**
   * The delivery that wrote a document, and how long after it was received it wrote.
   *
   * @param origin the writer's delivery
   * @param writtenAfter from the writer's receipt to its write, by the writer's clock (a duration,
   *     so no two clocks need agree)
   */
  public record Written(DeliveryOrigin origin, Duration writtenAfter) {
    /** Requires both. */
    public Written {
      Objects.requireNonNull(origin, "origin");
      Objects.requireNonNull(writtenAfter, "writtenAfter");
    }

    /**
     * When the write happened by the broker's clock, from the lock's end as received: the lock
     * began at receipt, so any delivery of the same queue compares with this by its own {@code
     * lockedUntil} (both carry the same lock duration, which cancels out).
     *
     * @return the writer's {@code lockedUntil} plus {@link #writtenAfter}
     */
    public Instant writtenAtOnLockScale() {
      return origin.lockedUntil().plus(writtenAfter);
    }
  }

  /**
   * Reads the stamp {@link #stamp} wrote.
   *
   * @param stamp the stored field's value; any node
   * @return the writer, or empty when the node is not a valid stamp (a document written before
   *     stamps existed, or by a delivery whose origin was unknown)
   */
  public static Optional<Written> read(JsonNode stamp) {
    if (stamp == null
        || !stamp.isObject()
        || !stamp.path("seq").canConvertToLong()
        || !stamp.path("enq").canConvertToLong()
        || !stamp.path("lu").canConvertToLong()
        || !stamp.path("dc").canConvertToLong()
        || !stamp.path("w").canConvertToLong()) {
      return Optional.empty();
    }
    Optional<Via> via =
        stamp.has("via") ? Via.fromLabel(stamp.path("via").asText()) : Optional.of(Via.SEND);
    long dc = stamp.path("dc").asLong();
    int pa = stamp.path("pa").asInt(0);
    long written = stamp.path("w").asLong();
    if (via.isEmpty() || dc < 0 || pa < 0 || written < 0) {
      return Optional.empty();
    }
    return Optional.of(
        new Written(
            new DeliveryOrigin(
                stamp.path("seq").asLong(),
                Instant.ofEpochMilli(stamp.path("enq").asLong()),
                Instant.ofEpochMilli(stamp.path("lu").asLong()),
                dc,
                via.get(),
                pa),
            Duration.ofMillis(written)));
  }

  /**
   * The stamp this delivery leaves on what it writes.
   *
   * @param writtenAfter from this delivery's receipt to the write, by the handler's clock
   * @return the field's value
   */
  public ObjectNode stamp(Duration writtenAfter) {
    ObjectNode stamp = JSON.objectNode();
    stamp.put("seq", sequenceNumber);
    stamp.put("enq", enqueuedTime.toEpochMilli());
    stamp.put("lu", lockedUntil.toEpochMilli());
    stamp.put("w", Math.max(0, writtenAfter.toMillis()));
    stamp.put("dc", deliveryCount);
    if (via != Via.SEND) {
      stamp.put("via", via.label());
    }
    if (producerAttempt > 0) {
      stamp.put("pa", producerAttempt);
    }
    return stamp;
  }
}
