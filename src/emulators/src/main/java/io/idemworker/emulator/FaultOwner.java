package io.idemworker.emulator;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Who armed a fault: the test running on the current thread. The emulators' fault switchboards ask
 * {@link #register(Runnable)} how to disarm each fault they arm; when the owner of the current
 * thread {@link #close() closes}, the faults it armed are disarmed and no others, so that tests run
 * in parallel on one emulator clear only their own faults.
 *
 * <p>The JUnit extension ({@code @AzureEmulators}) opens an owner before each test and closes it
 * after, on the test's thread: faults armed in {@code @BeforeEach}, the test and {@code @AfterEach}
 * belong to that test. A fault armed on a thread with no owner (another thread, {@code @BeforeAll},
 * code outside a test) belongs to nobody and stays until cleared explicitly (the extension clears
 * everything whenever no test of the emulators is running). Owners nest: opening one on a thread
 * that has one shadows it until closed. Thread-safe.
 */
public final class FaultOwner implements AutoCloseable {
  private static final ThreadLocal<FaultOwner> CURRENT = new ThreadLocal<>();

  private final String name;
  private final Thread thread;
  private final FaultOwner previous;
  private final List<Runnable> disarms = new ArrayList<>();
  private boolean closed;

  private FaultOwner(String name, Thread thread, FaultOwner previous) {
    this.name = name;
    this.thread = thread;
    this.previous = previous;
  }

  /**
   * Opens an owner for the current thread: faults armed on it from now until {@link #close()} are
   * disarmed by that close.
   *
   * @param name what the owner is, for {@link #toString()} (a test's display name)
   */
  public static FaultOwner open(String name) {
    Objects.requireNonNull(name, "name");
    Thread thread = Thread.currentThread();
    FaultOwner owner = new FaultOwner(name, thread, CURRENT.get());
    CURRENT.set(owner);
    return owner;
  }

  /**
   * Records how to disarm a fault just armed, when the current thread has an owner; otherwise does
   * nothing. For the emulators' fault switchboards: {@code disarm} must be idempotent and must
   * leave alone a fault that is spent or cleared already.
   *
   * @return whether an owner took it
   */
  public static boolean register(Runnable disarm) {
    Objects.requireNonNull(disarm, "disarm");
    FaultOwner owner = CURRENT.get();
    if (owner == null) {
      return false;
    }
    synchronized (owner) {
      if (owner.closed) {
        return false;
      }
      owner.disarms.add(disarm);
    }
    return true;
  }

  /**
   * Disarms every fault armed under this owner, and gives the thread back the owner it had before.
   * Idempotent.
   */
  @Override
  public void close() {
    List<Runnable> toRun;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      toRun = List.copyOf(disarms);
      disarms.clear();
    }
    if (Thread.currentThread() == thread && CURRENT.get() == this) {
      if (previous == null) {
        CURRENT.remove();
      } else {
        CURRENT.set(previous);
      }
    }
    RuntimeException failure = null;
    for (Runnable disarm : toRun) {
      try {
        disarm.run();
      } catch (RuntimeException e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  @Override
  public String toString() {
    return "FaultOwner[" + name + "]";
  }
}
