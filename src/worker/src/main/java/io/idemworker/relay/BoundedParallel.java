package io.idemworker.relay;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * Runs one blocking action per item with at most {@code parallelism} running at once: the calling
 * thread works through the items itself, helped by up to {@code parallelism - 1} tasks on the
 * executor. Helpers that the executor cannot start in time (it is busy, has one thread, or is shut
 * down) find the work done and end at once, so a one-thread executor, even the one running the
 * caller, degrades to sequential work instead of a deadlock.
 *
 * <p>Thread-safe; each call is independent.
 */
final class BoundedParallel {
  private final Executor executor;
  private final int parallelism;

  /**
   * @param executor runs the helpers; stays the caller's to shut down
   * @param parallelism the most actions running at once, the calling thread's included (≥ 1)
   */
  BoundedParallel(Executor executor, int parallelism) {
    this.executor = Objects.requireNonNull(executor, "executor");
    if (parallelism < 1) {
      throw new IllegalArgumentException("parallelism must be at least 1, was " + parallelism);
    }
    this.parallelism = parallelism;
  }

  /**
   * Runs {@code action} once per item. Once an action throws, no further item is started; the call
   * returns (or throws) only when no action of it is running any more.
   *
   * @param items the items; each is handed to exactly one action unless an earlier one failed
   * @param action the action; may be called from several threads at once
   * @throws RuntimeException the first exception an action threw (later ones are suppressed)
   */
  <T> void forEach(List<T> items, Consumer<? super T> action) {
    Run<T> run = new Run<>(List.copyOf(items), action);
    int helpers = Math.min(parallelism, items.size()) - 1;
    for (int i = 0; i < helpers; i++) {
      try {
        executor.execute(run::work);
      } catch (RejectedExecutionException e) {
        break; // the calling thread does the rest
      }
    }
    run.work();
    run.awaitIdle();
    RuntimeException failure = run.failure.get();
    if (failure != null) {
      throw failure;
    }
  }

  /** One call's shared state. */
  private static final class Run<T> {
    private final List<T> items;
    private final Consumer<? super T> action;
    private final AtomicInteger next = new AtomicInteger();
    private final AtomicReference<RuntimeException> failure = new AtomicReference<>();
    private final Object idle = new Object();
    // Workers between claiming an item and finishing it (or finding none); guarded by idle.
    private int busy;

    Run(List<T> items, Consumer<? super T> action) {
      this.items = items;
      this.action = action;
    }

    void work() {
      while (true) {
        synchronized (idle) {
          busy++;
        }
        try {
          // An item is claimed only while counted busy, so awaitIdle cannot miss it; a claim made
          // after a failure is dropped.
          int index = next.getAndIncrement();
          if (index >= items.size() || failure.get() != null) {
            return;
          }
          try {
            action.accept(items.get(index));
          } catch (RuntimeException e) {
            if (!failure.compareAndSet(null, e)) {
              failure.get().addSuppressed(e);
            }
            return;
          }
        } finally {
          synchronized (idle) {
            busy--;
            idle.notifyAll();
          }
        }
      }
    }

    /** Waits until no worker holds an item; called once the caller found no item left. */
    void awaitIdle() {
      boolean interrupted = false;
      synchronized (idle) {
        while (busy > 0) {
          try {
            idle.wait();
          } catch (InterruptedException e) {
            // Actions are bounded by their own timeouts; returning early would let the checkpoint
            // move past an event whose mark is still in flight.
            interrupted = true;
          }
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
