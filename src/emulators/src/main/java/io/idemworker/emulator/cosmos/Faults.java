package io.idemworker.emulator.cosmos;

import io.idemworker.emulator.FaultOwner;
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
 *
 * <p><b>Scope.</b> {@link CosmosEmulator#faults()} is the emulator-wide switchboard: what it arms
 * meets requests on every container (and the account and database requests). {@link
 * #container(String, String)} gives a container's own: what it arms meets only requests on that
 * container (its items, queries, change feed, batches, and its own metadata: the container and its
 * partition key ranges), and its {@code failNth} counts only those requests, so tests that run in
 * parallel on one emulator, each on containers of its own, do not meet each other's faults.
 *
 * <p><b>Owner.</b> A fault armed while a {@link FaultOwner} is open on the thread (the JUnit
 * extension opens one per test) is disarmed when that owner closes, and no other is.
 */
public final class Faults {
  private final Map<Operation, List<Armed>> armed;
  private final String scope;
  private final String client;

  Faults() {
    this.armed = new EnumMap<>(Operation.class);
    for (Operation op : Operation.values()) {
      armed.put(op, new CopyOnWriteArrayList<>());
    }
    this.scope = null;
    this.client = null;
  }

  private Faults(Faults all, String scope, String client) {
    this.armed = all.armed;
    this.scope = scope;
    this.client = client;
  }

  /**
   * The switchboard of one container, by the ids of its database and itself (a container of that
   * name need not exist yet; the scope follows the name, so a container deleted and created again
   * keeps its faults). Arming there meets only requests on that container; clearing there disarms
   * only what was armed there.
   *
   * @throws IllegalArgumentException when called on a container's switchboard, or an id is blank
   */
  public Faults container(String database, String container) {
    if (scope != null) {
      throw new IllegalArgumentException(
          "container(...) is asked of the emulator's faults(), not of container " + scope);
    }
    return new Faults(this, scopeKey(database, container), client);
  }

  /**
   * The switchboard of one client: what it arms meets only requests whose {@code User-Agent}
   * contains {@code userAgentSuffix}, the text the client was built with ({@code
   * CosmosClientBuilder.userAgentSuffix}). With it a test can cut one of several clients off (a
   * host of a change feed processor that dies, say) while the others go on. Combines with {@link
   * #container(String, String)}.
   *
   * @throws IllegalArgumentException when called on a client's switchboard, or the text is blank
   */
  public Faults client(String userAgentSuffix) {
    if (client != null) {
      throw new IllegalArgumentException(
          "client(...) is asked of a switchboard without a client, not of client " + client);
    }
    if (userAgentSuffix == null || userAgentSuffix.isBlank()) {
      throw new IllegalArgumentException("userAgentSuffix must not be blank");
    }
    return new Faults(this, scope, userAgentSuffix);
  }

  /** The key a container's scope is held under: its database's id, a slash, its id. */
  static String scopeKey(String database, String container) {
    for (String id : new String[] {database, container}) {
      if (id == null || id.isBlank()) {
        throw new IllegalArgumentException("database and container ids must not be blank");
      }
    }
    return database + "/" + container;
  }

  /** Arms {@code fault} for every later request of {@code operation}. */
  public Faults inject(Operation operation, Fault fault) {
    Objects.requireNonNull(operation, "operation");
    Objects.requireNonNull(fault, "fault");
    arm(operation, new Armed(fault, 0, fault.occurrences(), scope, client));
    return this;
  }

  private void arm(Operation operation, Armed a) {
    List<Armed> list = armed.get(operation);
    list.add(a);
    FaultOwner.register(() -> list.remove(a));
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
    arm(operation, new Armed(fault, n, 1, scope, client));
    return this;
  }

  /**
   * Disarms every fault of every operation: on the emulator-wide switchboard every fault, those of
   * containers included; on a container's, that container's.
   */
  public Faults clear() {
    armed.values().forEach(this::clearIn);
    return this;
  }

  /** Disarms every fault of {@code operation}, in this switchboard's scope as {@link #clear()}. */
  public Faults clear(Operation operation) {
    clearIn(armed.get(Objects.requireNonNull(operation, "operation")));
    return this;
  }

  private void clearIn(List<Armed> list) {
    if (scope == null && client == null) {
      list.clear();
    } else {
      list.removeIf(a -> Objects.equals(scope, a.scope) && Objects.equals(client, a.client));
    }
  }

  /** What a request of {@code operation} on no container meets. */
  Outcome onRequest(Operation operation) {
    return onRequest(operation, null, null);
  }

  /** What a request of {@code operation} on {@code container}, from no named client, meets. */
  Outcome onRequest(Operation operation, String container) {
    return onRequest(operation, container, null);
  }

  /**
   * What a request of {@code operation} meets: total latency and the status fault, if any.
   *
   * @param container the {@link #scopeKey scope key} of the container the request is on, or null
   *     for a request on no container
   * @param userAgent the request's {@code User-Agent}, or null
   */
  Outcome onRequest(Operation operation, String container, String userAgent) {
    List<Armed> faults = armed.get(operation);
    if (faults.isEmpty()) {
      return Outcome.NONE;
    }
    Duration latency = Duration.ZERO;
    Fault failure = null;
    List<Armed> spent = new ArrayList<>();
    for (Armed a : faults) {
      if (a.scope != null && !a.scope.equals(container)) {
        continue;
      }
      if (a.client != null && (userAgent == null || !userAgent.contains(a.client))) {
        continue;
      }
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
    final String scope;
    final String client;

    Armed(Fault fault, int nth, int times, String scope, String client) {
      this.fault = fault;
      this.scope = scope;
      this.client = client;
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
