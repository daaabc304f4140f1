package io.idemworker.emulator.cosmos;

import java.util.Objects;
import java.util.Optional;

/**
 * A container to create up front with {@link CosmosEmulator#createContainer(ContainerSettings)}:
 * where it lives, its partition key path, and optionally its number of partition key ranges and its
 * default time to live. Immutable; the {@code with…} methods return copies.
 *
 * @param database the database's id (created when missing)
 * @param container the container's id
 * @param partitionKeyPath the partition key path, such as {@code /orderId}
 * @param partitionKeyRanges how many partition key ranges (1 to 64), or 0 for the emulator's
 *     default ({@link CosmosEmulator.Builder#partitionKeyRanges(int)})
 * @param defaultTimeToLive the container's {@code defaultTtl} in seconds: empty for time to live
 *     off (items' {@code ttl} ignored), -1 for on without a default expiry, or a positive number of
 *     seconds
 */
public record ContainerSettings(
    String database,
    String container,
    String partitionKeyPath,
    int partitionKeyRanges,
    Optional<Integer> defaultTimeToLive) {

  /** Validates every field. */
  public ContainerSettings {
    requireId(database, "database");
    requireId(container, "container");
    Objects.requireNonNull(partitionKeyPath, "partitionKeyPath");
    if (!partitionKeyPath.matches("/[^/\\s]+(/[^/\\s]+)*")) {
      throw new IllegalArgumentException(
          "partitionKeyPath must be like /orderId, got '" + partitionKeyPath + "'");
    }
    if (partitionKeyRanges != 0) {
      new PartitionKeyRanges(partitionKeyRanges); // 1 to 64
    }
    Objects.requireNonNull(defaultTimeToLive, "defaultTimeToLive");
    defaultTimeToLive.ifPresent(
        ttl -> {
          if (ttl == 0 || ttl < -1) {
            throw new IllegalArgumentException(
                "defaultTimeToLive must be -1 (on, no default expiry) or a positive number of"
                    + " seconds, got "
                    + ttl);
          }
        });
  }

  /** A container with the emulator's default ranges and time to live off. */
  public static ContainerSettings of(String database, String container, String partitionKeyPath) {
    return new ContainerSettings(database, container, partitionKeyPath, 0, Optional.empty());
  }

  /** A copy with {@code count} partition key ranges (1 to 64). */
  public ContainerSettings withPartitionKeyRanges(int count) {
    if (count == 0) {
      throw new IllegalArgumentException("partitionKeyRanges must be between 1 and 64, got 0");
    }
    return new ContainerSettings(database, container, partitionKeyPath, count, defaultTimeToLive);
  }

  /**
   * A copy with time to live on: {@code seconds} is the container's {@code defaultTtl}, -1 for no
   * default expiry (items expire only by their own {@code ttl}).
   */
  public ContainerSettings withDefaultTimeToLive(int seconds) {
    return new ContainerSettings(
        database, container, partitionKeyPath, partitionKeyRanges, Optional.of(seconds));
  }

  private static void requireId(String id, String what) {
    if (id == null || id.isBlank() || id.length() > 255 || id.matches(".*[/\\\\?#].*")) {
      throw new IllegalArgumentException(
          what + " id must be 1-255 characters without / \\ ? #, got '" + id + "'");
    }
  }
}
