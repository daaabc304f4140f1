package io.idemworker.simulation;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.math.BigInteger;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Explores every schedule of a {@link Simulation} breadth-first, checking the model's invariants
 * after every step and in every quiet state.
 *
 * <p>Pruning: two schedules that reach the same state (same database, clock, broker view, handler
 * records and faults left: {@link World#canonical}) have the same futures, so only the first is
 * expanded; the rest are counted, not re-run. This merges, among others, every reordering of steps
 * that commute (a read by one copy and a delivery of another). States are compared by a 128-bit
 * digest of their canonical text.
 *
 * <p>Breadth-first order makes the first violation found one of the shortest: its schedule is
 * printed as the counterexample.
 *
 * <p>Not thread-safe.
 */
final class Explorer {
  private Explorer() {}

  /**
   * A schedule that breaks an invariant.
   *
   * @param steps the steps in words
   * @param violation the invariant and how it broke
   */
  record Counterexample(List<String> steps, String violation) {
    /**
     * The schedule as numbered lines.
     *
     * @return the text
     */
    String render() {
      StringBuilder text = new StringBuilder();
      for (int i = 0; i < steps.size(); i++) {
        text.append(i + 1).append(". ").append(steps.get(i)).append('\n');
      }
      return text.append("→ violated: ").append(violation).toString();
    }
  }

  /**
   * What an exploration saw.
   *
   * @param model the model's name
   * @param setup the bounds
   * @param states distinct states reached
   * @param transitions steps taken (edges between states)
   * @param quietStates quiet states whose end invariants were checked
   * @param schedules complete schedules (paths from the start to a state with every message
   *     settled) the explored states stand for
   * @param handlerRuns runs of the real flow
   * @param longest the longest schedule, in steps
   * @param elapsed wall time
   * @param cpu CPU time of the exploring thread (the machine may be shared)
   * @param counterexample the first (shortest) violation, if any
   */
  record Report(
      String model,
      Setup setup,
      long states,
      long transitions,
      long quietStates,
      BigInteger schedules,
      long handlerRuns,
      int longest,
      Duration elapsed,
      Duration cpu,
      Optional<Counterexample> counterexample) {

    /**
     * One line for logs and docs.
     *
     * @return the line
     */
    String summary() {
      return String.format(
          "%s [%s]: copies=%d crashes=%d lockExpiries=%d maxDeliveryCount=%d: states=%d"
              + " transitions=%d quietStates=%d schedules=%s longest=%d handlerRuns=%d wall=%dms cpu=%dms%s",
          model,
          setup.flow(),
          setup.copies(),
          setup.crashes(),
          setup.lockExpiries(),
          setup.maxDeliveryCount(),
          states,
          transitions,
          quietStates,
          schedules,
          longest,
          handlerRuns,
          elapsed.toMillis(),
          cpu.toMillis(),
          counterexample.map(c -> " COUNTEREXAMPLE in " + c.steps().size() + " steps").orElse(""));
    }
  }

  private record Key(String digest) {}

  private record Node(Key parent, String step, int depth, List<Key> successors) {}

  /**
   * Explores every schedule, stopping at the first violation.
   *
   * @param model the message type
   * @param setup the bounds and the flow
   * @return the report
   */
  static Report explore(Model model, Setup setup) {
    return explore(model, setup, CallFaults.NONE);
  }

  /**
   * As {@link #explore(Model, Setup)}, with faults that may strike calls ({@link CallFaults}).
   *
   * @param model the model
   * @param setup the bounds and the flow
   * @param faults the call faults and their budget per schedule
   * @return the report
   */
  static Report explore(Model model, Setup setup, CallFaults faults) {
    long started = System.nanoTime();
    long cpuStarted = cpuNanos();
    Simulation simulation = new Simulation(model, setup, faults);
    World initial = simulation.initial();
    Key root = key(initial);
    Map<Key, Node> nodes = new HashMap<>();
    nodes.put(root, new Node(null, "", 0, new ArrayList<>()));
    ArrayDeque<Map.Entry<Key, World>> frontier = new ArrayDeque<>();
    frontier.add(Map.entry(root, initial));
    long transitions = 0;
    long quiet = 0;
    int longest = 0;
    Optional<Counterexample> counterexample = Optional.empty();
    search:
    while (!frontier.isEmpty()) {
      Map.Entry<Key, World> entry = frontier.poll();
      World world = entry.getValue();
      Node node = nodes.get(entry.getKey());
      longest = Math.max(longest, node.depth());
      if (world.quiet()) {
        quiet++;
        Optional<String> violation = model.whenQuiet(world);
        if (violation.isPresent()) {
          counterexample =
              Optional.of(new Counterexample(path(nodes, entry.getKey()), violation.get()));
          break;
        }
      }
      for (Simulation.Step step : simulation.steps(world)) {
        transitions++;
        Optional<String> violation = model.afterStep(world, step.next());
        if (violation.isPresent()) {
          List<String> steps = new ArrayList<>(path(nodes, entry.getKey()));
          steps.add(step.description());
          counterexample = Optional.of(new Counterexample(steps, violation.get()));
          break search;
        }
        Key next = key(step.next());
        node.successors().add(next);
        if (!nodes.containsKey(next)) {
          nodes.put(
              next,
              new Node(entry.getKey(), step.description(), node.depth() + 1, new ArrayList<>()));
          frontier.add(Map.entry(next, step.next()));
        }
      }
    }
    BigInteger schedules =
        counterexample.isPresent() ? BigInteger.ZERO : schedules(nodes, root, new HashMap<>());
    return new Report(
        model.name(),
        setup,
        nodes.size(),
        transitions,
        quiet,
        schedules,
        simulation.handlerRuns(),
        longest,
        Duration.ofNanos(System.nanoTime() - started),
        Duration.ofNanos(cpuNanos() - cpuStarted),
        counterexample);
  }

  /**
   * Counts the paths from a state to the states with no step left, memoised: the graph is acyclic.
   */
  private static BigInteger schedules(Map<Key, Node> nodes, Key key, Map<Key, BigInteger> memo) {
    BigInteger known = memo.get(key);
    if (known != null) {
      return known;
    }
    Node node = nodes.get(key);
    BigInteger count = BigInteger.ZERO;
    if (node.successors().isEmpty()) {
      count = BigInteger.ONE;
    }
    for (Key successor : node.successors()) {
      count = count.add(schedules(nodes, successor, memo));
    }
    memo.put(key, count);
    return count;
  }

  private static long cpuNanos() {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    return threads.isCurrentThreadCpuTimeSupported() ? threads.getCurrentThreadCpuTime() : 0;
  }

  private static List<String> path(Map<Key, Node> nodes, Key key) {
    List<String> steps = new ArrayList<>();
    Node node = nodes.get(key);
    while (node.parent() != null) {
      steps.add(node.step());
      node = nodes.get(node.parent());
    }
    Collections.reverse(steps);
    return steps;
  }

  private static Key key(World world) {
    return new Key(Digests.of(world.canonical()));
  }
}
