package io.idemworker.servicebus.sessions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** The session state: what it stores survives a write and a read, and what is ready when. */
class SessionStateTest {
  private static final Instant T0 = Instant.parse("2026-12-02T09:00:00Z");

  @Test
  void stateWithWaitingAndParked_readsBackEqual() {
    SessionState state =
        SessionState.EMPTY
            .withApplied(3)
            .withWaiting(new SessionState.Waiting(17, 5, T0, false))
            .withParked(
                Optional.of(
                    new SessionState.Parked(
                        "StoreRejected",
                        "cr-1",
                        T0,
                        List.of(new SessionState.Waiting(18, 0, T0.plusSeconds(1), false)))));

    assertThat(SessionState.read(state.write())).isEqualTo(state);
  }

  @Test
  void absentOrEmptyState_isEmpty_andForeignBytesAreRefused() {
    assertThat(SessionState.read(null)).isEqualTo(SessionState.EMPTY);
    assertThat(SessionState.read(new byte[0])).isEqualTo(SessionState.EMPTY);
    assertThatThrownBy(() -> SessionState.read("deferred:7".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not one this worker wrote");
  }

  @Test
  void nextReady_isTheLowestVersionThatFollowsTheAppliedOne_orAnyWhenForced() {
    SessionState state =
        SessionState.EMPTY
            .withApplied(2)
            .withWaiting(new SessionState.Waiting(30, 5, T0, false))
            .withWaiting(new SessionState.Waiting(20, 4, T0, false));

    assertThat(state.nextReady(false)).isEmpty();
    assertThat(state.nextReady(true)).map(SessionState.Waiting::version).contains(4L);
    assertThat(state.withApplied(3).nextReady(false))
        .map(SessionState.Waiting::sequenceNumber)
        .contains(20L);
    assertThat(state.gapSince()).contains(T0);
  }

  @Test
  void waitingMarkedApplied_raisesTheVersion_andIsNoLongerPartOfTheGap() {
    SessionState.Waiting four = new SessionState.Waiting(20, 4, T0, false);
    SessionState state = SessionState.EMPTY.withApplied(3).withWaiting(four).appliedWaiting(four);

    assertThat(state.applied()).isEqualTo(OptionalLong.of(4));
    assertThat(state.appliedButWaiting())
        .extracting(SessionState.Waiting::sequenceNumber)
        .containsExactly(20L);
    assertThat(state.gapSince()).isEmpty();
    assertThat(state.without(20).waiting()).isEmpty();
  }
}
