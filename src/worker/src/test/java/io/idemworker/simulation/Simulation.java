package io.idemworker.simulation;

import io.idemworker.core.IdempotentConsumer;
import io.idemworker.core.IncomingMessage;
import io.idemworker.core.KeyStrategies;
import io.idemworker.core.MessageDecoder;
import io.idemworker.core.Outcome;
import io.idemworker.simulation.World.Copy;
import io.idemworker.simulation.World.Delivery;
import io.idemworker.simulation.World.Status;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The steps of the simulation: the broker (send, deliver, lock expiry, settlement, delivery limit),
 * the handlers (one store call per step, through the real {@link IdempotentConsumer}), and crashes.
 * Every step is a pure function from one {@link World} to the next.
 *
 * <p>Not thread-safe (it counts handler runs).
 */
final class Simulation {
  /** Virtual second 0. */
  static final Instant START = Instant.parse("2026-11-30T12:00:00Z");

  private static final int MAX_BODY_BYTES = 262_144;
  private static final String MAX_DELIVERY_EXCEEDED = "MaxDeliveryCountExceeded";

  /**
   * A step: what happened in words, and the state after it.
   *
   * @param description numbered in counterexamples
   * @param next the state after it
   */
  record Step(String description, World next) {}

  private final Model model;
  private final Setup setup;
  private final MessageDecoder decoder;
  private final List<Model.Message> messages;
  private final Map<String, Run> runs = new HashMap<>();
  // The run in progress: the provider double routes captures into its scheduled store.
  private ScheduledStore running;
  private long handlerRuns;

  private final CallFaults faults;

  Simulation(Model model, Setup setup) {
    this(model, setup, CallFaults.NONE);
  }

  Simulation(Model model, Setup setup, CallFaults faults) {
    this.model = model;
    this.setup = setup;
    this.faults = faults;
    this.decoder =
        model.decoder(
            (key, orderId, amount, currency) ->
                running.capture(new StoreCall.Capture(key, orderId, amount, currency)));
    this.messages = model.messages(setup.copies());
  }

  /**
   * The first state: the seed messages handled, the first message in the queue.
   *
   * @return the state
   */
  World initial() {
    SimulatedStore store = SimulatedStore.empty();
    for (IncomingMessage seed : model.seed()) {
      Delivery delivery = new Delivery(-1, 0, 0, List.of(), new World.SettleFirst(), false, false);
      World.Pending pending;
      do {
        Run run = run(seed, delivery, store, 0, true);
        store = run.store();
        pending = run.pending();
        delivery = delivery.next(run.calls(), pending);
      } while (pending instanceof World.NextCall);
      Outcome outcome = ((World.Finished) pending).outcome();
      if (!(outcome instanceof Outcome.Processed)) {
        throw new IllegalStateException("seed message was not processed: " + outcome);
      }
    }
    List<Copy> copies = new ArrayList<>();
    for (int i = 0; i < messages.size(); i++) {
      copies.add(
          new Copy(
              messages.get(i).label(),
              kindOf(i),
              i == 0 ? Status.AVAILABLE : Status.UNSENT,
              0,
              Optional.empty()));
    }
    return new World(store, 0, copies, List.of(), setup.crashes(), setup.lockExpiries());
  }

  /** Copies with the same id, subject and body are one logical message: the first one's index. */
  private int kindOf(int index) {
    IncomingMessage message = messages.get(index).message();
    for (int i = 0; i < index; i++) {
      IncomingMessage other = messages.get(i).message();
      if (other.messageId().equals(message.messageId())
          && other.subject().equals(message.subject())
          && java.util.Arrays.equals(other.body(), message.body())) {
        return i;
      }
    }
    return index;
  }

  /**
   * Every step the state allows, in a fixed order.
   *
   * @param world the state
   * @return the steps; empty when every message is settled
   */
  List<Step> steps(World world) {
    List<Step> steps = new ArrayList<>();
    for (Delivery delivery : world.deliveries()) {
      steps.add(advance(world, delivery));
      steps.addAll(faulted(world, delivery));
      if (world.crashesLeft() > 0) {
        steps.add(crash(world, delivery));
      }
      if (world.expiriesLeft() > 0 && world.holdsLock(delivery)) {
        steps.add(expire(world, delivery));
      }
    }
    for (int i = 0; i < world.copies().size(); i++) {
      Copy copy = world.copies().get(i);
      if (copy.status() == Status.AVAILABLE) {
        steps.add(deliver(world, i, ""));
      } else if (copy.status() == Status.UNSENT) {
        // Sending is fused with the first delivery: a message that waits in the queue changes
        // nothing any other step reads, so sending it earlier only adds equivalent states.
        steps.add(deliver(world, i, "the producer sends " + copy.label() + "; "));
      }
    }
    return steps;
  }

  long handlerRuns() {
    return handlerRuns;
  }

  private Step deliver(World world, int index, String sent) {
    Copy copy = world.copies().get(index);
    Copy locked =
        new Copy(
            copy.label(),
            copy.kind(),
            Status.LOCKED,
            copy.deliveries() + 1,
            copy.deadLetterReason());
    Delivery delivery =
        new Delivery(
            index,
            copy.deliveries(),
            world.now(),
            List.of(),
            new World.SettleFirst(),
            false,
            false);
    if (setup.settlement() == Setup.Settlement.AFTER_HANDLING) {
      Run run = run(messages.get(index).message(), delivery, world.store(), world.now(), false);
      delivery = delivery.next(run.calls(), run.pending());
    }
    World next = world.withCopy(index, locked).adding(delivery);
    return new Step(
        sent
            + "broker delivers "
            + copy.label()
            + " as "
            + next.nameOf(delivery)
            + " (deliveryCount "
            + delivery.deliveryCount()
            + ")",
        next);
  }

  private Step advance(World world, Delivery delivery) {
    String name = world.nameOf(delivery);
    if (delivery.pending() instanceof World.SettleFirst) {
      World next = world;
      String what = name + " completes " + label(world, delivery) + " before running the flow";
      if (world.holdsLock(delivery)) {
        next = next.withCopy(delivery.copy(), copyOf(world, delivery).with(Status.COMPLETED));
      } else {
        what += " (refused, lock lost)";
      }
      Run run =
          run(messages.get(delivery.copy()).message(), delivery, world.store(), world.now(), false);
      Delivery started =
          new Delivery(
              delivery.copy(),
              delivery.deliveryCount(),
              delivery.startedAt(),
              run.calls(),
              run.pending(),
              delivery.lockLost(),
              true);
      return new Step(what, next.replacing(delivery, started));
    }
    if (delivery.pending() instanceof World.NextCall call) {
      Run run =
          run(messages.get(delivery.copy()).message(), delivery, world.store(), world.now(), true);
      ScheduledStore.Recorded made = run.calls().get(run.calls().size() - 1);
      return new Step(
          name + ": " + call.description() + " → " + StoreCall.describeResult(made.result()),
          world
              .withStore(run.store())
              .replacing(delivery, delivery.next(run.calls(), run.pending())));
    }
    return settle(world, delivery, ((World.Finished) delivery.pending()).outcome());
  }

  /** The pending call answered by each fault that may strike it instead ({@link CallFaults}). */
  private List<Step> faulted(World world, Delivery delivery) {
    if (!(delivery.pending() instanceof World.NextCall call)) {
      return List.of();
    }
    List<Step> steps = new ArrayList<>();
    for (CallFaults.Struck struck : faults.strike(call.call(), world.store(), world.now())) {
      List<ScheduledStore.Recorded> calls = new ArrayList<>(delivery.calls());
      calls.add(new ScheduledStore.Recorded(call.description(), struck.answer()));
      Delivery answered = delivery.next(calls, call);
      Run run =
          run(
              messages.get(delivery.copy()).message(),
              answered,
              struck.store(),
              world.now(),
              false);
      steps.add(
          new Step(
              world.nameOf(delivery) + ": " + call.description() + " → " + struck.description(),
              world
                  .withStore(struck.store())
                  .replacing(delivery, answered.next(run.calls(), run.pending()))));
    }
    return steps;
  }

  private Step settle(World world, Delivery delivery, Outcome outcome) {
    String name = world.nameOf(delivery) + " returns " + describe(outcome);
    World next = world.without(delivery);
    if (delivery.settledEarly()) {
      return new Step(name + "; nothing left to settle", next);
    }
    if (!world.holdsLock(delivery)) {
      return new Step(name + " and tries to settle: refused, its lock was lost", next);
    }
    Copy copy = copyOf(world, delivery);
    String label = copy.label();
    return outcome.fold(
        processed -> completed(next, delivery, copy, name),
        duplicate -> completed(next, delivery, copy, name),
        stale -> completed(next, delivery, copy, name),
        deadLettered ->
            new Step(
                name + " → dead-letter " + label + " (" + deadLettered.reason().code() + ")",
                next.withCopy(
                    delivery.copy(),
                    new Copy(
                        label,
                        copy.kind(),
                        Status.DEAD_LETTERED,
                        copy.deliveries(),
                        Optional.of(deadLettered.reason().code())))),
        retry -> {
          // The adapter waits the flow's retryAfter (a lease another attempt holds), within
          // the lock, before it abandons: model that wait as time passing.
          long lockLeft = delivery.startedAt() + setup.lockDuration().getSeconds() - world.now();
          long wait =
              retry
                  .retryAfter()
                  .map(java.time.Duration::getSeconds)
                  .map(w -> Math.min(w, lockLeft - 1))
                  .filter(w -> w > 0)
                  .orElse(0L);
          Copy released = released(copy);
          return new Step(
              name
                  + (wait > 0 ? ", waits " + wait + " s (until the lease ends)" : "")
                  + " → abandon "
                  + label
                  + afterRelease(released),
              next.later(wait).withCopy(delivery.copy(), released));
        });
  }

  private static Step completed(World next, Delivery delivery, Copy copy, String name) {
    return new Step(
        name + " → complete " + copy.label(),
        next.withCopy(delivery.copy(), copy.with(Status.COMPLETED)));
  }

  private Step crash(World world, Delivery delivery) {
    String name = world.nameOf(delivery);
    String where;
    if (delivery.pending() instanceof World.NextCall call) {
      where =
          delivery.calls().isEmpty()
              ? "before its first store call"
              : "after store call "
                  + delivery.calls().size()
                  + ", before "
                  + call.call().describe();
    } else if (delivery.pending() instanceof World.Finished finished) {
      where = "before settling (" + describe(finished.outcome()) + ")";
    } else {
      where = "before settling first";
    }
    World next = world.without(delivery).withFaults(world.crashesLeft() - 1, world.expiriesLeft());
    if (!world.holdsLock(delivery)) {
      return new Step("crash " + name + " " + where, next);
    }
    Copy released = released(copyOf(world, delivery));
    return new Step(
        "crash "
            + name
            + " "
            + where
            + "; its lock expires after "
            + setup.lockDuration().getSeconds()
            + " s"
            + afterRelease(released),
        next.withCopy(delivery.copy(), released).later(setup.lockDuration().getSeconds()));
  }

  private Step expire(World world, Delivery delivery) {
    Copy released = released(copyOf(world, delivery));
    Delivery zombie =
        new Delivery(
            delivery.copy(),
            delivery.deliveryCount(),
            delivery.startedAt(),
            delivery.calls(),
            delivery.pending(),
            true,
            delivery.settledEarly());
    World next =
        world
            .replacing(delivery, zombie)
            .withCopy(delivery.copy(), released)
            .withFaults(world.crashesLeft(), world.expiriesLeft() - 1)
            .later(setup.lockDuration().getSeconds());
    return new Step(
        "the lock of "
            + world.nameOf(delivery)
            + " expires while it still works ("
            + setup.lockDuration().getSeconds()
            + " s later)"
            + afterRelease(released),
        next);
  }

  /** The broker's answer to a lost lock or an abandon: redeliver, or dead-letter at the limit. */
  private Copy released(Copy copy) {
    if (copy.deliveries() >= setup.maxDeliveryCount()) {
      return new Copy(
          copy.label(),
          copy.kind(),
          Status.DEAD_LETTERED,
          copy.deliveries(),
          Optional.of(MAX_DELIVERY_EXCEEDED));
    }
    return copy.with(Status.AVAILABLE);
  }

  private static String afterRelease(Copy copy) {
    return copy.status() == Status.AVAILABLE
        ? "; " + copy.label() + " is available again"
        : "; the broker dead-letters " + copy.label() + " (" + MAX_DELIVERY_EXCEEDED + ")";
  }

  private static Copy copyOf(World world, Delivery delivery) {
    return world.copies().get(delivery.copy());
  }

  private static String label(World world, Delivery delivery) {
    return copyOf(world, delivery).label();
  }

  static String describe(Outcome outcome) {
    return outcome.fold(
        processed -> "Processed",
        duplicate -> "Duplicate",
        stale -> "Stale",
        deadLettered -> "DeadLettered(" + deadLettered.reason().code() + ")",
        retry -> "Retry(" + retry.cause() + ")");
  }

  private record Run(
      List<ScheduledStore.Recorded> calls, World.Pending pending, SimulatedStore store) {}

  private Run run(
      IncomingMessage sent, Delivery delivery, SimulatedStore store, long now, boolean execute) {
    // A run is a function of the message, the delivery's record and (when it executes a call)
    // the snapshot and the time; many states share all of them, so runs are memoised.
    StringBuilder key = new StringBuilder();
    key.append(kindOf(sent)).append('/').append(delivery.deliveryCount()).append('@');
    key.append(delivery.startedAt()).append(execute ? " x" + now + " " : " ");
    delivery.calls().forEach(call -> key.append(call.request()).append(call.resultText()));
    if (execute) {
      key.append('\n').append(store.canonical(now));
    }
    String digest = Digests.of(key);
    Run known = runs.get(digest);
    if (known == null) {
      known = runUnmemoised(sent, delivery, store, now, execute);
      runs.put(digest, known);
    }
    return known;
  }

  private int kindOf(IncomingMessage sent) {
    for (int i = 0; i < messages.size(); i++) {
      if (messages.get(i).message() == sent) {
        return kindOf(i);
      }
    }
    return -1;
  }

  private Run runUnmemoised(
      IncomingMessage sent, Delivery delivery, SimulatedStore store, long now, boolean execute) {
    handlerRuns++;
    ScheduledStore scheduled = new ScheduledStore(delivery.calls(), store, now, execute);
    running = scheduled;
    IdempotentConsumer consumer =
        new IdempotentConsumer(
            KeyStrategies.messageId(),
            decoder,
            setup.store().apply(scheduled),
            Clock.fixed(START.plusSeconds(delivery.startedAt()), ZoneOffset.UTC),
            MAX_BODY_BYTES,
            setup.maxDeliveryCount());
    World.Pending pending;
    try {
      pending = new World.Finished(consumer.handle(redelivered(sent, delivery.deliveryCount())));
    } catch (ScheduledStore.Park park) {
      pending = new World.NextCall(park.call());
    }
    if (execute && !scheduled.executed()) {
      throw new AssertionError("the handler no longer makes the call it was parked at");
    }
    return new Run(scheduled.calls(), pending, scheduled.store());
  }

  private static IncomingMessage redelivered(IncomingMessage sent, long deliveryCount) {
    return new IncomingMessage(
        sent.messageId(),
        sent.correlationId(),
        sent.subject(),
        sent.contentType(),
        sent.applicationProperties(),
        sent.body(),
        deliveryCount);
  }
}
