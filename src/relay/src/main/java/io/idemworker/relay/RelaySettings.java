package io.idemworker.relay;

import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * How the relay runs.
 *
 * @param topicName the topic events are published to
 * @param ownerId this replica's name in the lease document; unique per replica
 * @param leaseDuration how long a lease holder may stay silent before another replica takes over;
 *     renewed every third of it
 * @param eventTtl how long the writers keep an outbox event ({@code ttl} from its creation): an
 *     event the relay has not read by then expires unpublished, so the relay raises its lag alarm
 *     once its lag passes half of it
 * @param batchSize at most this many change-feed documents per page (a transactional batch is never
 *     split, so a page may be larger)
 * @param pollInterval the pause between cycles once the feed has nothing new
 */
public record RelaySettings(
    String topicName,
    String ownerId,
    Duration leaseDuration,
    Duration eventTtl,
    int batchSize,
    Duration pollInterval) {

  private static final Pattern OWNER = Pattern.compile("[A-Za-z0-9._:\\-]{1,128}");

  /** Validates every component, naming the one that is wrong. */
  public RelaySettings {
    if (topicName == null || topicName.isBlank()) {
      throw new IllegalArgumentException("topicName must not be blank");
    }
    if (ownerId == null || !OWNER.matcher(ownerId).matches()) {
      throw new IllegalArgumentException(
          "ownerId must be 1-128 of letters, digits, . _ : -, was " + ownerId);
    }
    requirePositive("leaseDuration", leaseDuration);
    requirePositive("pollInterval", pollInterval);
    requirePositive("eventTtl", eventTtl);
    if (eventTtl.getSeconds() < 1 || eventTtl.getSeconds() > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "eventTtl must be from 1 s to " + Integer.MAX_VALUE + " s, was " + eventTtl);
    }
    if (batchSize < 1 || batchSize > 1000) {
      throw new IllegalArgumentException("batchSize must be from 1 to 1000, was " + batchSize);
    }
    if (pollInterval.compareTo(leaseDuration.dividedBy(3)) > 0) {
      throw new IllegalArgumentException(
          "pollInterval "
              + pollInterval
              + " must be at most a third of leaseDuration "
              + leaseDuration
              + ", or the lease would lapse between cycles");
    }
  }

  /**
   * The lag past which the relay raises its alarm: half the event TTL, so a person has the other
   * half to act before an unread event expires unpublished.
   *
   * @return half of {@link #eventTtl()}
   */
  public Duration lagAlarm() {
    return eventTtl.dividedBy(2);
  }

  private static void requirePositive(String name, Duration value) {
    Objects.requireNonNull(value, name);
    if (value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(name + " must be positive, was " + value);
    }
  }
}
