package io.idemworker.simulation;

import io.idemworker.core.EffectStore;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Function;

/**
 * What one exploration covers: how many copies of the logical message the producer may send, how
 * many crashes and lock expiries may strike, the broker's lock duration and delivery limit, and the
 * flow under test (the real one, or a mutant).
 *
 * @param copies copies of the logical message; the first is in the queue at the start, the others
 *     are sent at any moment of the schedule, or never
 * @param crashes how many handler crashes a schedule may contain
 * @param lockExpiries how many locks may expire under a handler that is still working
 * @param lockDuration the queue's lock duration (the virtual clock moves by it on every expiry)
 * @param maxDeliveryCount the queue's MaxDeliveryCount
 * @param settlement when the handler settles
 * @param store wraps the scheduled store; {@link #realStore()} for the real flow
 * @param flow names the flow in reports ("real" or the mutant)
 */
record Setup(
    int copies,
    int crashes,
    int lockExpiries,
    Duration lockDuration,
    int maxDeliveryCount,
    Settlement settlement,
    Function<ScheduledStore, EffectStore> store,
    String flow) {

  /** When the handler settles the message with the broker. */
  enum Settlement {
    /** After the flow returned its outcome: the real adapter. */
    AFTER_HANDLING,
    /** Before the flow runs (a mutant: complete before commit). */
    BEFORE_HANDLING
  }

  /** Checks the bounds. */
  Setup {
    Objects.requireNonNull(lockDuration, "lockDuration");
    Objects.requireNonNull(settlement, "settlement");
    Objects.requireNonNull(store, "store");
    Objects.requireNonNull(flow, "flow");
    if (copies < 1 || crashes < 0 || lockExpiries < 0 || maxDeliveryCount < 1) {
      throw new IllegalArgumentException("copies >= 1, crashes >= 0, expiries >= 0, max >= 1");
    }
    if (lockDuration.getSeconds() < 1) {
      throw new IllegalArgumentException("lockDuration must be at least a second");
    }
  }

  /**
   * The bounded exploration the default build runs: the real flow, one crash, one lock expiry, a 60
   * s lock and three deliveries.
   *
   * @param copies copies of the message
   * @return the setup
   */
  static Setup bounded(int copies) {
    return new Setup(
        copies,
        1,
        1,
        Duration.ofSeconds(60),
        3,
        Settlement.AFTER_HANDLING,
        Setup::realStore,
        "real");
  }

  /**
   * The same setup with another store wrapper, for a mutant.
   *
   * @param name the mutant's name
   * @param wrapper the wrapper
   * @return the setup
   */
  Setup withStore(String name, Function<ScheduledStore, EffectStore> wrapper) {
    return new Setup(
        copies, crashes, lockExpiries, lockDuration, maxDeliveryCount, settlement, wrapper, name);
  }

  /**
   * The same setup settling at another moment, for a mutant.
   *
   * @param name the mutant's name
   * @param when when to settle
   * @return the setup
   */
  Setup withSettlement(String name, Settlement when) {
    return new Setup(
        copies, crashes, lockExpiries, lockDuration, maxDeliveryCount, when, store, name);
  }

  /**
   * The scheduled store unchanged.
   *
   * @param store the store
   * @return it
   */
  static EffectStore realStore(ScheduledStore store) {
    return store;
  }
}
