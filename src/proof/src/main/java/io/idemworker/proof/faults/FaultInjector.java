package io.idemworker.proof.faults;

import io.idemworker.emulator.cosmos.CosmosEmulator;
import io.idemworker.emulator.cosmos.Fault;
import io.idemworker.emulator.payments.PaymentFaults;
import io.idemworker.emulator.payments.PaymentProviderEmulator;
import io.idemworker.emulator.servicebus.ServiceBusEmulator;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Carries out a {@link FaultPlan}'s events on the in-process emulators and, where there is one, on
 * a fleet of worker processes: the one place the harnesses ({@code chaos}, {@code demo}, {@code
 * bench}) inject a fault.
 *
 * <p>Thread-safe: each event is applied on the given executor, after its delay.
 *
 * @param fleet the worker processes kills hit; empty where the workers run in this process (a kill
 *     event is then refused)
 * @param serviceBus the broker's emulator; empty where the run is given a namespace (a broker event
 *     is then refused)
 * @param cosmos the database's emulator; empty where the run is given an account (a database event
 *     is then refused)
 * @param provider the payment provider double; empty where there is none (a payment event is then
 *     refused)
 * @param entities the entities lock loss may hit, by {@link FaultPlan.Event#target}
 * @param executor runs the events
 */
public record FaultInjector(
    Optional<RestartableProcesses> fleet,
    Optional<ServiceBusEmulator> serviceBus,
    Optional<CosmosEmulator> cosmos,
    Optional<PaymentProviderEmulator> provider,
    List<String> entities,
    ScheduledExecutorService executor) {

  /** How long dispositions are answered late by {@link FaultPlan.Kind#DELAY_DISPOSITIONS}. */
  static final Duration DISPOSITION_DELAY = Duration.ofMillis(300);

  /** Copies {@code entities}. */
  public FaultInjector {
    entities = List.copyOf(entities);
  }

  /**
   * Schedules one event after its delay.
   *
   * @return completes when the fault is in place (a kill: once the process is restarted); fails
   *     with {@link IllegalStateException} when the event needs a fleet, a provider or an emulator
   *     there is not
   */
  public Future<?> fire(FaultPlan.Event e) {
    return executor.schedule(
        () -> {
          apply(e);
          return null;
        },
        e.delayMillis(),
        TimeUnit.MILLISECONDS);
  }

  /**
   * Fires events and waits until each is in place: for a plan whose points the caller reaches one
   * by one (the demo's phases), so that the traffic it sends next meets the fault.
   *
   * @throws IllegalStateException when an event could not be applied
   */
  public void fireAndWait(List<FaultPlan.Event> events) throws InterruptedException {
    List<Future<?>> fired = new ArrayList<>();
    events.forEach(e -> fired.add(fire(e)));
    for (Future<?> f : fired) {
      try {
        f.get();
      } catch (ExecutionException ex) {
        throw new IllegalStateException("a fault could not be injected: " + ex.getCause(), ex);
      }
    }
  }

  /** Lifts every emulator fault still armed (counted faults not yet used up, delays). */
  public void clear() {
    serviceBus.ifPresent(s -> s.faults().clear());
    cosmos.ifPresent(c -> c.faults().clear());
    provider.ifPresent(p -> p.faults().clear());
  }

  private void apply(FaultPlan.Event e) throws InterruptedException {
    switch (e.kind()) {
      case SIGKILL -> processes().kill(e.target(), false);
      case SIGTERM -> processes().kill(e.target(), true);
      case DROP_CONNECTIONS -> broker(e).faults().dropConnections();
      case LOSE_LOCKS -> broker(e).faults().loseLocks(entities.get(e.target()));
      case DELAY_DISPOSITIONS -> {
        ServiceBusEmulator broker = broker(e);
        broker.faults().delayDispositions(DISPOSITION_DELAY);
        executor.schedule(
            () -> broker.faults().delayDispositions(Duration.ZERO), 2, TimeUnit.SECONDS);
      }
      case COSMOS_THROTTLE -> cosmos(e, Fault.status(429));
      case COSMOS_UNAVAILABLE -> cosmos(e, Fault.status(503));
      case COSMOS_TIMEOUT -> cosmos(e, Fault.status(408));
      case COSMOS_LATENCY -> cosmos(e, Fault.latency(Duration.ofMillis(250)));
      case PAYMENT_AMBIGUOUS ->
          provider
              .orElseThrow(() -> new IllegalStateException("no payment provider for " + e))
              .faults()
              .applyThenDropConnection(PaymentFaults.Trigger.next(e.count()));
    }
  }

  private void cosmos(FaultPlan.Event e, Fault fault) {
    cosmos
        .orElseThrow(() -> new IllegalStateException("no Cosmos DB emulator for " + e))
        .faults()
        .inject(FaultPlan.OPERATIONS.get(e.target()), fault.times(e.count()));
  }

  private ServiceBusEmulator broker(FaultPlan.Event e) {
    return serviceBus.orElseThrow(
        () -> new IllegalStateException("no Service Bus emulator for " + e));
  }

  private RestartableProcesses processes() {
    return fleet.orElseThrow(() -> new IllegalStateException("no worker processes to kill"));
  }
}
