package io.idemworker.simulation;

import io.idemworker.core.DocumentPatch;
import io.idemworker.core.EffectStore;
import io.idemworker.core.WriteSet;
import io.idemworker.orders.CaptureAnswer;
import java.util.ArrayList;
import java.util.List;

/**
 * The store one delivery's handler sees during one scheduler step. The handler is re-run from the
 * start at every step: its earlier calls are answered from the record (and checked to be the same
 * requests, since the flow must be deterministic), at most one new call is executed against the
 * simulated store, and the next new call stops the handler by throwing {@link Park}, an {@link
 * Error} that the flow's {@code catch (RuntimeException e)} lets through. So every store call is a
 * scheduling point, and a handler's state between steps is nothing but its recorded answers.
 *
 * <p>Not thread-safe; one per run.
 */
final class ScheduledStore implements EffectStore {

  /**
   * A store call the handler already made, with the store's answer.
   *
   * @param request the call in words
   * @param result the answer
   * @param resultText the answer in full, for telling states apart
   */
  record Recorded(String request, Object result, String resultText) {
    Recorded(String request, Object result) {
      this(request, result, String.valueOf(result));
    }
  }

  /** Stops the handler at its next store call, which is pending until the scheduler picks it. */
  static final class Park extends Error {
    private final transient StoreCall call;

    Park(StoreCall call) {
      super(call.describe(), null, false, false);
      this.call = call;
    }

    StoreCall call() {
      return call;
    }
  }

  private final List<Recorded> calls;
  private final boolean mayExecute;
  private final long now;
  private SimulatedStore store;
  private int index;
  private boolean executed;

  /**
   * Creates the store for one run.
   *
   * @param recorded the delivery's calls so far
   * @param store the simulated database
   * @param now virtual seconds
   * @param mayExecute whether this run executes the pending call
   */
  ScheduledStore(List<Recorded> recorded, SimulatedStore store, long now, boolean mayExecute) {
    this.calls = new ArrayList<>(recorded);
    this.store = store;
    this.now = now;
    this.mayExecute = mayExecute;
  }

  @Override
  public WriteResult apply(WriteSet writeSet) {
    return (WriteResult) call(new StoreCall.Apply(writeSet));
  }

  @Override
  public UpdateResult update(String partitionKey, DocumentPatch patch) {
    return (UpdateResult) call(new StoreCall.Update(partitionKey, patch));
  }

  @Override
  public ReadResult read(String partitionKey, String id) {
    return (ReadResult) call(new StoreCall.Read(partitionKey, id));
  }

  /**
   * A blind write (documents replaced, no create-as-check), for mutants only.
   *
   * @param writeSet the operations
   * @return the result
   */
  WriteResult upsert(WriteSet writeSet) {
    return (WriteResult) call(new StoreCall.Upsert(writeSet));
  }

  /**
   * A capture at the simulated provider: a scheduling point like a store call.
   *
   * @param capture the request
   * @return the provider's answer
   */
  CaptureAnswer capture(StoreCall.Capture capture) {
    return (CaptureAnswer) call(capture);
  }

  List<Recorded> calls() {
    return List.copyOf(calls);
  }

  SimulatedStore store() {
    return store;
  }

  boolean executed() {
    return executed;
  }

  /** Whether the handler's next call is one it already made (answered from the record). */
  boolean replaying() {
    return index < calls.size();
  }

  private Object call(StoreCall call) {
    if (index < calls.size()) {
      Recorded recorded = calls.get(index++);
      if (!recorded.request().equals(call.describe())) {
        throw new AssertionError(
            "the handler is not deterministic: call "
                + index
                + " was "
                + recorded.request()
                + " and is now "
                + call.describe());
      }
      return copy(recorded.result());
    }
    if (mayExecute && !executed) {
      executed = true;
      SimulatedStore.Executed result;
      try {
        result = store.execute(call, now);
      } catch (RuntimeException e) {
        // The flow turns runtime exceptions into retries; a broken simulation must not hide so.
        throw new AssertionError("the simulated store failed on " + call.describe(), e);
      }
      store = result.after();
      calls.add(new Recorded(call.describe(), result.result()));
      index++;
      return copy(result.result());
    }
    throw new Park(call);
  }

  private static Object copy(Object result) {
    if (result instanceof EffectStore.Document document) {
      return new EffectStore.Document(document.content().deepCopy());
    }
    return result;
  }
}
