package io.idemworker.proof.faults;

/**
 * The processes a {@link FaultPlan}'s kills hit: each is killed and started again, so that the run
 * goes on with the same number of them. The chaos run's worker fleet is one.
 *
 * <p>Implementations must be thread-safe: {@link FaultInjector} kills from its executor's threads.
 */
public interface RestartableProcesses {
  /**
   * Kills process {@code index} with SIGKILL, or with SIGTERM, waiting for its graceful exit up to
   * a grace period, and starts it again. Blocks until the new process is started.
   *
   * @param index the process, by {@link FaultPlan.Event#target}: workers first, then consumers
   * @param graceful SIGTERM rather than SIGKILL
   * @throws InterruptedException when interrupted while waiting for the process to exit
   */
  void kill(int index, boolean graceful) throws InterruptedException;
}
