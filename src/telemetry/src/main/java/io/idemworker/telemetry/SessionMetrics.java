package io.idemworker.telemetry;

import io.idemworker.servicebus.sessions.SessionListener;
import io.opentelemetry.api.metrics.LongCounter;
import io.opentelemetry.api.metrics.Meter;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;

/**
 * Session mode's instruments (scope {@value Telemetry#SCOPE}), all counters without attributes (one
 * entity per session: an entity id would be an unbounded dimension; the logs carry it). {@code
 * <entities>} is {@link TelemetryNames#sessionEntities()}:
 *
 * <ul>
 *   <li>{@code idemworker.sessions.messages.deferred} — messages deferred because their predecessor
 *       version had not applied;
 *   <li>{@code idemworker.sessions.messages.applied_after_waiting} — deferred messages received
 *       again and settled after the flow ran them;
 *   <li>{@code idemworker.sessions.gaps.given_up} — gaps given up (the gap timeout passed, or more
 *       than the most waiting messages); their waiting messages apply as outside session mode;
 *   <li>{@code idemworker.sessions.<entities>.parked} — sessions parked behind a dead-lettered
 *       message;
 *   <li>{@code idemworker.sessions.messages.parked} — messages deferred behind a parked session;
 *   <li>{@code idemworker.sessions.<entities>.released} — parked sessions whose dead-lettered
 *       message came back and went through;
 *   <li>{@code idemworker.sessions.<entities>.parking_expired} — parked sessions whose waiting
 *       messages were dead-lettered past the parking age;
 *   <li>{@code idemworker.sessions.locks.lost} — messages stopped by a lost session lock (outcome
 *       {@code retried} with reason {@code lock_lost} in {@code idemworker.messages.outcomes});
 *       each releases its session.
 * </ul>
 *
 * <p>Thread-safe; never throws.
 */
public final class SessionMetrics implements SessionListener {
  private final Map<Event, LongCounter> counters = new EnumMap<>(Event.class);

  SessionMetrics(Meter meter, String entities) {
    Objects.requireNonNull(meter, "meter");
    String parked = "idemworker.sessions." + entities + ".";
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
        parked + "parked",
        "Sessions parked behind a dead-lettered message",
        "{session}");
    counter(
        meter,
        Event.PARKED_BEHIND,
        "idemworker.sessions.messages.parked",
        "Messages deferred behind a parked session",
        "{message}");
    counter(
        meter,
        Event.RELEASED,
        parked + "released",
        "Parked sessions whose dead-lettered message went through",
        "{session}");
    counter(
        meter,
        Event.PARKING_EXPIRED,
        parked + "parking_expired",
        "Parked sessions whose waiting messages were dead-lettered past the parking age",
        "{session}");
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
