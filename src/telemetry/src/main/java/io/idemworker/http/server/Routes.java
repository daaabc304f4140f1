package io.idemworker.http.server;

import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * What a {@link BoundedServer} serves, in two steps so that nothing slow holds a thread before the
 * request has arrived in full:
 *
 * <ol>
 *   <li>{@link #decide} sees the head on the server's own thread and must not block: it answers at
 *       once (probes, 404, 405, 401, 415: the body is then never read) or admits the request;
 *   <li>an admitted request's body is read without a thread (bounded by its size and the body
 *       timeout), then {@link Admit#work} runs on the intake pool and may block.
 * </ol>
 */
@FunctionalInterface
public interface Routes {
  /**
   * Decides on a request from its head alone.
   *
   * @param head the request head
   * @return an answer now, or admission
   */
  Decision decide(Head head);

  /** What {@link #decide} chose. */
  sealed interface Decision permits Now, Admit {}

  /**
   * Answer at once, without reading the body.
   *
   * @param answer the answer
   */
  record Now(Answer answer) implements Decision {
    /** Requires the answer. */
    public Now {
      Objects.requireNonNull(answer, "answer");
    }
  }

  /**
   * Read the body and do the work.
   *
   * @param caller whom the request counts against for {@link ServerLimits#maxInFlightPerCaller()}:
   *     the authenticated principal, or the remote address for open routes
   * @param maxBodyBytes the largest body; a larger one is answered 413 without reading it all
   * @param work the route's meaning, given the body; may block; empty = drop the connection without
   *     an answer (a simulated crash)
   */
  record Admit(String caller, int maxBodyBytes, Function<byte[], Optional<Answer>> work)
      implements Decision {
    /** Requires every value. */
    public Admit {
      Objects.requireNonNull(caller, "caller");
      Objects.requireNonNull(work, "work");
      if (maxBodyBytes < 0) {
        throw new IllegalArgumentException("maxBodyBytes must be >= 0, was " + maxBodyBytes);
      }
    }
  }
}
