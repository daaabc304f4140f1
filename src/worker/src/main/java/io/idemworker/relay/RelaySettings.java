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
 * @param publishedTtl how long a published event document lives after it was marked published
 * @param batchSize at most this many change-feed documents per page (a transactional batch is never
 *     split, so a page may be larger)
 * @param pollInterval the pause between cycles once the feed has nothing new
 * @param markParallelism at most this many events of a page are marked published at once (1 to
 *     {@value #MAX_MARK_PARALLELISM}); 1 marks them one after another
 */
public record RelaySettings(
    String topicName,
    String ownerId,
    Duration leaseDuration,
    Duration publishedTtl,
    int batchSize,
    Duration pollInterval,
    int markParallelism) {

  /** The largest {@code markParallelism}. */
  public static final int MAX_MARK_PARALLELISM = 64;

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
    requirePositive("publishedTtl", publishedTtl);
    if (publishedTtl.getSeconds() < 1 || publishedTtl.getSeconds() > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "publishedTtl must be from 1 s to " + Integer.MAX_VALUE + " s, was " + publishedTtl);
    }
    if (batchSize < 1 || batchSize > 1000) {
      throw new IllegalArgumentException("batchSize must be from 1 to 1000, was " + batchSize);
    }
    if (markParallelism < 1 || markParallelism > MAX_MARK_PARALLELISM) {
      throw new IllegalArgumentException(
          "markParallelism must be from 1 to " + MAX_MARK_PARALLELISM + ", was " + markParallelism);
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

  private static void requirePositive(String name, Duration value) {
    Objects.requireNonNull(value, name);
    if (value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(name + " must be positive, was " + value);
    }
  }
}
