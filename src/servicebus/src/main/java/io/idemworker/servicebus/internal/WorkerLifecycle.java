package io.idemworker.servicebus.internal;

import com.azure.messaging.servicebus.ServiceBusReceivedMessageContext;
import io.idemworker.core.ReadinessProbe;
import io.idemworker.servicebus.ProcessorSettings;
import io.idemworker.servicebus.WorkerStatus;
import io.idemworker.servicebus.processor.ServiceBusWorker;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link ServiceBusWorker}'s life around its deliveries: start, pause and probe, drain and shut
 * down. The worker tells it how each delivery's store call went ({@link #storeAnswered}, {@link
 * #transientFailure}, {@link #misconfigured}); it decides when to stop taking messages.
 *
 * <p><b>Pausing.</b> A misconfiguration, or {@link
 * ProcessorSettings#transientFailuresBeforePause()} transient failures in a row, pause the worker:
 * the deliveries in flight finish (bounded by 30 s), the processor stops, the status reports not
 * ready, and the store is probed every {@link ProcessorSettings#probeInterval()} until the probe
 * passes; then the processor starts again. A delivery that arrives after the pause waits until the
 * processor stops and goes back unhandled, so at most one delivery attempt per concurrent call is
 * spent per pause.
 *
 * <p><b>Draining.</b> {@link #shutdown} stops pausing and probing, then waits for the deliveries in
 * flight to be settled before it closes the processor. The processor is not stopped first: stopping
 * it interrupts the handlers, which would turn a graceful drain into a crash between commit and
 * completion. A delivery settled during the drain keeps its handler's slot, and deliveries that
 * arrive during the drain are held unhandled in theirs, so the processor asks for no more. When the
 * deliveries in flight are done (or the drain's bound has passed) the held ones are abandoned,
 * still in their slots, and only then does the processor close: they are back on the queue at once
 * for another replica, instead of staying locked until their lock ends (the broker keeps a lock
 * after its link closes), which would hold up to one message a slot, and the messages that depend
 * on them, for a whole lock duration at every graceful stop. Abandoning counts a delivery, as a
 * lock running out would. Held deliveries not abandoned within 5 s (a broker that does not answer)
 * come back when their locks end, as does a message the client received but never handed to a
 * handler (one taken ahead of a free slot, or one that reached it while the processor closed): this
 * class never sees those.
 *
 * <p>Thread-safe: deliveries arrive on the processor's threads, pausing and probing run on the
 * supervisor, shutdown on the caller's thread. {@link #shutdown} is idempotent.
 */
public final class WorkerLifecycle {
  private static final Logger LOG = LoggerFactory.getLogger(ServiceBusWorker.class);
  private static final Duration PAUSE_DRAIN_BOUND = Duration.ofSeconds(30);
  private static final Duration RELEASE_BOUND = Duration.ofSeconds(5);

  /** What the lifecycle starts, stops and closes: the Service Bus processor. */
  public interface Processor {
    /** Starts (or restarts) taking messages. */
    void start();

    /** Stops taking messages; the connection stays open. */
    void stop();

    /** Closes the connection; unsettled deliveries come back when their locks end. */
    void close();
  }

  /**
   * A supervisor for {@link #WorkerLifecycle}: one daemon thread, {@code idemworker-supervisor},
   * that watches the store's probe while the worker is paused.
   *
   * @return a new single-thread scheduler
   */
  public static ScheduledExecutorService newSupervisor() {
    return Executors.newSingleThreadScheduledExecutor(
        runnable -> {
          Thread thread = new Thread(runnable, "idemworker-supervisor");
          thread.setDaemon(true);
          return thread;
        });
  }

  private final ProcessorSettings settings;
  private final ReadinessProbe probe;
  private final ScheduledExecutorService supervisor;
  private final Processor processor;
  private final AtomicReference<WorkerStatus> status =
      new AtomicReference<>(
          new WorkerStatus(WorkerStatus.State.CREATED, Optional.of("not started")));
  private final AtomicInteger transientFailuresInARow = new AtomicInteger();
  private final Object inFlightLock = new Object();
  private final CountDownLatch release = new CountDownLatch(1);
  private final CountDownLatch closing = new CountDownLatch(1);
  private volatile CountDownLatch pauseGate = new CountDownLatch(0);
  private int inFlight;
  private int heldUnreleased;
  private boolean draining;

  /**
   * Creates the lifecycle of one worker.
   *
   * @param settings the pause threshold and probe interval
   * @param probe tells a paused worker when it may resume
   * @param supervisor runs pausing and probing; owned from now on (shut down by {@link #shutdown})
   * @param processor the processor it starts, stops and closes
   */
  public WorkerLifecycle(
      ProcessorSettings settings,
      ReadinessProbe probe,
      ScheduledExecutorService supervisor,
      Processor processor) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.probe = Objects.requireNonNull(probe, "probe");
    this.supervisor = Objects.requireNonNull(supervisor, "supervisor");
    this.processor = Objects.requireNonNull(processor, "processor");
  }

  /**
   * Starts the processor.
   *
   * @throws IllegalStateException when already started or shut down
   */
  public void start() {
    WorkerStatus created = status.get();
    if (created.state() != WorkerStatus.State.CREATED
        || !status.compareAndSet(
            created, new WorkerStatus(WorkerStatus.State.RUNNING, Optional.empty()))) {
      throw new IllegalStateException("the worker can be started once, was " + created.state());
    }
    processor.start();
  }

  /** The current status, for the readiness endpoint. */
  public WorkerStatus status() {
    return status.get();
  }

  /**
   * Runs {@code handle} for a delivery while the worker is running; holds it unsettled during a
   * drain; sends it back unhandled while paused.
   *
   * @param context the delivery
   * @param handle handles and settles it
   */
  public void onDelivery(
      ServiceBusReceivedMessageContext context, Consumer<ServiceBusReceivedMessageContext> handle) {
    onDelivery(() -> handle.accept(context), context::abandon);
  }

  /**
   * As {@link #onDelivery(ServiceBusReceivedMessageContext, Consumer)}, for a delivery that is not
   * a processor's (session mode's own receivers).
   *
   * @param handle handles and settles the delivery
   * @param abandon sends it back unhandled
   */
  public void onDelivery(Runnable handle, Runnable abandon) {
    boolean hold;
    boolean paused;
    synchronized (inFlightLock) {
      hold = draining;
      paused = !hold && status.get().state() == WorkerStatus.State.PAUSED;
      if (hold) {
        heldUnreleased++;
      } else if (!paused) {
        inFlight++;
      }
    }
    if (hold) {
      holdUntilClosed(abandon);
      return;
    }
    if (paused) {
      returnUnhandled(abandon);
      return;
    }
    boolean keepSlot;
    try {
      handle.run();
    } finally {
      synchronized (inFlightLock) {
        inFlight--;
        inFlightLock.notifyAll();
        keepSlot = draining;
      }
    }
    if (keepSlot) {
      // Settled during the drain: keep the slot until the processor closes, so that the processor
      // fetches no message in its place (one it would only give back).
      awaitClosing();
    }
  }

  /** The store answered (whatever the message's fate): it is healthy. */
  public void storeAnswered() {
    transientFailuresInARow.set(0);
  }

  /**
   * A transient store failure; enough of them in a row pause the worker.
   *
   * @param description the last failure, for the status
   */
  public void transientFailure(String description) {
    if (transientFailuresInARow.incrementAndGet() >= settings.transientFailuresBeforePause()) {
      pause(
          settings.transientFailuresBeforePause()
              + " transient store failures in a row, the last: "
              + description);
    }
  }

  /**
   * Our own misconfiguration (access denied, a missing container): pause at once.
   *
   * @param description what is wrong, for the status
   */
  public void misconfigured(String description) {
    pause(description);
  }

  /**
   * Stops taking messages, waits up to {@code timeout} for the deliveries in flight to be settled,
   * abandons the deliveries that arrived meanwhile (unhandled), then closes the processor;
   * deliveries still unsettled then are redelivered when their locks end (and take the duplicate
   * path if their effect had committed).
   *
   * @param timeout how long to wait for in-flight deliveries
   * @return true when every in-flight delivery was settled in time
   */
  public boolean shutdown(Duration timeout) {
    synchronized (inFlightLock) {
      // One step: whoever sees the status stopped also sees deliveries held from then on.
      WorkerStatus previous =
          status.getAndSet(new WorkerStatus(WorkerStatus.State.STOPPED, Optional.of("shut down")));
      if (previous.state() == WorkerStatus.State.STOPPED) {
        return true;
      }
      draining = true;
    }
    supervisor.shutdownNow();
    try {
      // A probe that is resuming the processor must finish before the processor closes.
      supervisor.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    boolean drained = awaitIdle(timeout);
    releaseHeld();
    closing.countDown();
    processor.close();
    LOG.info("worker stopped; in-flight deliveries drained: {}", drained);
    return drained;
  }

  private boolean awaitIdle(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (inFlightLock) {
      while (inFlight > 0) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        try {
          TimeUnit.NANOSECONDS.timedWait(inFlightLock, left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return false;
        }
      }
      return true;
    }
  }

  /**
   * A delivery that arrived after the worker paused waits until the processor stops (so that it
   * occupies its slot and no further message is fetched), then goes back to the queue unhandled.
   */
  private void returnUnhandled(Runnable abandon) {
    try {
      pauseGate.await(PAUSE_DRAIN_BOUND.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try {
      abandon.run();
    } catch (RuntimeException e) {
      // The link is closing; the message comes back when its lock ends.
    }
  }

  /**
   * Lets the deliveries held by the drain go back to the queue, and waits (bounded) until each has
   * been abandoned, while they still occupy their slots and the link is open.
   */
  private void releaseHeld() {
    release.countDown();
    long deadline = System.nanoTime() + RELEASE_BOUND.toNanos();
    synchronized (inFlightLock) {
      while (heldUnreleased > 0) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          LOG.info(
              "{} deliveries held by the drain not yet abandoned; they come back when their locks"
                  + " end",
              heldUnreleased);
          return;
        }
        try {
          TimeUnit.NANOSECONDS.timedWait(inFlightLock, left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  /**
   * A delivery that arrived during the drain stays unhandled in its slot until the deliveries in
   * flight are done, is then abandoned (back on the queue at once), and keeps its slot until the
   * processor closes, so that no further message is fetched in its place.
   */
  private void holdUntilClosed(Runnable abandon) {
    boolean interrupted = false;
    try {
      release.await();
    } catch (InterruptedException e) {
      interrupted = true; // the processor is closing: abandoning may still reach the broker
    }
    try {
      abandon.run();
    } catch (RuntimeException e) {
      // The link is closing; the message comes back when its lock ends.
    } finally {
      synchronized (inFlightLock) {
        heldUnreleased--;
        inFlightLock.notifyAll();
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    } else {
      awaitClosing();
    }
  }

  private void awaitClosing() {
    try {
      closing.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void pause(String reason) {
    WorkerStatus running = status.get();
    if (running.state() != WorkerStatus.State.RUNNING) {
      return;
    }
    CountDownLatch gate = new CountDownLatch(1);
    pauseGate = gate;
    if (!status.compareAndSet(
        running, new WorkerStatus(WorkerStatus.State.PAUSED, Optional.of(reason)))) {
      gate.countDown();
      return;
    }
    LOG.error("worker paused: {}; probing to resume", reason);
    try {
      supervisor.execute(this::stopWhenIdle);
    } catch (RejectedExecutionException e) {
      // Shutting down: nothing to pause.
    }
  }

  /**
   * Stops the processor once the deliveries in flight are done (bounded), so that none of them is
   * interrupted; then starts probing.
   */
  private void stopWhenIdle() {
    if (status.get().state() != WorkerStatus.State.PAUSED) {
      return;
    }
    awaitIdle(PAUSE_DRAIN_BOUND);
    pauseGate.countDown();
    if (status.get().state() == WorkerStatus.State.PAUSED) {
      processor.stop();
    }
    scheduleProbe();
  }

  private void scheduleProbe() {
    try {
      supervisor.schedule(
          this::probeOnce, settings.probeInterval().toMillis(), TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      // Shutting down: no more probes.
    }
  }

  private void probeOnce() {
    WorkerStatus paused = status.get();
    if (paused.state() != WorkerStatus.State.PAUSED) {
      return;
    }
    try {
      Optional<String> problem = probe.problem();
      if (problem.isPresent()) {
        status.compareAndSet(paused, new WorkerStatus(WorkerStatus.State.PAUSED, problem));
        scheduleProbe();
        return;
      }
      if (status.compareAndSet(
          paused, new WorkerStatus(WorkerStatus.State.RUNNING, Optional.empty()))) {
        transientFailuresInARow.set(0);
        processor.start();
        LOG.info("worker resumed: the store accepts writes again");
      }
    } catch (RuntimeException e) {
      LOG.warn("probing or resuming failed ({}); probing again", e.toString());
      status.updateAndGet(
          current ->
              current.state() == WorkerStatus.State.RUNNING
                  ? new WorkerStatus(
                      WorkerStatus.State.PAUSED, Optional.of("resuming failed: " + e))
                  : current);
      scheduleProbe();
    }
  }
}
