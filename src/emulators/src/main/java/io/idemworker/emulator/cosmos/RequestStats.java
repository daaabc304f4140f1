package io.idemworker.emulator.cosmos;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counters of the requests one emulator has received, by {@link Operation}, and of the request
 * charge it has billed. Every request that reached the emulator counts, including those answered by
 * an injected fault or an error. Thread-safe; reads are not a consistent snapshot under load.
 *
 * <p>{@link CosmosEmulator#stats()} counts every request; {@link #container(String, String)} counts
 * those on one container only (its items, queries, change feed, batches and its own metadata), so
 * that tests running in parallel on one emulator, each on containers of its own, count only their
 * own requests.
 */
public final class RequestStats {
  private final Counters all;
  private final ConcurrentHashMap<String, Counters> byContainer;
  private final String scope;

  RequestStats() {
    this.all = new Counters();
    this.byContainer = new ConcurrentHashMap<>();
    this.scope = null;
  }

  private RequestStats(RequestStats root, String scope) {
    this.all = root.all;
    this.byContainer = root.byContainer;
    this.scope = scope;
  }

  /**
   * The counters of one container, by the ids of its database and itself (live; a container of that
   * name need not exist yet, and one deleted and created again keeps counting on).
   *
   * @throws IllegalArgumentException when called on a container's counters, or an id is blank
   */
  public RequestStats container(String database, String container) {
    if (scope != null) {
      throw new IllegalArgumentException(
          "container(...) is asked of the emulator's stats(), not of container " + scope);
    }
    return new RequestStats(this, Faults.scopeKey(database, container));
  }

  private Counters counters() {
    return scope == null ? all : byContainer.computeIfAbsent(scope, k -> new Counters());
  }

  /** Requests of {@code operation} received since start or the last {@link #reset()}. */
  public long count(Operation operation) {
    return counters().counts.get(operation).sum();
  }

  /** Requests of all operations received since start or the last {@link #reset()}. */
  public long totalRequests() {
    return counters().counts.values().stream().mapToLong(LongAdder::sum).sum();
  }

  /** Sum of {@code x-ms-request-charge} answered since start or the last {@link #reset()}. */
  public double totalRequestCharge() {
    return counters().charge.sum();
  }

  /**
   * Sets every counter back to zero: on the emulator's, every counter, those of containers
   * included; on a container's, that container's.
   */
  public void reset() {
    if (scope == null) {
      all.reset();
      byContainer.values().forEach(Counters::reset);
    } else {
      counters().reset();
    }
  }

  /** Counts a request of {@code operation} on {@code container} (a scope key, or null). */
  void record(Operation operation, String container) {
    all.counts.get(operation).increment();
    if (container != null) {
      byContainer.computeIfAbsent(container, k -> new Counters()).counts.get(operation).increment();
    }
  }

  void record(Operation operation) {
    record(operation, null);
  }

  void charge(double requestCharge, String container) {
    all.charge.add(requestCharge);
    if (container != null) {
      byContainer.computeIfAbsent(container, k -> new Counters()).charge.add(requestCharge);
    }
  }

  void charge(double requestCharge) {
    charge(requestCharge, null);
  }

  @Override
  public String toString() {
    Counters c = counters();
    return "RequestStats"
        + (scope == null ? "" : "[" + scope + "]")
        + c.counts
        + ", charge="
        + c.charge.sum();
  }

  private static final class Counters {
    final Map<Operation, LongAdder> counts = new EnumMap<>(Operation.class);
    final DoubleAdder charge = new DoubleAdder();

    Counters() {
      for (Operation op : Operation.values()) {
        counts.put(op, new LongAdder());
      }
    }

    void reset() {
      counts.values().forEach(LongAdder::reset);
      charge.reset();
    }
  }
}
