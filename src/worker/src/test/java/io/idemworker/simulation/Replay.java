package io.idemworker.simulation;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One schedule, followed step by step through the same {@link Simulation} and invariants the
 * exhaustive search uses: each pick names the one step to take among those the state allows (a
 * fragment of its description that only that step contains). Fast enough for the default build, so
 * a schedule the deep search once found can be held there.
 *
 * <p>Not thread-safe.
 */
final class Replay {
  /** A bound on the steps taken after the picks. */
  private static final int MAX_STEPS = 200;

  private Replay() {}

  /**
   * What the schedule did.
   *
   * @param steps the steps taken, in words
   * @param end the last state
   * @param violation the first invariant broken, if any (after a step, or at the end when quiet)
   */
  record Result(List<String> steps, World end, Optional<String> violation) {
    String render() {
      StringBuilder text = new StringBuilder();
      for (int i = 0; i < steps.size(); i++) {
        text.append(i + 1).append(". ").append(steps.get(i)).append('\n');
      }
      violation.ifPresent(v -> text.append("→ violated: ").append(v).append('\n'));
      return text.toString();
    }
  }

  /**
   * Follows the picks, then takes the first step the state allows (the simulation lists a
   * delivery's own progress before faults and new deliveries) until the state is quiet, checking
   * the model's invariants after every step and at the end.
   *
   * @param model the model
   * @param setup the setup
   * @param picks one description fragment per chosen step
   * @return the result
   * @throws IllegalArgumentException when a pick matches no step, or more than one
   */
  static Result follow(Model model, Setup setup, List<String> picks) {
    Simulation simulation = new Simulation(model, setup);
    World world = simulation.initial();
    List<String> taken = new ArrayList<>();
    for (String pick : picks) {
      List<Simulation.Step> matching =
          simulation.steps(world).stream().filter(s -> s.description().contains(pick)).toList();
      if (matching.size() != 1) {
        throw new IllegalArgumentException(
            "pick '"
                + pick
                + "' after "
                + taken.size()
                + " steps matches "
                + matching.size()
                + " of: "
                + simulation.steps(world).stream().map(Simulation.Step::description).toList());
      }
      Simulation.Step step = matching.get(0);
      taken.add(step.description());
      Optional<String> broken = model.afterStep(world, step.next());
      world = step.next();
      if (broken.isPresent()) {
        return new Result(taken, world, broken);
      }
    }
    for (int more = 0; !world.quiet() && more < MAX_STEPS; more++) {
      Simulation.Step step = simulation.steps(world).get(0);
      taken.add(step.description());
      Optional<String> broken = model.afterStep(world, step.next());
      world = step.next();
      if (broken.isPresent()) {
        return new Result(taken, world, broken);
      }
    }
    return new Result(taken, world, world.quiet() ? model.whenQuiet(world) : Optional.empty());
  }
}
