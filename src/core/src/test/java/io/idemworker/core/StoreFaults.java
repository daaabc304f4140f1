package io.idemworker.core;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * The store faults tests inject most often, as {@link EffectStore}s: a store that fails every call,
 * one that throws, and a real store followed by an action after a commit (a crash, a lost lock).
 * For other shapes, extend {@link ForwardingEffectStore}.
 */
public final class StoreFaults {
  private StoreFaults() {}

  /**
   * A store that answers every call with {@code failure}, as a database that is down, forbids the
   * caller or refuses the request does.
   *
   * @param failure the failure every call answers
   * @return the store
   */
  public static EffectStore failing(StoreFailure failure) {
    Objects.requireNonNull(failure, "failure");
    EffectStore.Failed failed = new EffectStore.Failed(failure);
    return new EffectStore() {
      @Override
      public WriteResult apply(WriteSet writeSet) {
        return failed;
      }

      @Override
      public UpdateResult update(String partitionKey, DocumentPatch patch) {
        return failed;
      }

      @Override
      public ReadResult read(String partitionKey, String id) {
        return failed;
      }
    };
  }

  /**
   * A store whose every call throws, as an adapter with a bug does.
   *
   * @param exception makes the exception each call throws
   * @return the store
   */
  public static EffectStore throwing(Supplier<? extends RuntimeException> exception) {
    Objects.requireNonNull(exception, "exception");
    return new EffectStore() {
      @Override
      public WriteResult apply(WriteSet writeSet) {
        throw exception.get();
      }

      @Override
      public UpdateResult update(String partitionKey, DocumentPatch patch) {
        throw exception.get();
      }

      @Override
      public ReadResult read(String partitionKey, String id) {
        throw exception.get();
      }
    };
  }

  /**
   * {@code store}, which runs {@code then} once, right after the first write set it applied ({@link
   * EffectStore.Applied}) and before the caller hears of it: the process dies, or loses its lock,
   * between the commit and what it does next. The write's answer is returned unchanged.
   *
   * @param store the real store
   * @param then what happens after the first commit (once, on the writing thread)
   * @return the wrapping store
   */
  public static EffectStore afterFirstCommit(EffectStore store, Runnable then) {
    Objects.requireNonNull(then, "then");
    AtomicBoolean done = new AtomicBoolean();
    return new ForwardingEffectStore(store) {
      @Override
      public WriteResult apply(WriteSet writeSet) {
        WriteResult result = super.apply(writeSet);
        if (result instanceof Applied && done.compareAndSet(false, true)) {
          then.run();
        }
        return result;
      }
    };
  }

  /**
   * {@code store}, which runs {@code then} after every write set it was given, whatever the answer,
   * before the caller hears of it.
   *
   * @param store the real store
   * @param then what happens after each write (on the writing thread)
   * @return the wrapping store
   */
  public static EffectStore afterEachWrite(EffectStore store, Runnable then) {
    Objects.requireNonNull(then, "then");
    return new ForwardingEffectStore(store) {
      @Override
      public WriteResult apply(WriteSet writeSet) {
        WriteResult result = super.apply(writeSet);
        then.run();
        return result;
      }
    };
  }
}
