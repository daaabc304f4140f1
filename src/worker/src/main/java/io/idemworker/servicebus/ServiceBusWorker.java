package io.idemworker.servicebus;

import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusErrorContext;
import com.azure.messaging.servicebus.ServiceBusException;
import com.azure.messaging.servicebus.ServiceBusProcessorClient;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusReceivedMessageContext;
import com.azure.messaging.servicebus.models.DeadLetterOptions;
import com.azure.messaging.servicebus.models.ServiceBusReceiveMode;
import io.idemworker.core.DeadLetterReason;
import io.idemworker.core.DeliveryObserver;
import io.idemworker.core.IdempotentConsumer;
import io.idemworker.core.IncomingMessage;
import io.idemworker.core.Outcome;
import io.idemworker.core.ReadinessProbe;
import java.time.Clock;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker: a Service Bus processor on a queue or a topic subscription (PEEK_LOCK, auto-complete
 * off, lock auto-renewal) whose every delivery goes through the {@link IdempotentConsumer} and is
 * settled by its {@link Outcome}: processed, duplicate and stale → complete; dead-lettered →
 * dead-letter with the reason code and description; retry → abandon after a back-off inside the
 * lock.
 *
 * <p><b>Pausing.</b> A retry caused by misconfiguration, or {@link
 * ProcessorSettings#transientFailuresBeforePause()} transient failures in a row, pause the worker:
 * it lets the deliveries in flight finish, stops taking messages, reports not ready, and probes the
 * store every {@link ProcessorSettings#probeInterval()} until the probe passes, then resumes. Good
 * messages are never dead-lettered for our own mistakes, and a store outage longer than the
 * broker's delivery limit does not burn through their delivery counts.
 *
 * <p><b>Failures at the edge.</b> A settlement that fails (lock lost, connection dropped) is logged
 * and left to the broker: the redelivery takes the duplicate path. A delivery that cannot even be
 * read is dead-lettered as {@code UnreadableBody} instead of looping.
 *
 * <p>Thread-safe; {@link #shutdown} and {@link #close} are idempotent.
 */
public final class ServiceBusWorker implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ServiceBusWorker.class);

  /** Service Bus clients refuse longer dead-letter descriptions; keep well inside. */
  static final int MAX_DESCRIPTION_LENGTH = 4000;

  private static final Duration PAUSE_DRAIN_BOUND = Duration.ofSeconds(30);

  private final ProcessorSettings settings;
  private final IdempotentConsumer consumer;
  private final ReadinessProbe probe;
  private final DeliveryObserver observer;
  private final Clock clock;
  private final ServiceBusProcessorClient processor;
  private final ScheduledExecutorService supervisor;
  private final Sleeper sleeper;
  private final AtomicReference<WorkerStatus> status =
      new AtomicReference<>(
          new WorkerStatus(WorkerStatus.State.CREATED, Optional.of("not started")));
  private final AtomicInteger transientFailuresInARow = new AtomicInteger();
  private final Object inFlightLock = new Object();
  private final CountDownLatch closing = new CountDownLatch(1);
  private volatile CountDownLatch pauseGate = new CountDownLatch(0);
  private int inFlight;
  private boolean draining;

  /**
   * Builds the worker; nothing connects until {@link #start}.
   *
   * @param connection the namespace
   * @param settings the processor settings
   * @param consumer the flow
   * @param probe tells a paused worker when it may resume
   * @param observer metrics, logs and traces
   * @param clock for lock arithmetic
   */
  public ServiceBusWorker(
      ServiceBusConnection connection,
      ProcessorSettings settings,
      IdempotentConsumer consumer,
      ReadinessProbe probe,
      DeliveryObserver observer,
      Clock clock) {
    this(
        connection,
        settings,
        consumer,
        probe,
        observer,
        clock,
        Executors.newSingleThreadScheduledExecutor(
            runnable -> {
              Thread thread = new Thread(runnable, "idemworker-supervisor");
              thread.setDaemon(true);
              return thread;
            }),
        wait -> Thread.sleep(wait.toMillis()));
  }

  /**
   * Builds the worker with its time and threads injected, for tests.
   *
   * @param supervisor runs pausing and probing; owned by the worker from now on
   * @param sleeper waits out retry back-offs
   */
  ServiceBusWorker(
      ServiceBusConnection connection,
      ProcessorSettings settings,
      IdempotentConsumer consumer,
      ReadinessProbe probe,
      DeliveryObserver observer,
      Clock clock,
      ScheduledExecutorService supervisor,
      Sleeper sleeper) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.consumer = Objects.requireNonNull(consumer, "consumer");
    this.probe = Objects.requireNonNull(probe, "probe");
    this.observer = Objects.requireNonNull(observer, "observer");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.supervisor = Objects.requireNonNull(supervisor, "supervisor");
    this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
    ServiceBusClientBuilder.ServiceBusProcessorClientBuilder builder =
        connection.builder().processor();
    if (settings.source() instanceof ProcessorSettings.Subscription subscription) {
      builder.topicName(subscription.topic()).subscriptionName(subscription.subscription());
    } else {
      builder.queueName(((ProcessorSettings.Queue) settings.source()).name());
    }
    this.processor =
        builder
            .receiveMode(ServiceBusReceiveMode.PEEK_LOCK)
            .disableAutoComplete()
            .maxConcurrentCalls(settings.maxConcurrentCalls())
            .prefetchCount(settings.prefetchCount())
            .maxAutoLockRenewDuration(settings.maxLockRenewal())
            .processMessage(this::onMessage)
            .processError(ServiceBusWorker::onError)
            .buildProcessorClient();
  }

  /** Waits out a back-off; the production one sleeps. */
  @FunctionalInterface
  interface Sleeper {
    /**
     * Waits.
     *
     * @param wait how long
     * @throws InterruptedException when interrupted
     */
    void sleep(Duration wait) throws InterruptedException;
  }

  /**
   * Starts taking messages.
   *
   * @throws IllegalStateException when the worker was already started or shut down
   */
  public void start() {
    WorkerStatus created = status.get();
    if (created.state() != WorkerStatus.State.CREATED
        || !status.compareAndSet(
            created, new WorkerStatus(WorkerStatus.State.RUNNING, Optional.empty()))) {
      throw new IllegalStateException("the worker can be started once, was " + created.state());
    }
    processor.start();
    LOG.info("worker started on {}", settings.source().describe());
  }

  /**
   * The current status, for the readiness endpoint.
   *
   * @return the status
   */
  public WorkerStatus status() {
    return status.get();
  }

  /**
   * Stops taking messages, waits up to {@code timeout} for the deliveries in flight to be settled,
   * then closes the connection; deliveries still unsettled then are released by the broker and
   * redelivered (and take the duplicate path if their effect had committed).
   *
   * <p>The processor is not stopped first: stopping it interrupts the handlers, which would turn a
   * graceful drain into a crash between commit and completion. Instead, deliveries that arrive
   * during the drain are held unsettled (so the processor asks for no more) and released when the
   * connection closes.
   *
   * @param timeout how long to wait for in-flight deliveries
   * @return true when every in-flight delivery was settled in time
   */
  public boolean shutdown(Duration timeout) {
    WorkerStatus previous =
        status.getAndSet(new WorkerStatus(WorkerStatus.State.STOPPED, Optional.of("shut down")));
    if (previous.state() == WorkerStatus.State.STOPPED) {
      return true;
    }
    supervisor.shutdownNow();
    try {
      // A probe that is resuming the processor must finish before the processor closes.
      supervisor.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    synchronized (inFlightLock) {
      draining = true;
    }
    boolean drained = awaitIdle(timeout);
    closing.countDown();
    processor.close();
    LOG.info("worker stopped; in-flight deliveries drained: {}", drained);
    return drained;
  }

  @Override
  public void close() {
    shutdown(Duration.ofSeconds(30));
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

  private void onMessage(ServiceBusReceivedMessageContext context) {
    boolean hold;
    boolean paused;
    synchronized (inFlightLock) {
      hold = draining;
      paused = !hold && status.get().state() == WorkerStatus.State.PAUSED;
      if (!hold && !paused) {
        inFlight++;
      }
    }
    if (hold) {
      holdUntilClosed();
      return;
    }
    if (paused) {
      returnUnhandled(context);
      return;
    }
    try {
      handle(context);
    } finally {
      synchronized (inFlightLock) {
        inFlight--;
        inFlightLock.notifyAll();
      }
    }
  }

  private void handle(ServiceBusReceivedMessageContext context) {
    long start = System.nanoTime();
    ServiceBusReceivedMessage received = context.getMessage();
    IncomingMessage message;
    try {
      message = Deliveries.toIncoming(received);
    } catch (RuntimeException e) {
      deadLetterUnreadable(context, received, e);
      return;
    }
    DeliveryObserver.Observation observation = observer.start(message);
    Outcome outcome = consumer.handle(message);
    boolean settled = settle(context, received, outcome);
    observation.finish(outcome, Duration.ofNanos(System.nanoTime() - start), settled);
  }

  /**
   * A delivery that arrived after the worker paused waits until the processor stops (so that it
   * occupies its slot and no further message is fetched), then goes back to the queue unhandled: at
   * most one delivery attempt per concurrent call is spent per pause.
   */
  private void returnUnhandled(ServiceBusReceivedMessageContext context) {
    try {
      pauseGate.await(PAUSE_DRAIN_BOUND.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try {
      context.abandon();
    } catch (RuntimeException e) {
      // The link is closing; the broker releases the lock either way.
    }
  }

  /** A delivery that arrived during the drain stays unsettled; the closing link releases it. */
  private void holdUntilClosed() {
    try {
      closing.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private boolean settle(
      ServiceBusReceivedMessageContext context,
      ServiceBusReceivedMessage received,
      Outcome outcome) {
    try {
      outcome.fold(
          processed -> complete(context),
          duplicate -> complete(context),
          stale -> complete(context),
          deadLettered -> {
            transientFailuresInARow.set(0);
            context.deadLetter(
                new DeadLetterOptions()
                    .setDeadLetterReason(deadLettered.reason().code())
                    .setDeadLetterErrorDescription(truncate(deadLettered.description())));
            return null;
          },
          retry -> {
            if (retry.cause() == Outcome.RetryCause.MISCONFIGURATION) {
              pause(retry.description());
            } else if (retry.cause() == Outcome.RetryCause.NOT_YET) {
              // The store answered: it is healthy, whatever the message waits for.
              transientFailuresInARow.set(0);
            } else if (transientFailuresInARow.incrementAndGet()
                >= settings.transientFailuresBeforePause()) {
              pause(
                  settings.transientFailuresBeforePause()
                      + " transient store failures in a row, the last: "
                      + retry.description());
            }
            Duration wait =
                Deliveries.backoff(
                    received.getDeliveryCount(),
                    received.getLockedUntil(),
                    clock.instant(),
                    settings.maxRetryBackoff(),
                    retry.retryAfter());
            sleep(wait);
            context.abandon();
            return null;
          });
      return true;
    } catch (RuntimeException e) {
      LOG.info(
          "settlement of message {} failed ({}); the broker will redeliver it",
          received.getMessageId(),
          e.getClass().getSimpleName());
      return false;
    }
  }

  private Void complete(ServiceBusReceivedMessageContext context) {
    transientFailuresInARow.set(0);
    context.complete();
    return null;
  }

  private static void deadLetterUnreadable(
      ServiceBusReceivedMessageContext context, ServiceBusReceivedMessage received, Exception e) {
    LOG.warn(
        "message {} could not be read ({}); dead-lettering it",
        received.getMessageId(),
        e.getClass().getSimpleName());
    try {
      context.deadLetter(
          new DeadLetterOptions()
              .setDeadLetterReason(DeadLetterReason.UNREADABLE_BODY.code())
              .setDeadLetterErrorDescription(
                  "the message could not be read: " + e.getClass().getSimpleName()));
    } catch (RuntimeException settlement) {
      LOG.info(
          "dead-lettering message {} failed; the broker will redeliver it",
          received.getMessageId());
    }
  }

  static String truncate(String description) {
    if (description.length() <= MAX_DESCRIPTION_LENGTH) {
      return description;
    }
    return description.substring(0, MAX_DESCRIPTION_LENGTH - 1) + "…";
  }

  private void sleep(Duration wait) {
    if (wait.isZero()) {
      return;
    }
    try {
      sleeper.sleep(wait);
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

  private static void onError(ServiceBusErrorContext context) {
    Throwable error = context.getException();
    boolean transientError = error instanceof ServiceBusException sb && sb.isTransient();
    if (transientError) {
      LOG.info("Service Bus transient error ({}): {}", context.getErrorSource(), error.toString());
    } else {
      LOG.warn("Service Bus error ({}): {}", context.getErrorSource(), error.toString());
    }
  }
}
