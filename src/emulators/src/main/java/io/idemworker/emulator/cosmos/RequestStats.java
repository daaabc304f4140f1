package io.idemworker.emulator.cosmos;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counters of the requests one emulator has received, by {@link Operation}, and of the request
 * charge it has billed. Every request that reached the emulator counts, including those answered by
 * an injected fault or an error. Thread-safe; reads are not a consistent snapshot under load.
 */
public final class RequestStats {
  private final Map<Operation, LongAdder> counts = new EnumMap<>(Operation.class);
  private final DoubleAdder charge = new DoubleAdder();

  RequestStats() {
    for (Operation op : Operation.values()) {
      counts.put(op, new LongAdder());
    }
  }

  /** Requests of {@code operation} received since start or the last {@link #reset()}. */
  public long count(Operation operation) {
    return counts.get(operation).sum();
  }

  /** Requests of all operations received since start or the last {@link #reset()}. */
  public long totalRequests() {
    return counts.values().stream().mapToLong(LongAdder::sum).sum();
  }

  /** Sum of {@code x-ms-request-charge} answered since start or the last {@link #reset()}. */
  public double totalRequestCharge() {
    return charge.sum();
  }

  /** Sets every counter back to zero. */
  public void reset() {
    counts.values().forEach(LongAdder::reset);
    charge.reset();
  }

  void record(Operation operation) {
    counts.get(operation).increment();
  }

  void charge(double requestCharge) {
    charge.add(requestCharge);
  }

  @Override
  public String toString() {
    return "RequestStats" + counts + ", charge=" + totalRequestCharge();
  }
}
