package io.idemworker.telemetry;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * A point-in-time copy of the in-process counts that {@link Telemetry} keeps beside its
 * OpenTelemetry instruments, for summaries such as the {@code demo} command's. The maps are sorted
 * by key and unmodifiable; keys that never occurred are absent, not zero.
 *
 * @param received deliveries that arrived
 * @param processed deliveries that applied their effect
 * @param duplicates deliveries found to be repeats of an applied message
 * @param stale deliveries that carried an older version than the stored one
 * @param deadLettered dead-lettered deliveries by {@link
 *     io.idemworker.core.DeadLetterReason#code()}
 * @param retried retried deliveries by cause: {@code transient} or {@code misconfiguration}
 * @param settlementFailures deliveries whose settlement failed (the broker redelivers them)
 * @param cosmosCalls Cosmos DB round trips by operation ({@code batch}, {@code read})
 * @param requestCharge request units charged by all Cosmos DB round trips
 * @param duplicatesBySource duplicates by {@link io.idemworker.core.DuplicateSource#label()}
 */
public record TelemetryCounts(
    long received,
    long processed,
    long duplicates,
    long stale,
    Map<String, Long> deadLettered,
    Map<String, Long> retried,
    long settlementFailures,
    Map<String, Long> cosmosCalls,
    double requestCharge,
    Map<String, Long> duplicatesBySource) {

  /** Copies the maps into sorted, unmodifiable ones. */
  public TelemetryCounts {
    deadLettered = Collections.unmodifiableMap(new TreeMap<>(deadLettered));
    retried = Collections.unmodifiableMap(new TreeMap<>(retried));
    cosmosCalls = Collections.unmodifiableMap(new TreeMap<>(cosmosCalls));
    duplicatesBySource = Collections.unmodifiableMap(new TreeMap<>(duplicatesBySource));
  }

  /**
   * All dead-lettered deliveries, whatever the reason.
   *
   * @return the sum over reasons
   */
  public long deadLetteredTotal() {
    return sum(deadLettered);
  }

  /**
   * All retried deliveries, whatever the cause.
   *
   * @return the sum over causes
   */
  public long retriedTotal() {
    return sum(retried);
  }

  /**
   * Deliveries that reached an outcome.
   *
   * @return processed + duplicates + stale + dead-lettered + retried
   */
  public long finished() {
    return processed + duplicates + stale + deadLetteredTotal() + retriedTotal();
  }

  /**
   * Deliveries that arrived but have not reached an outcome: in flight, or lost to a failure
   * between arrival and outcome. The same value as the {@code idemworker.messages.unbalanced}
   * gauge, up to the instant each was read.
   *
   * @return received − finished
   */
  public long unbalanced() {
    return received - finished();
  }

  private static long sum(Map<String, Long> counts) {
    return counts.values().stream().mapToLong(Long::longValue).sum();
  }
}
