package io.idemworker.proof.bench;

/**
 * Where a {@link BoundCell}'s phases begin and end, in settled messages of its preloaded queue: a
 * cold warm-up with no latency (the child's JIT compiles the hot path at full speed), then the
 * latencies are armed and a short warm-up under latency lets the calls fall into step, then the
 * measured window, then a tail that keeps every call busy until the window has closed.
 *
 * @param cold orders settled before the latencies are armed (0: armed before the child starts)
 * @param warm orders settled under latency before the window opens, at least 1
 * @param measured orders in the window, at least 1
 * @param tail orders after the window, at least 1
 */
record BoundPhases(int cold, int warm, int measured, int tail) {
  BoundPhases {
    if (cold < 0 || warm < 1 || measured < 1 || tail < 1) {
      // Each step at its own count: arming, opening and closing the window never coincide.
      throw new IllegalArgumentException(
          "cold >= 0, warm, measured and tail >= 1: "
              + cold
              + "/"
              + warm
              + "/"
              + measured
              + "/"
              + tail);
    }
  }

  /** What happens when the n-th order has been settled. */
  enum Step {
    NOTHING,
    ARM,
    OPEN_WINDOW,
    CLOSE_WINDOW,
    ALL_SETTLED
  }

  /** Orders to preload. */
  int total() {
    return cold + warm + measured + tail;
  }

  /** Whether the {@code settled}-th order is one of the window's (counted when it was settled). */
  boolean inWindow(int settled) {
    return settled > cold + warm && settled <= cold + warm + measured;
  }

  /** Whether the latencies are armed before the child starts (no cold warm-up). */
  boolean armedFromTheStart() {
    return cold == 0;
  }

  /**
   * The step due when {@code settled} orders have been settled; each step is due at exactly one
   * count, so a reader that sees every count in turn takes each step once, in order.
   */
  Step at(int settled) {
    if (settled == total()) {
      return Step.ALL_SETTLED;
    }
    if (settled == cold + warm + measured) {
      return Step.CLOSE_WINDOW;
    }
    if (settled == cold + warm) {
      return Step.OPEN_WINDOW;
    }
    if (settled == cold && cold > 0) {
      return Step.ARM;
    }
    return Step.NOTHING;
  }
}
