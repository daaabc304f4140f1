package io.idemworker.servicebus.sessions;

import static org.assertj.core.api.Assertions.assertThat;

import io.idemworker.servicebus.sessions.SessionListener.Event;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** What session mode reports: counted in process and passed to its listener (the metrics). */
class SessionEventsTest {
  private final List<Event> heard = new CopyOnWriteArrayList<>();
  private final SessionEvents events = new SessionEvents(heard::add);

  @Test
  void everyEvent_isCountedAndPassedToTheListener() {
    events.deferred("ord-1", 3, 1);
    events.appliedAfterWaiting("ord-1", 3);
    events.gapGivenUp("ord-1", 2, 1, "waited PT1M");
    events.parked("ord-2", "m-1", "SchemaViolation");
    events.parkedBehind("ord-2", "m-2");
    events.released("ord-2", 1);
    events.parkingExpired("ord-3", 2);
    events.lockLost("ord-4", "m-9", "m-9", 0);

    assertThat(heard)
        .containsExactly(
            Event.DEFERRED,
            Event.APPLIED_AFTER_WAITING,
            Event.GAP_GIVEN_UP,
            Event.PARKED,
            Event.PARKED_BEHIND,
            Event.RELEASED,
            Event.PARKING_EXPIRED,
            Event.LOCK_LOST);
    assertThat(events.deferredCount()).isEqualTo(1);
    assertThat(events.appliedAfterWaitingCount()).isEqualTo(1);
    assertThat(events.gapsGivenUp()).isEqualTo(1);
    assertThat(events.parkedCount()).isEqualTo(1);
    assertThat(events.releasedCount()).isEqualTo(1);
    assertThat(events.locksLostCount()).isEqualTo(1);
  }

  @Test
  void listenerThatThrows_doesNotStopTheSession() {
    SessionEvents failing =
        new SessionEvents(
            event -> {
              throw new IllegalStateException("exporter down");
            });

    failing.lockLost("ord-1", "m-1", "m-1", 2);

    assertThat(failing.locksLostCount()).isEqualTo(1);
  }
}
