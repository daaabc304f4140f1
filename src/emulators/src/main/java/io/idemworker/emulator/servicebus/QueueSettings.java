package io.idemworker.emulator.servicebus;

import java.time.Duration;
import java.util.Objects;

/**
 * Settings of one emulated queue, named as in the official Service Bus emulator's {@code
 * Config.json}.
 *
 * <p>The record validates itself: a blank name, a non-positive duration or a {@code
 * maxDeliveryCount} below 1 fails with an {@link IllegalArgumentException} naming the field.
 *
 * @param name queue name; matched case-insensitively by the emulator
 * @param lockDuration how long a peek-lock holds a message (LockDuration)
 * @param maxDeliveryCount deliveries after which a message is dead-lettered (MaxDeliveryCount)
 * @param requiresDuplicateDetection whether repeated message-ids are dropped
 * @param duplicateDetectionHistoryTimeWindow how long a message-id is remembered
 * @param defaultMessageTimeToLive time-to-live of messages that carry none, and the upper bound of
 *     those that do
 * @param deadLetteringOnMessageExpiration whether expired messages move to the dead-letter subqueue
 *     instead of being deleted
 * @param requiresSession whether the queue is session-aware (RequiresSession): every message needs
 *     a SessionId, and only session receivers may attach
 */
public record QueueSettings(
    String name,
    Duration lockDuration,
    int maxDeliveryCount,
    boolean requiresDuplicateDetection,
    Duration duplicateDetectionHistoryTimeWindow,
    Duration defaultMessageTimeToLive,
    boolean deadLetteringOnMessageExpiration,
    boolean requiresSession) {

  /**
   * Settings of a queue without sessions.
   *
   * @param name queue name
   * @param lockDuration LockDuration
   * @param maxDeliveryCount MaxDeliveryCount
   * @param requiresDuplicateDetection RequiresDuplicateDetection
   * @param duplicateDetectionHistoryTimeWindow DuplicateDetectionHistoryTimeWindow
   * @param defaultMessageTimeToLive DefaultMessageTimeToLive
   * @param deadLetteringOnMessageExpiration DeadLetteringOnMessageExpiration
   */
  public QueueSettings(
      String name,
      Duration lockDuration,
      int maxDeliveryCount,
      boolean requiresDuplicateDetection,
      Duration duplicateDetectionHistoryTimeWindow,
      Duration defaultMessageTimeToLive,
      boolean deadLetteringOnMessageExpiration) {
    this(
        name,
        lockDuration,
        maxDeliveryCount,
        requiresDuplicateDetection,
        duplicateDetectionHistoryTimeWindow,
        defaultMessageTimeToLive,
        deadLetteringOnMessageExpiration,
        false);
  }

  /** Validates every field. */
  public QueueSettings {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException("name must not be blank");
    }
    if (name.startsWith("/") || name.endsWith("/") || name.startsWith("$")) {
      throw new IllegalArgumentException(
          "name must not start or end with '/' or start with '$' but was '" + name + "'");
    }
    requirePositive("lockDuration", lockDuration);
    if (maxDeliveryCount < 1) {
      throw new IllegalArgumentException(
          "maxDeliveryCount must be >= 1 but was " + maxDeliveryCount);
    }
    requireDuplicateWindow(duplicateDetectionHistoryTimeWindow);
    requirePositive("defaultMessageTimeToLive", defaultMessageTimeToLive);
  }

  /**
   * Returns the defaults used when only a name is known: PT1M lock, 10 deliveries, no duplicate
   * detection, PT10M duplicate window, 14 days time-to-live, no dead-lettering on expiry.
   *
   * @param name queue name
   * @return default settings for the queue
   */
  public static QueueSettings defaults(String name) {
    return new QueueSettings(
        name, Duration.ofMinutes(1), 10, false, Duration.ofMinutes(10), Duration.ofDays(14), false);
  }

  /**
   * Copies these settings with another lock duration.
   *
   * @param value the new LockDuration
   * @return a copy
   */
  public QueueSettings withLockDuration(Duration value) {
    return new QueueSettings(
        name,
        value,
        maxDeliveryCount,
        requiresDuplicateDetection,
        duplicateDetectionHistoryTimeWindow,
        defaultMessageTimeToLive,
        deadLetteringOnMessageExpiration,
        requiresSession);
  }

  /**
   * Copies these settings with another maximum delivery count.
   *
   * @param value the new MaxDeliveryCount
   * @return a copy
   */
  public QueueSettings withMaxDeliveryCount(int value) {
    return new QueueSettings(
        name,
        lockDuration,
        value,
        requiresDuplicateDetection,
        duplicateDetectionHistoryTimeWindow,
        defaultMessageTimeToLive,
        deadLetteringOnMessageExpiration,
        requiresSession);
  }

  /**
   * Copies these settings with duplicate detection switched on or off.
   *
   * @param value the new RequiresDuplicateDetection
   * @return a copy
   */
  public QueueSettings withRequiresDuplicateDetection(boolean value) {
    return new QueueSettings(
        name,
        lockDuration,
        maxDeliveryCount,
        value,
        duplicateDetectionHistoryTimeWindow,
        defaultMessageTimeToLive,
        deadLetteringOnMessageExpiration,
        requiresSession);
  }

  /**
   * Copies these settings with another duplicate detection window.
   *
   * @param value the new DuplicateDetectionHistoryTimeWindow
   * @return a copy
   */
  public QueueSettings withDuplicateDetectionHistoryTimeWindow(Duration value) {
    return new QueueSettings(
        name,
        lockDuration,
        maxDeliveryCount,
        requiresDuplicateDetection,
        value,
        defaultMessageTimeToLive,
        deadLetteringOnMessageExpiration,
        requiresSession);
  }

  /**
   * Copies these settings with another default time-to-live.
   *
   * @param value the new DefaultMessageTimeToLive
   * @return a copy
   */
  public QueueSettings withDefaultMessageTimeToLive(Duration value) {
    return new QueueSettings(
        name,
        lockDuration,
        maxDeliveryCount,
        requiresDuplicateDetection,
        duplicateDetectionHistoryTimeWindow,
        value,
        deadLetteringOnMessageExpiration,
        requiresSession);
  }

  /**
   * Copies these settings with dead-lettering on expiry switched on or off.
   *
   * @param value the new DeadLetteringOnMessageExpiration
   * @return a copy
   */
  public QueueSettings withDeadLetteringOnMessageExpiration(boolean value) {
    return new QueueSettings(
        name,
        lockDuration,
        maxDeliveryCount,
        requiresDuplicateDetection,
        duplicateDetectionHistoryTimeWindow,
        defaultMessageTimeToLive,
        value,
        requiresSession);
  }

  /**
   * Copies these settings with sessions required or not.
   *
   * @param value the new RequiresSession
   * @return a copy
   */
  public QueueSettings withRequiresSession(boolean value) {
    return new QueueSettings(
        name,
        lockDuration,
        maxDeliveryCount,
        requiresDuplicateDetection,
        duplicateDetectionHistoryTimeWindow,
        defaultMessageTimeToLive,
        deadLetteringOnMessageExpiration,
        value);
  }

  /**
   * The shortest duplicate-detection window a settings record can hold: one second. An emulator
   * refuses anything under {@link #SERVICE_MIN_DUPLICATE_WINDOW} unless it was built with a shorter
   * {@code ServiceBusEmulator.Builder.shortestDuplicateWindow} (an emulator-only relaxation for
   * tests that wait a window out).
   */
  static final Duration MIN_DUPLICATE_WINDOW = Duration.ofSeconds(1);

  /** The shortest duplicate-detection window Service Bus accepts, and the emulator's default. */
  static final Duration SERVICE_MIN_DUPLICATE_WINDOW = Duration.ofSeconds(20);

  /** The longest duplicate-detection window Service Bus accepts. */
  static final Duration MAX_DUPLICATE_WINDOW = Duration.ofDays(7);

  /**
   * Checks a duplicate-detection window against what any emulator could accept: one second (see
   * {@link #MIN_DUPLICATE_WINDOW}) to the service's 7 days, whether or not duplicate detection is
   * on (the service validates the property either way). The service's own minimum is checked when
   * an emulator takes the entity ({@link #requireWindowAtLeast}).
   */
  static void requireDuplicateWindow(Duration value) {
    String field = "duplicateDetectionHistoryTimeWindow";
    Objects.requireNonNull(value, field + " must not be null");
    if (value.compareTo(MIN_DUPLICATE_WINDOW) < 0 || value.compareTo(MAX_DUPLICATE_WINDOW) > 0) {
      throw new IllegalArgumentException(
          field
              + " must be between PT20S (PT1S with an emulator-only relaxation) and P7D (PT168H)"
              + " but was "
              + value);
    }
  }

  /**
   * Refuses an entity whose duplicate-detection window is shorter than {@code shortest}, as the
   * service refuses one under 20 seconds.
   *
   * @param entity what the window belongs to, e.g. {@code queue 'orders'}
   * @param window the entity's window
   * @param shortest the emulator's shortest window
   * @throws IllegalArgumentException naming the entity, the field and how to relax the check
   */
  static void requireWindowAtLeast(String entity, Duration window, Duration shortest) {
    if (window.compareTo(shortest) < 0) {
      throw new IllegalArgumentException(
          entity
              + ": duplicateDetectionHistoryTimeWindow "
              + window
              + " is shorter than "
              + shortest
              + (shortest.equals(SERVICE_MIN_DUPLICATE_WINDOW)
                  ? ", the service's minimum; for tests only,"
                      + " ServiceBusEmulator.Builder.shortestDuplicateWindow (emulators"
                      + " --servicebus-shortest-duplicate-window) accepts windows down to PT1S"
                  : ", the emulator's shortestDuplicateWindow"));
    }
  }

  private static void requirePositive(String field, Duration value) {
    Objects.requireNonNull(value, field + " must not be null");
    if (value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(field + " must be positive but was " + value);
    }
  }
}
