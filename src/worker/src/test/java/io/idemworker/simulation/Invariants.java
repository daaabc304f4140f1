package io.idemworker.simulation;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.simulation.World.Copy;
import io.idemworker.simulation.World.Status;
import java.util.Optional;

/** Invariants the order models share. */
final class Invariants {
  /** The order every model works on; also its partition. */
  static final String ORDER = "ord-1";

  private Invariants() {}

  /**
   * The order as a reader sees it now.
   *
   * @param world the state
   * @return the order document
   */
  static Optional<ObjectNode> order(World world) {
    return world.store().visible(ORDER, ORDER, world.now());
  }

  /**
   * A numeric field of the order, 0 when absent.
   *
   * @param world the state
   * @param field the field
   * @return the value
   */
  static long orderField(World world, String field) {
    return world.store().number(ORDER, ORDER, field, world.now());
  }

  /**
   * Nothing lost: in these models every message is valid and its order exists, so a message that is
   * dead-lettered at all was dead-lettered for the wrong reason.
   *
   * @param before the state before the step
   * @param after the state after it
   * @return the violation, if any
   */
  static Optional<String> noDeadLetter(World before, World after) {
    for (int i = 0; i < after.copies().size(); i++) {
      Copy copy = after.copies().get(i);
      if (copy.status() == Status.DEAD_LETTERED
          && before.copies().get(i).status() != Status.DEAD_LETTERED) {
        return Optional.of(
            "nothing lost: "
                + copy.label()
                + " is valid but was dead-lettered ("
                + copy.deadLetterReason().orElse("?")
                + ")");
      }
    }
    return Optional.empty();
  }

  /**
   * Nothing lost: every message that was sent ended completed.
   *
   * @param world a quiet state
   * @return the violation, if any
   */
  static Optional<String> everySentCompleted(World world) {
    for (Copy copy : world.copies()) {
      if (copy.status() != Status.UNSENT && copy.status() != Status.COMPLETED) {
        return Optional.of(
            "nothing lost: " + copy.label() + " ended " + copy.status() + " instead of completed");
      }
    }
    return Optional.empty();
  }

  /**
   * Whether some message can still be delivered (sent later, waiting, or locked).
   *
   * @param world the state
   * @return true while a copy may still arrive
   */
  static boolean copyMayArrive(World world) {
    return world.copies().stream().anyMatch(copy -> !copy.settled());
  }

  static Optional<String> first(Optional<String> a, Optional<String> b) {
    return a.isPresent() ? a : b;
  }
}
