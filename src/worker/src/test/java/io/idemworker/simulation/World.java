package io.idemworker.simulation;

import io.idemworker.core.Outcome;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One global state of the simulation: the database, the virtual clock, the broker's view of every
 * message, the handlers still running, and the faults left. Immutable; a step makes a new one.
 *
 * @param store the simulated database
 * @param now virtual seconds since the start
 * @param copies the broker messages, in the model's order
 * @param deliveries the handlers still running (or crashed-free zombies whose lock was lost),
 *     ordered by message and delivery count
 * @param crashesLeft crashes a schedule may still contain
 * @param expiriesLeft lock expiries a schedule may still contain
 */
record World(
    SimulatedStore store,
    long now,
    List<Copy> copies,
    List<Delivery> deliveries,
    int crashesLeft,
    int expiriesLeft) {

  /** Where a broker message is. */
  enum Status {
    /** Not sent yet (the producer may still send it, or never). */
    UNSENT,
    /** In the queue, waiting for a receiver. */
    AVAILABLE,
    /** Locked by a delivery. */
    LOCKED,
    /** Completed: gone from the queue. */
    COMPLETED,
    /** Moved to the dead-letter queue. */
    DEAD_LETTERED
  }

  /**
   * A broker message.
   *
   * @param label how counterexamples name it
   * @param kind equal for copies of one logical message (interchangeable in every state)
   * @param status where it is
   * @param deliveries how often the broker delivered it
   * @param deadLetterReason the reason, once dead-lettered
   */
  record Copy(
      String label, int kind, Status status, int deliveries, Optional<String> deadLetterReason) {
    Copy {
      Objects.requireNonNull(label, "label");
      Objects.requireNonNull(status, "status");
      Objects.requireNonNull(deadLetterReason, "deadLetterReason");
    }

    boolean settled() {
      return status == Status.COMPLETED || status == Status.DEAD_LETTERED;
    }

    Copy with(Status next) {
      return new Copy(label, kind, next, deliveries, deadLetterReason);
    }
  }

  /** What a running handler does next. */
  sealed interface Pending {}

  /**
   * Its next store call.
   *
   * @param call the call
   * @param description the call in words, computed once
   */
  record NextCall(StoreCall call, String description) implements Pending {
    NextCall(StoreCall call) {
      this(call, call.describe());
    }
  }

  /**
   * The flow returned; the settlement is next.
   *
   * @param outcome the outcome
   * @param text the outcome in full, computed once
   */
  record Finished(Outcome outcome, String text) implements Pending {
    Finished(Outcome outcome) {
      this(outcome, outcome.toString());
    }
  }

  /** It settles before running the flow (the complete-before-commit mutant). */
  record SettleFirst() implements Pending {}

  /**
   * One delivery of one message to a handler.
   *
   * @param copy the message's index
   * @param deliveryCount the delivery count the handler saw (0 on the first)
   * @param startedAt virtual seconds when it was received (the handler's clock)
   * @param calls its store calls so far, with the answers
   * @param pending what it does next
   * @param lockLost its lock expired: the message may be redelivered, its settlement will fail
   * @param settledEarly it completed the message before running the flow (mutant)
   * @param rehandles how many times the handler ran the flow again within this delivery, after
   *     waiting out a lease another attempt held
   */
  record Delivery(
      int copy,
      long deliveryCount,
      long startedAt,
      List<ScheduledStore.Recorded> calls,
      Pending pending,
      boolean lockLost,
      boolean settledEarly,
      int rehandles) {
    Delivery {
      calls = List.copyOf(calls);
      Objects.requireNonNull(pending, "pending");
    }

    Delivery(
        int copy,
        long deliveryCount,
        long startedAt,
        List<ScheduledStore.Recorded> calls,
        Pending pending,
        boolean lockLost,
        boolean settledEarly) {
      this(copy, deliveryCount, startedAt, calls, pending, lockLost, settledEarly, 0);
    }

    Delivery next(List<ScheduledStore.Recorded> newCalls, Pending next) {
      return new Delivery(
          copy, deliveryCount, startedAt, newCalls, next, lockLost, settledEarly, rehandles);
    }
  }

  /** Copies the lists. */
  World {
    copies = List.copyOf(copies);
    deliveries =
        deliveries.stream()
            .sorted(
                Comparator.comparingInt(Delivery::copy).thenComparingLong(Delivery::deliveryCount))
            .toList();
  }

  /**
   * Whether every sent message is settled and no handler runs: where the end invariants apply.
   *
   * @return true when quiet
   */
  boolean quiet() {
    return deliveries.isEmpty()
        && copies.stream().allMatch(copy -> copy.settled() || copy.status() == Status.UNSENT);
  }

  /**
   * The name of a delivery in counterexamples: message label and delivery number ("A1", "B2").
   *
   * @param delivery the delivery
   * @return the name
   */
  String nameOf(Delivery delivery) {
    String label = copies.get(delivery.copy()).label();
    int space = label.indexOf(' ');
    return (space < 0 ? label : label.substring(0, space)) + (delivery.deliveryCount() + 1);
  }

  /**
   * Whether the delivery holds its message's lock (it may settle it).
   *
   * @param delivery the delivery
   * @return true for the current lock holder
   */
  boolean holdsLock(Delivery delivery) {
    return !delivery.lockLost()
        && !delivery.settledEarly()
        && copies.get(delivery.copy()).status() == Status.LOCKED;
  }

  World withStore(SimulatedStore next) {
    return new World(next, now, copies, deliveries, crashesLeft, expiriesLeft);
  }

  World withCopy(int index, Copy copy) {
    List<Copy> next = new ArrayList<>(copies);
    next.set(index, copy);
    return new World(store, now, next, deliveries, crashesLeft, expiriesLeft);
  }

  World without(Delivery delivery) {
    List<Delivery> next = new ArrayList<>(deliveries);
    next.remove(delivery);
    return new World(store, now, copies, next, crashesLeft, expiriesLeft);
  }

  World replacing(Delivery old, Delivery replacement) {
    List<Delivery> next = new ArrayList<>(deliveries);
    next.set(next.indexOf(old), replacement);
    return new World(store, now, copies, next, crashesLeft, expiriesLeft);
  }

  World adding(Delivery delivery) {
    List<Delivery> next = new ArrayList<>(deliveries);
    next.add(delivery);
    return new World(store, now, copies, next, crashesLeft, expiriesLeft);
  }

  World later(long seconds) {
    return new World(store, now + seconds, copies, deliveries, crashesLeft, expiriesLeft);
  }

  World withFaults(int crashes, int expiries) {
    return new World(store, now, copies, deliveries, crashes, expiries);
  }

  /**
   * The state in canonical text: two schedules that reach the same text have the same futures.
   * Copies of one logical message are interchangeable, so their parts are sorted (symmetry
   * reduction): a state and its mirror image with A and B swapped have one text.
   *
   * @return the text
   */
  String canonical() {
    StringBuilder text = new StringBuilder(store.canonical(now));
    text.append("now=").append(now).append(" faults=").append(crashesLeft).append('/');
    text.append(expiriesLeft).append('\n');
    List<String> parts = new ArrayList<>();
    for (int i = 0; i < copies.size(); i++) {
      Copy copy = copies.get(i);
      StringBuilder part = new StringBuilder();
      part.append(copy.kind()).append(' ').append(copy.status()).append(' ');
      part.append(copy.deliveries()).append(' ').append(copy.deadLetterReason().orElse("-"));
      for (Delivery delivery : deliveries) {
        if (delivery.copy() != i) {
          continue;
        }
        part.append("\n  ").append(delivery.deliveryCount()).append('@');
        part.append(delivery.startedAt()).append(delivery.lockLost() ? " lost" : "");
        part.append(delivery.settledEarly() ? " early" : "");
        part.append(delivery.rehandles() > 0 ? " again" + delivery.rehandles() : "").append(" [");
        for (ScheduledStore.Recorded call : delivery.calls()) {
          part.append(call.request()).append(" -> ").append(call.resultText()).append("; ");
        }
        part.append("] ").append(pending(delivery.pending()));
      }
      parts.add(part.toString());
    }
    parts.sort(null);
    parts.forEach(part -> text.append(part).append('\n'));
    return text.toString();
  }

  private static String pending(Pending pending) {
    if (pending instanceof NextCall next) {
      return next.description();
    }
    if (pending instanceof Finished finished) {
      return finished.text();
    }
    return "settle first";
  }
}
