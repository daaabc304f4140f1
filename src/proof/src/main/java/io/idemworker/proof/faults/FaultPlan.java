package io.idemworker.proof.faults;

import io.idemworker.emulator.cosmos.Operation;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

/**
 * A schedule of faults: process kills and the emulators' faults, each at a point of the producer's
 * progress (a fraction of the traffic sent) plus a delay, so that the same plan injects the same
 * faults at the same points of the traffic however fast the machine is. {@link #generate} draws one
 * from a seed (the chaos run); {@link #of} takes one written by hand (the demo). {@link
 * FaultInjector} carries the events out.
 *
 * <p>Immutable and thread-safe.
 */
public final class FaultPlan {
  /** The Cosmos DB operations a fault may hit, by {@link Event#target}. */
  public static final List<Operation> OPERATIONS =
      List.of(
          Operation.BATCH,
          Operation.READ,
          Operation.PATCH,
          Operation.QUERY,
          Operation.CHANGE_FEED,
          Operation.UPSERT);

  /** What a fault does; each kind's {@link #label} says it in words. */
  public enum Kind {
    SIGKILL("SIGKILL of a worker process, then restart"),
    SIGTERM("SIGTERM (graceful) of a worker process, then restart"),
    DROP_CONNECTIONS("Service Bus drops every connection"),
    LOSE_LOCKS("Service Bus loses every lock held on the queue or a subscription"),
    DELAY_DISPOSITIONS("Service Bus answers dispositions 300 ms late for 2 s"),
    COSMOS_THROTTLE("Cosmos DB answers 429 (throttled)"),
    COSMOS_UNAVAILABLE("Cosmos DB answers 503 (unavailable)"),
    COSMOS_TIMEOUT("Cosmos DB answers 408 (request timeout)"),
    COSMOS_LATENCY("Cosmos DB answers 250 ms late"),
    PAYMENT_AMBIGUOUS("payment provider executes the capture, then drops the connection");

    private final String label;

    Kind(String label) {
      this.label = label;
    }

    /** What the fault does, in words, for a report. */
    public String label() {
      return label;
    }

    /** Whether it kills a process (and restarts it). */
    public boolean isKill() {
      return this == SIGKILL || this == SIGTERM;
    }

    /**
     * Whether only an emulator's fault API can inject it: the broker's and the database's faults.
     * Against endpoints the run is given (a namespace, an account), those are not injected.
     */
    public boolean needsEmulator() {
      return this != SIGKILL && this != SIGTERM && this != PAYMENT_AMBIGUOUS;
    }
  }

  /**
   * One scheduled fault.
   *
   * @param at the producer's progress, 0 to 1, after which it fires
   * @param delayMillis how long after that point it fires
   * @param kind what it does
   * @param target for kills the process index (workers first, then consumers); for lock loss the
   *     entity index; for Cosmos DB faults the operation index; otherwise 0
   * @param count for Cosmos DB and payment faults how many requests it hits; otherwise 1
   */
  public record Event(double at, long delayMillis, Kind kind, int target, int count) {
    /**
     * Checks the parts.
     *
     * @throws IllegalArgumentException when {@code at} is outside 0 to 1, the delay or the target
     *     negative, or the count below 1
     */
    public Event {
      if (at < 0 || at > 1 || delayMillis < 0 || target < 0 || count < 1) {
        throw new IllegalArgumentException("invalid fault event " + at + " " + kind);
      }
    }

    /**
     * A Cosmos DB fault on {@code count} requests of one operation, without delay.
     *
     * @throws IllegalArgumentException if {@code kind} is not a Cosmos DB fault
     */
    public static Event cosmos(double at, Kind kind, Operation operation, int count) {
      if (!kind.name().startsWith("COSMOS_")) {
        throw new IllegalArgumentException(kind + " is not a Cosmos DB fault");
      }
      return new Event(at, 0, kind, OPERATIONS.indexOf(operation), count);
    }

    /** The payment provider executes the next {@code count} captures, then drops the connection. */
    public static Event ambiguousCaptures(double at, int count) {
      return new Event(at, 0, Kind.PAYMENT_AMBIGUOUS, 0, count);
    }

    /**
     * The event in one line: its point in percent, its delay and {@link #what}.
     *
     * @param processNames the processes kills may hit, by {@link #target}
     * @param entities the entities lock loss may hit, by {@link #target}
     * @param operations the Cosmos DB operations' names, by {@link #target}
     */
    public String describe(
        List<String> processNames, List<String> entities, List<String> operations) {
      return String.format(
          Locale.ROOT,
          "%5.1f%% +%4d ms  %s",
          at * 100,
          delayMillis,
          what(processNames, entities, operations));
    }

    /**
     * What the event does, in words.
     *
     * @param processNames the processes kills may hit, by {@link #target}
     * @param entities the entities lock loss may hit, by {@link #target}
     * @param operations the Cosmos DB operations' names, by {@link #target}
     */
    public String what(List<String> processNames, List<String> entities, List<String> operations) {
      return switch (kind) {
        case SIGKILL, SIGTERM -> kind.name() + " " + processNames.get(target);
        case LOSE_LOCKS -> "lose locks on " + entities.get(target);
        case COSMOS_THROTTLE, COSMOS_UNAVAILABLE, COSMOS_TIMEOUT, COSMOS_LATENCY ->
            kind.label + " on " + count + " " + operations.get(target) + " requests";
        case PAYMENT_AMBIGUOUS -> kind.label + " (" + count + " captures)";
        default -> kind.label;
      };
    }
  }

  private final long seed;

  /** The events, in firing order (by their point); immutable. */
  public final List<Event> events;

  private FaultPlan(long seed, List<Event> events) {
    this.seed = seed;
    this.events = List.copyOf(events);
  }

  /**
   * A plan written by hand.
   *
   * @param events the faults, in any order; fired in the order of their points
   * @return the plan (its seed 0)
   */
  public static FaultPlan of(List<Event> events) {
    List<Event> sorted = new ArrayList<>(events);
    sorted.sort(Comparator.comparingDouble(Event::at));
    return new FaultPlan(0, sorted);
  }

  /** The plan that injects nothing. */
  public static FaultPlan none() {
    return of(List.of());
  }

  /**
   * The events whose point lies in {@code [from, to)}: what a producer that steps through its
   * traffic in stages (the demo's phases) fires when it enters the stage that starts at {@code
   * from}.
   */
  public List<Event> between(double from, double to) {
    return events.stream().filter(e -> e.at() >= from && e.at() < to).toList();
  }

  /**
   * Generates a plan.
   *
   * @param seed the run's seed
   * @param kills how many process kills (about a third of them SIGTERM)
   * @param workers how many worker processes may be killed; the {@code consumers} follow them
   * @param consumers how many consumer processes may be killed
   * @param entities how many entities lock loss may hit
   * @param operations how many Cosmos DB operations the faults may hit
   * @param payments whether a payment provider is there to fail
   * @return the plan, in firing order; every non-kill kind appears at least once
   */
  public static FaultPlan generate(
      long seed,
      int kills,
      int workers,
      int consumers,
      int entities,
      int operations,
      boolean payments) {
    Random random = new Random(seed ^ 0x5DEECE66DL);
    List<Event> events = new ArrayList<>();
    int processes = workers + consumers;
    for (int i = 0; i < kills; i++) {
      // The first kills cover every kind of process and both signals; the rest are random.
      int target = i < processes ? i : random.nextInt(processes);
      Kind kind = (i == 1 || random.nextInt(3) == 0) ? Kind.SIGTERM : Kind.SIGKILL;
      events.add(new Event(point(random), random.nextInt(1000), kind, target, 1));
    }
    List<Kind> faults = new ArrayList<>();
    for (Kind kind : Kind.values()) {
      if (!kind.isKill() && (payments || kind != Kind.PAYMENT_AMBIGUOUS)) {
        faults.add(kind);
      }
    }
    int extra = Math.max(0, kills - faults.size());
    List<Kind> chosen = new ArrayList<>(faults);
    for (int i = 0; i < extra; i++) {
      chosen.add(faults.get(random.nextInt(faults.size())));
    }
    for (Kind kind : chosen) {
      int target =
          switch (kind) {
            case LOSE_LOCKS -> random.nextInt(entities);
            case COSMOS_THROTTLE, COSMOS_UNAVAILABLE, COSMOS_TIMEOUT, COSMOS_LATENCY ->
                random.nextInt(operations);
            default -> 0;
          };
      int count =
          switch (kind) {
            case COSMOS_THROTTLE -> 20 + random.nextInt(40);
            case COSMOS_UNAVAILABLE, COSMOS_TIMEOUT -> 3 + random.nextInt(10);
            case COSMOS_LATENCY -> 50 + random.nextInt(150);
            case PAYMENT_AMBIGUOUS -> 1 + random.nextInt(3);
            default -> 1;
          };
      events.add(new Event(point(random), random.nextInt(1000), kind, target, count));
    }
    events.sort(Comparator.comparingDouble(Event::at));
    return new FaultPlan(seed, events);
  }

  /** A point of the traffic, away from its very start and end so that faults meet load. */
  private static double point(Random random) {
    return 0.03 + random.nextDouble() * 0.94;
  }

  /**
   * How many events of each kind the plan holds.
   *
   * @return kind → count, every kind present
   */
  public Map<Kind, Integer> countByKind() {
    Map<Kind, Integer> counts = new EnumMap<>(Kind.class);
    for (Kind kind : Kind.values()) {
      counts.put(kind, 0);
    }
    events.forEach(e -> counts.merge(e.kind(), 1, Integer::sum));
    return counts;
  }

  /**
   * This plan without the events only an emulator can inject ({@link Kind#needsEmulator}): what a
   * run against given endpoints fires. The seed, and so the kills' places, stay the same.
   */
  public FaultPlan withoutEmulatorFaults() {
    return new FaultPlan(seed, events.stream().filter(e -> !e.kind().needsEmulator()).toList());
  }

  long kills() {
    return events.stream().filter(e -> e.kind().isKill()).count();
  }
}
