package io.idemworker.core;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * How long an inbox marker must live: as long as any copy of its message can still arrive. A copy
 * comes back while the broker keeps redelivering it (lock duration × max delivery count), while it
 * waits unconsumed in the queue (the message time to live), and when an operator resubmits it from
 * the dead-letter queue (the resubmit window). A marker that expires sooner reopens the duplicate
 * window: the late copy finds no marker and applies its effect again.
 *
 * @param lockDuration the queue's lock duration
 * @param maxDeliveryCount the queue's max delivery count
 * @param messageTimeToLive the queue's default message time to live
 * @param resubmitWindow how long after dead-lettering an operator may resubmit
 */
public record MarkerRetention(
    Duration lockDuration,
    int maxDeliveryCount,
    Duration messageTimeToLive,
    Duration resubmitWindow) {

  /** Requires positive values. */
  public MarkerRetention {
    Objects.requireNonNull(lockDuration, "lockDuration");
    Objects.requireNonNull(messageTimeToLive, "messageTimeToLive");
    Objects.requireNonNull(resubmitWindow, "resubmitWindow");
    if (maxDeliveryCount < 1) {
      throw new IllegalArgumentException("maxDeliveryCount must be at least 1");
    }
  }

  /**
   * The redelivery horizon: lock duration × max delivery count + message time to live + resubmit
   * window.
   *
   * @return the horizon
   */
  public Duration horizon() {
    return lockDuration.multipliedBy(maxDeliveryCount).plus(messageTimeToLive).plus(resubmitWindow);
  }

  /**
   * Checks a marker TTL against the horizon.
   *
   * @param markerTtl the markers' TTL; empty = they never expire
   * @return the problem, if the TTL is shorter than the horizon
   */
  public Optional<String> problemWith(Optional<Duration> markerTtl) {
    if (markerTtl.isPresent() && markerTtl.get().compareTo(horizon()) < 0) {
      return Optional.of(
          "inbox marker TTL "
              + markerTtl.get()
              + " is shorter than the redelivery horizon "
              + horizon()
              + " (lock duration "
              + lockDuration
              + " x max delivery count "
              + maxDeliveryCount
              + " + message TTL "
              + messageTimeToLive
              + " + resubmit window "
              + resubmitWindow
              + "): a late copy would find no marker and apply its effect twice");
    }
    return Optional.empty();
  }
}
