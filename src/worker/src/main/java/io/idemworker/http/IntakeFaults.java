package io.idemworker.http;

/**
 * The two points where a crash or a slow network loses an answer that was already decided, as seams
 * for tests and the demo. Production uses {@link #NONE}.
 */
public interface IntakeFaults {
  /** No faults. */
  IntakeFaults NONE = new IntakeFaults() {};

  /**
   * Called after the order's write, before its answer is stored with the key. Throwing {@link
   * Crash} drops the connection without an answer: what a client sees when the process dies here.
   *
   * @param orderId the order
   */
  default void afterCommit(String orderId) {}

  /**
   * Called after the answer is stored, before it is sent. Blocking here is a slow network (the
   * client times out); throwing {@link Crash} drops the connection.
   *
   * @param orderId the order
   */
  default void beforeReply(String orderId) {}

  /** Ends the exchange without an answer, as a process crash would. */
  final class Crash extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the crash.
     *
     * @param where a label for logs
     */
    public Crash(String where) {
      super("simulated crash " + where, null, false, false);
    }
  }
}
