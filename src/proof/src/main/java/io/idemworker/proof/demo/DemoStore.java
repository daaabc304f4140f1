package io.idemworker.proof.demo;

import io.idemworker.core.DocumentPatch;
import io.idemworker.core.EffectStore;
import io.idemworker.core.StoreFailure;
import io.idemworker.core.WriteSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The demo's store: the real Cosmos DB adapter, plus the stage effects the demo needs to show.
 *
 * <ul>
 *   <li>A simulated crash between commit and completion: for the anchors (order ids, inbox marker
 *       ids) in {@code crashPending}, the first successful batch is reported as a lost response, so
 *       the worker abandons a message whose effect has committed, and the redelivery must take the
 *       duplicate path.
 *   <li>A simulated crash after an external call and before its completion: for the anchors (the
 *       payment events) in {@code crashBeforeCommit}, the first batch is not applied and a lost
 *       response is reported, as if the worker died after the provider call. A dead process writes
 *       nothing more, so the one write the flow still makes to that record (releasing its lease) is
 *       dropped too: the lease stays until it runs out, and the redelivery waits the rest out (the
 *       lease-meeting wait) and takes the record over. Nothing else is touched: no clock is moved,
 *       so the leases of the other payments in flight keep their length.
 *   <li>A meeting point for the two copies of an order sent twice: each copy's write waits
 *       (bounded) until the other copy's write has started too, so the two are provably in flight
 *       at the same time and the store alone decides which one creates the order.
 * </ul>
 */
final class DemoStore implements EffectStore {
  static final String SIMULATED_CRASH = "simulated crash between commit and completion";
  static final String SIMULATED_CRASH_BEFORE_COMPLETION =
      "simulated crash after the provider call, before the completion";
  private static final long MEETING_WAIT_SECONDS = 10;

  /** The payment record's lease end (docs/data-model.md). */
  private static final String LEASE_UNTIL = "leaseUntilMillis";

  private final EffectStore cosmos;
  private final Set<String> crashPending;
  private final Map<String, String> crashBeforeCommit;
  private final Map<String, CountDownLatch> meetings;
  // Records whose attempt "died": the next write to each (the dead attempt's release) is dropped.
  private final Set<String> deadAttempts = ConcurrentHashMap.newKeySet();

  /**
   * @param cosmos the real adapter
   * @param crashPending anchors whose first committed batch is reported lost
   * @param crashBeforeCommit anchor (a payment's event) → its record: the worker "dies" before the
   *     first completion batch of each; shared by the demo's instances, each crash happens once
   * @param meetings anchors whose two copies meet before writing
   */
  DemoStore(
      EffectStore cosmos,
      Set<String> crashPending,
      Map<String, String> crashBeforeCommit,
      Map<String, CountDownLatch> meetings) {
    this.cosmos = cosmos;
    this.crashPending = crashPending;
    this.crashBeforeCommit = crashBeforeCommit;
    this.meetings = meetings;
  }

  @Override
  public WriteResult apply(WriteSet writeSet) {
    String crashedRecord = crashBeforeCommit.remove(writeSet.anchorId());
    if (crashedRecord != null) {
      // The provider call happened; the worker "dies" before its completion reaches the store.
      deadAttempts.add(crashedRecord);
      return new Failed(
          new StoreFailure(StoreFailure.Kind.TRANSIENT, 0, SIMULATED_CRASH_BEFORE_COMPLETION));
    }
    CountDownLatch meeting = meetings.get(writeSet.anchorId());
    if (meeting != null && meeting.getCount() > 0) {
      meeting.countDown();
      try {
        meeting.await(MEETING_WAIT_SECONDS, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    WriteResult result = cosmos.apply(writeSet);
    if (result instanceof Applied && crashPending.remove(writeSet.anchorId())) {
      // The batch committed, then the worker "crashed": it never learns, never completes.
      return new Failed(new StoreFailure(StoreFailure.Kind.TRANSIENT, 0, SIMULATED_CRASH));
    }
    return result;
  }

  @Override
  public UpdateResult update(String partitionKey, DocumentPatch patch) {
    if (releasesLease(patch) && deadAttempts.remove(patch.id())) {
      // The crashed attempt's release: a dead process never sends it. The record's message comes
      // back only after this write, so no later attempt's release can be the one dropped.
      return new Failed(
          new StoreFailure(StoreFailure.Kind.TRANSIENT, 0, SIMULATED_CRASH_BEFORE_COMPLETION));
    }
    return cosmos.update(partitionKey, patch);
  }

  /** The flow's release: a patch of the lease's end alone ({@code leaseUntilMillis} = 0). */
  private static boolean releasesLease(DocumentPatch patch) {
    return patch.operations().size() == 1
        && patch.operations().get(0) instanceof DocumentPatch.SetField set
        && set.field().equals(LEASE_UNTIL)
        && set.value().asLong(-1) == 0;
  }

  @Override
  public ReadResult read(String partitionKey, String id) {
    return cosmos.read(partitionKey, id);
  }
}
