package io.idemworker.servicebus;

import java.util.Objects;
import java.util.Optional;

/**
 * What the worker is doing, for the readiness probe.
 *
 * @param state the state
 * @param reason why it is not running, if it is not
 */
public record WorkerStatus(State state, Optional<String> reason) {

  /** Requires both components. */
  public WorkerStatus {
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(reason, "reason");
  }

  /**
   * Whether the worker takes messages now.
   *
   * @return true when running
   */
  public boolean ready() {
    return state == State.RUNNING;
  }

  /** The worker's states. */
  public enum State {
    /** Built, not started. */
    CREATED,
    /** Taking messages. */
    RUNNING,
    /** Stopped taking messages because its own configuration is wrong; probing to resume. */
    PAUSED,
    /** Shutting down or closed. */
    STOPPED
  }
}
