package io.idemworker.telemetry;

import io.idemworker.servicebus.SessionListener;
import io.opentelemetry.api.metrics.LongCounter;
import io.opentelemetry.api.metrics.Meter;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;

/**
 * Session mode's instruments (scope {@value Telemetry#SCOPE}), all counters without attributes (one
 * order per session: an order id would be an unbounded dimension; the logs carry it):
 *
 * <ul>
 *   <li>{@code idemworker.sessions.messages.deferred} — messages deferred because their predecessor
 *       version had not applied;
 *   <li>{@code idemworker.sessions.messages.applied_after_waiting} — deferred messages received
 *       again and settled after the flow ran them;
 *   <li>{@code idemworker.sessions.gaps.given_up} — gaps given up ({@code WORKER_GAP_TIMEOUT}, or
 *       more than {@code WORKER_PARK_MAX_MESSAGES} waiting); their waiting messages apply as
 *       outside session mode;
 *   <li>{@code idemworker.sessions.orders.parked} — orders parked behind a dead-lettered message;
 *   <li>{@code idemworker.sessions.messages.parked} — messages deferred behind a parked order;
 *   <li>{@code idemworker.sessions.orders.released} — parked orders whose dead-lettered message
 *       came back and went through;
 *   <li>{@code idemworker.sessions.orders.parking_expired} — parked orders whose waiting messages
 *       were dead-lettered past {@code WORKER_PARK_MAX_AGE};
 *   <li>{@code idemworker.sessions.locks.lost} — messages stopped by a lost session lock (outcome
 *       {@code retried} with reason {@code lock_lost} in {@code idemworker.messages.outcomes});
 *       each releases its session.
 * </ul>
 *
 * <p>Thread-safe; never throws.
 */
public final class SessionMetrics implements SessionListener {
  private final Map<Event, LongCounter> counters = new EnumMap<>(Event.class);

  SessionMetrics(Meter meter) {
    Objects.requireNonNull(meter, "meter");
    counter(
        meter,
        Event.DEFERRED,
        "idemworker.sessions.messages.deferred",
        "Session messages deferred until their predecessor version applies",
        "{message}");
    counter(
        meter,
        Event.APPLIED_AFTER_WAITING,
        "idemworker.sessions.messages.applied_after_waiting",
        "Deferred session messages applied and settled after waiting",
        "{message}");
    counter(
        meter,
        Event.GAP_GIVEN_UP,
        "idemworker.sessions.gaps.given_up",
        "Missing versions no longer waited for",
        "{gap}");
    counter(
        meter,
        Event.PARKED,
        "idemworker.sessions.orders.parked",
        "Orders parked behind a dead-lettered message",
        "{order}");
    counter(
        meter,
        Event.PARKED_BEHIND,
        "idemworker.sessions.messages.parked",
        "Messages deferred behind a parked order",
        "{message}");
    counter(
        meter,
        Event.RELEASED,
        "idemworker.sessions.orders.released",
        "Parked orders whose dead-lettered message went through",
        "{order}");
    counter(
        meter,
        Event.PARKING_EXPIRED,
        "idemworker.sessions.orders.parking_expired",
        "Parked orders whose waiting messages were dead-lettered past the parking age",
        "{order}");
    counter(
        meter,
        Event.LOCK_LOST,
        "idemworker.sessions.locks.lost",
        "Session messages stopped by a lost session lock",
        "{message}");
  }

  private void counter(Meter meter, Event event, String name, String description, String unit) {
    counters.put(
        event, meter.counterBuilder(name).setDescription(description).setUnit(unit).build());
  }

  @Override
  public void happened(Event event) {
    LongCounter counter = counters.get(event);
    if (counter != null) {
      counter.add(1);
    }
  }
}
