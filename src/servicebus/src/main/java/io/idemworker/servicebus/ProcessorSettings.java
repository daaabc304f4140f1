package io.idemworker.servicebus;

import java.time.Duration;
import java.util.Objects;

/**
 * How the worker takes messages from its queue or topic subscription. Validates itself; messages
 * name the component that is wrong.
 *
 * @param source the queue or the topic subscription
 * @param maxConcurrentCalls messages handled at once, 1–1000
 * @param prefetchCount messages fetched ahead, 0–10000
 * @param maxLockRenewal how long a slow message's lock is renewed
 * @param maxRetryBackoff the longest wait before abandoning a transiently failed message; always
 *     cut short so the abandon happens inside the lock
 * @param probeInterval how often a paused worker probes its store
 * @param transientFailuresBeforePause after this many transient store failures in a row (no success
 *     in between) the worker pauses and probes instead of abandoning message after message, so that
 *     an outage longer than the broker's delivery limit does not dead-letter good messages; 1–10000
 */
public record ProcessorSettings(
    Source source,
    int maxConcurrentCalls,
    int prefetchCount,
    Duration maxLockRenewal,
    Duration maxRetryBackoff,
    Duration probeInterval,
    int transientFailuresBeforePause) {

  /** Checks every value. */
  public ProcessorSettings {
    Objects.requireNonNull(source, "source");
    if (maxConcurrentCalls < 1 || maxConcurrentCalls > 1000) {
      throw new IllegalArgumentException(
          "maxConcurrentCalls must be 1-1000, was " + maxConcurrentCalls);
    }
    if (prefetchCount < 0 || prefetchCount > 10_000) {
      throw new IllegalArgumentException("prefetchCount must be 0-10000, was " + prefetchCount);
    }
    Objects.requireNonNull(maxLockRenewal, "maxLockRenewal");
    Objects.requireNonNull(maxRetryBackoff, "maxRetryBackoff");
    Objects.requireNonNull(probeInterval, "probeInterval");
    if (maxLockRenewal.isNegative()) {
      throw new IllegalArgumentException("maxLockRenewal must not be negative");
    }
    if (maxRetryBackoff.isNegative() || probeInterval.isNegative() || probeInterval.isZero()) {
      throw new IllegalArgumentException("back-off must be >= 0 and probe interval > 0");
    }
    if (transientFailuresBeforePause < 1 || transientFailuresBeforePause > 10_000) {
      throw new IllegalArgumentException(
          "transientFailuresBeforePause must be 1-10000, was " + transientFailuresBeforePause);
    }
  }

  /** Where the messages come from. */
  public sealed interface Source {
    /**
     * How logs name it.
     *
     * @return e.g. {@code queue inbound} or {@code subscription events/audit}
     */
    String describe();
  }

  /**
   * A queue.
   *
   * @param name the queue's name
   */
  public record Queue(String name) implements Source {
    /** Requires a name. */
    public Queue {
      if (name == null || name.isBlank()) {
        throw new IllegalArgumentException("the queue name must not be blank");
      }
    }

    @Override
    public String describe() {
      return "queue " + name;
    }
  }

  /**
   * A topic's subscription: this consumer's own copy of every message published to the topic that
   * the subscription's rules let through.
   *
   * @param topic the topic's name
   * @param subscription the subscription's name
   */
  public record Subscription(String topic, String subscription) implements Source {
    /** Requires both names. */
    public Subscription {
      if (topic == null || topic.isBlank()) {
        throw new IllegalArgumentException("the topic name must not be blank");
      }
      if (subscription == null || subscription.isBlank()) {
        throw new IllegalArgumentException("the subscription name must not be blank");
      }
    }

    @Override
    public String describe() {
      return "subscription " + topic + "/" + subscription;
    }
  }

  /**
   * Defaults for a queue: 16 concurrent calls, no prefetch, 5 minutes of lock renewal, back-off up
   * to 2 s, probe every 5 s, pause after 32 transient failures in a row.
   *
   * @param queueName the queue
   * @return the settings
   */
  public static ProcessorSettings defaults(String queueName) {
    return defaults(new Queue(queueName));
  }

  /**
   * The same defaults for any source.
   *
   * @param source the queue or subscription
   * @return the settings
   */
  public static ProcessorSettings defaults(Source source) {
    return new ProcessorSettings(
        source, 16, 0, Duration.ofMinutes(5), Duration.ofSeconds(2), Duration.ofSeconds(5), 32);
  }

  /**
   * A copy with another concurrency.
   *
   * @param calls the concurrent calls
   * @return the copy
   */
  public ProcessorSettings withMaxConcurrentCalls(int calls) {
    return new ProcessorSettings(
        source,
        calls,
        prefetchCount,
        maxLockRenewal,
        maxRetryBackoff,
        probeInterval,
        transientFailuresBeforePause);
  }

  /**
   * A copy with another back-off bound.
   *
   * @param backoff the longest back-off
   * @return the copy
   */
  public ProcessorSettings withMaxRetryBackoff(Duration backoff) {
    return new ProcessorSettings(
        source,
        maxConcurrentCalls,
        prefetchCount,
        maxLockRenewal,
        backoff,
        probeInterval,
        transientFailuresBeforePause);
  }

  /**
   * A copy with another probe interval.
   *
   * @param interval the interval
   * @return the copy
   */
  public ProcessorSettings withProbeInterval(Duration interval) {
    return new ProcessorSettings(
        source,
        maxConcurrentCalls,
        prefetchCount,
        maxLockRenewal,
        maxRetryBackoff,
        interval,
        transientFailuresBeforePause);
  }

  /**
   * A copy with another pause threshold.
   *
   * @param failures transient failures in a row before pausing
   * @return the copy
   */
  public ProcessorSettings withTransientFailuresBeforePause(int failures) {
    return new ProcessorSettings(
        source,
        maxConcurrentCalls,
        prefetchCount,
        maxLockRenewal,
        maxRetryBackoff,
        probeInterval,
        failures);
  }
}
