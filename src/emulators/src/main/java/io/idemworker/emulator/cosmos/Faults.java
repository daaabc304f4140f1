package io.idemworker.emulator.cosmos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The fault-injection switchboard of one emulator. Thread-safe; changes apply to requests that
 * arrive after the call returns.
 *
 * <p>A request of an {@link Operation} meets every fault armed for that operation, oldest first:
 * latencies add up, and the first fault with a status answers the request instead of the store
 * (nothing is written). A fault limited with {@link Fault#times(int)} disarms itself after that
 * many requests; others stay until {@link #clear()} or {@link #clear(Operation)}. Faulted requests
 * still count in {@link RequestStats}.
 */
public final class Faults {
  private final Map<Operation, List<Armed>> armed = new EnumMap<>(Operation.class);

  Faults() {
    for (Operation op : Operation.values()) {
      armed.put(op, new CopyOnWriteArrayList<>());
    }
  }

  /** Arms {@code fault} for every later request of {@code operation}. */
  public Faults inject(Operation operation, Fault fault) {
    Objects.requireNonNull(operation, "operation");
    Objects.requireNonNull(fault, "fault");
    armed.get(operation).add(new Armed(fault, 0, fault.occurrences()));
    return this;
  }

  /**
   * Arms a latency-only fault on every operation: each later request is answered {@code latency}
   * after it arrived, as a distant account's response time would be. The request is served at once
   * and its answer held, so the emulator's own work is inside the latency rather than added to it
   * (a client measures the injected figure). The hold happens on the request's own connection
   * thread (one per client connection) with no lock held, so concurrent requests on other
   * connections wait side by side rather than one after another. Zero arms nothing.
   */
  public Faults injectLatency(Duration latency) {
    return injectLatency(latency, 0);
  }

  /**
   * As {@link #injectLatency(Duration)}, with each request's latency drawn uniformly between {@code
   * mean × (1 − spread)} and {@code mean × (1 + spread)} ({@link
   * io.idemworker.emulator.Latencies}): the mean response time is {@code mean}, and concurrent
   * requests come back at different times, as a service's do. Zero arms nothing.
   *
   * @param mean the mean latency, zero or positive
   * @param spread 0 (constant) to 1
   * @throws IllegalArgumentException if the mean is negative or the spread outside 0 to 1
   */
  public Faults injectLatency(Duration mean, double spread) {
    Fault fault = Fault.latency(mean, spread);
    if (!mean.isZero()) {
      for (Operation op : Operation.values()) {
        inject(op, fault);
      }
    }
    return this;
  }

  /**
   * Arms {@code fault} for the {@code n}-th request of {@code operation} counted from now (n = 1 is
   * the next one), once; other requests pass.
   */
  public Faults failNth(Operation operation, int n, Fault fault) {
    Objects.requireNonNull(operation, "operation");
    Objects.requireNonNull(fault, "fault");
    if (n < 1) {
      throw new IllegalArgumentException("n must be >= 1, got " + n);
    }
    armed.get(operation).add(new Armed(fault, n, 1));
    return this;
  }

  /** Disarms every fault of every operation. */
  public Faults clear() {
    armed.values().forEach(List::clear);
    return this;
  }

  /** Disarms every fault of {@code operation}. */
  public Faults clear(Operation operation) {
    armed.get(operation).clear();
    return this;
  }

  /** What a request of {@code operation} meets: total latency and the status fault, if any. */
  Outcome onRequest(Operation operation) {
    List<Armed> faults = armed.get(operation);
    if (faults.isEmpty()) {
      return Outcome.NONE;
    }
    Duration latency = Duration.ZERO;
    Fault failure = null;
    List<Armed> spent = new ArrayList<>();
    for (Armed a : faults) {
      if (!a.due()) {
        continue;
      }
      // A status fault that cannot answer (an earlier one does) is not used up.
      if (failure != null && a.fault.failsRequest()) {
        continue;
      }
      if (!a.consume()) {
        continue;
      }
      if (a.spent()) {
        spent.add(a);
      }
      latency = latency.plus(a.fault.addedLatency());
      if (failure == null && a.fault.failsRequest()) {
        failure = a.fault;
      }
    }
    faults.removeAll(spent);
    return new Outcome(latency, Optional.ofNullable(failure));
  }

  record Outcome(Duration latency, Optional<Fault> failure) {
    static final Outcome NONE = new Outcome(Duration.ZERO, Optional.empty());
  }

  private static final class Armed {
    final Fault fault;
    final AtomicInteger countdown;
    final AtomicInteger remaining;

    Armed(Fault fault, int nth, int times) {
      this.fault = fault;
      this.countdown = new AtomicInteger(nth);
      this.remaining = new AtomicInteger(times);
    }

    /** Counts this request towards an n-th fault; true once the n-th request is reached. */
    boolean due() {
      return countdown.get() <= 0 || countdown.decrementAndGet() <= 0;
    }

    boolean consume() {
      if (remaining.get() == Fault.UNLIMITED) {
        return true;
      }
      return remaining.getAndUpdate(r -> r > 0 ? r - 1 : 0) > 0;
    }

    boolean spent() {
      return remaining.get() == 0;
    }
  }
}
