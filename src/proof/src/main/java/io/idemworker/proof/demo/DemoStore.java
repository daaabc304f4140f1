package io.idemworker.proof.demo;

import io.idemworker.core.DocumentPatch;
import io.idemworker.core.EffectStore;
import io.idemworker.core.StoreFailure;
import io.idemworker.core.WriteSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The demo's store: the real Cosmos DB adapter, plus two stage effects the demo needs to show.
 *
 * <ul>
 *   <li>A simulated crash between commit and completion: for the anchors (order ids, inbox marker
 *       ids) in {@code crashPending}, the first successful batch is reported as a lost response, so
 *       the worker abandons a message whose effect has committed, and the redelivery must take the
 *       duplicate path.
 *   <li>A simulated crash after an external call and before its completion: for the anchors (the
 *       payment events) in {@code crashBeforeCommit}, the first batch is not applied and a lost
 *       response is reported, as if the worker died after the provider call; {@code onCrash} runs
 *       first (the demo moves the consumers' clock past the claim's lease, so the redelivery takes
 *       the expired lease over without waiting it out).
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

  private final EffectStore cosmos;
  private final Set<String> crashPending;
  private final Set<String> crashBeforeCommit;
  private final Runnable onCrash;
  private final Map<String, CountDownLatch> meetings;

  DemoStore(
      EffectStore cosmos,
      Set<String> crashPending,
      Set<String> crashBeforeCommit,
      Runnable onCrash,
      Map<String, CountDownLatch> meetings) {
    this.cosmos = cosmos;
    this.crashPending = crashPending;
    this.crashBeforeCommit = crashBeforeCommit;
    this.onCrash = onCrash;
    this.meetings = meetings;
  }

  @Override
  public WriteResult apply(WriteSet writeSet) {
    if (crashBeforeCommit.remove(writeSet.anchorId())) {
      // The provider call happened; the worker "dies" before its completion reaches the store.
      onCrash.run();
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
    return cosmos.update(partitionKey, patch);
  }

  @Override
  public ReadResult read(String partitionKey, String id) {
    return cosmos.read(partitionKey, id);
  }
}
