package io.idemworker.servicebus.processor;

import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusErrorContext;
import com.azure.messaging.servicebus.ServiceBusErrorSource;
import com.azure.messaging.servicebus.ServiceBusException;
import com.azure.messaging.servicebus.ServiceBusProcessorClient;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusReceivedMessageContext;
import com.azure.messaging.servicebus.models.ServiceBusReceiveMode;
import io.idemworker.core.DeadLetterReason;
import io.idemworker.core.DeliveryObserver;
import io.idemworker.core.IdempotentConsumer;
import io.idemworker.core.IncomingMessage;
import io.idemworker.core.Outcome;
import io.idemworker.core.ReadinessProbe;
import io.idemworker.servicebus.MessageWorker;
import io.idemworker.servicebus.ProcessorSettings;
import io.idemworker.servicebus.ServiceBusConnection;
import io.idemworker.servicebus.SessionRequirementCheck;
import io.idemworker.servicebus.WorkerStatus;
import io.idemworker.servicebus.internal.Deliveries;
import io.idemworker.servicebus.internal.Settlement;
import io.idemworker.servicebus.internal.Sleeper;
import io.idemworker.servicebus.internal.WorkerLifecycle;
import io.idemworker.servicebus.sessions.SessionWorker;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker: a Service Bus processor on a queue or a topic subscription (PEEK_LOCK, auto-complete
 * off, lock auto-renewal) whose every delivery goes through the {@link IdempotentConsumer} and is
 * settled by its {@link Outcome}: processed, duplicate and stale → complete; dead-lettered →
 * dead-letter with the reason code and description; retry → abandon after a back-off inside the
 * lock. {@link #handle} and the one settlement of an outcome ({@code Settlement}) are the whole of
 * it.
 *
 * <p><b>Pausing and draining</b> live in {@link WorkerLifecycle}: a misconfiguration, or {@link
 * ProcessorSettings#transientFailuresBeforePause()} transient failures in a row, pause the worker
 * until a probe of the store passes, so good messages are never dead-lettered for our own mistakes
 * and a store outage longer than the broker's delivery limit does not burn through their delivery
 * counts; {@link #shutdown} lets the deliveries in flight finish before the connection closes.
 *
 * <p><b>Fenced by the lock.</b> Each delivery's {@link ProcessorLock} follows its lock end through
 * the processor's renewals; the flow asks it before every store write and before a provider call,
 * and a delivery whose lock is gone ends as {@link Outcome.RetryCause#LOCK_LOST}: logged (WARN,
 * with key and delivery count), counted, and not settled.
 *
 * <p><b>Failures at the edge.</b> A settlement that fails (lock lost, connection dropped) is logged
 * and left to the broker: the redelivery takes the duplicate path. A delivery that cannot even be
 * read is dead-lettered as {@code UnreadableBody} instead of looping.
 *
 * <p><b>Session mode</b> ({@link #withSessions}): the SDK's session processor instead, one message
 * at a time per session, for consumers that need neither session state nor deferral (the topic
 * consumers); a delivery in the wrong session is dead-lettered before the flow runs.
 *
 * <p>Thread-safe; {@link #shutdown} and {@link #close} are idempotent.
 */
public final class ServiceBusWorker implements MessageWorker {
  private static final Logger LOG = LoggerFactory.getLogger(ServiceBusWorker.class);

  private final ProcessorSettings settings;
  private final IdempotentConsumer consumer;
  private final DeliveryObserver observer;
  private final Clock clock;
  private final ServiceBusProcessorClient processor;
  private final WorkerLifecycle lifecycle;
  private final Settlement settlement;
  private final Sleeper sleeper;
  // Errors the processor reported from its receive link or connection: each one means the client
  // that took the deliveries in flight is gone, so their locks are renewed no more (ProcessorLock).
  private final AtomicLong linkLosses = new AtomicLong();
  private final AtomicBoolean refusalTold = new AtomicBoolean();
  private final Optional<ProcessorSessions> sessions;
  private volatile Consumer<SessionRequirementCheck.Differs> sessionsRefused = differs -> {};

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
        WorkerLifecycle.newSupervisor(),
        Sleeper.REAL_TIME);
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
    this(
        connection,
        settings,
        Optional.empty(),
        consumer,
        probe,
        observer,
        clock,
        supervisor,
        sleeper);
  }

  /**
   * The worker in session mode: the SDK's session processor on an entity that requires sessions, up
   * to {@link ProcessorSessions#maxConcurrentSessions()} sessions at once and one message at a time
   * in each (the settings' concurrent calls and prefetch do not apply). Every delivery still goes
   * through the flow, so idempotency is unchanged: sessions sequence messages, they do not
   * deduplicate them. A delivery whose {@code SessionId} is not the owner its body names is
   * dead-lettered as {@link ProcessorSessions#SESSION_ID_MISMATCH} before the flow runs.
   *
   * <p>The flow runs without the lock fence here: the processor renews the session lock, which the
   * delivery does not show ({@code getLockedUntil} is not moved by a session renewal), so the fence
   * could not tell a renewed lock from a lost one. While the session lock holds, no other receiver
   * gets the session's messages; when it is lost, the flow's idempotency keeps the redelivered copy
   * from applying twice, as in {@link SessionWorker}.
   *
   * @param connection the namespace
   * @param settings the source, lock renewal and back-off
   * @param sessions sessions at once, idle timeout and the owner rule
   * @param consumer the flow
   * @param probe tells a paused worker when it may resume
   * @param observer metrics, logs and traces
   * @param clock for lock arithmetic
   * @return the worker; nothing connects until {@link #start}
   */
  public static ServiceBusWorker withSessions(
      ServiceBusConnection connection,
      ProcessorSettings settings,
      ProcessorSessions sessions,
      IdempotentConsumer consumer,
      ReadinessProbe probe,
      DeliveryObserver observer,
      Clock clock) {
    return new ServiceBusWorker(
        connection,
        settings,
        Optional.of(sessions),
        consumer,
        probe,
        observer,
        clock,
        WorkerLifecycle.newSupervisor(),
        Sleeper.REAL_TIME);
  }

  private ServiceBusWorker(
      ServiceBusConnection connection,
      ProcessorSettings settings,
      Optional<ProcessorSessions> sessions,
      IdempotentConsumer consumer,
      ReadinessProbe probe,
      DeliveryObserver observer,
      Clock clock,
      ScheduledExecutorService supervisor,
      Sleeper sleeper) {
    this.sessions = Objects.requireNonNull(sessions, "sessions");
    this.settings = Objects.requireNonNull(settings, "settings");
    this.consumer = Objects.requireNonNull(consumer, "consumer");
    this.observer = Objects.requireNonNull(observer, "observer");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
    this.processor =
        sessions.isPresent()
            ? sessionProcessor(connection, settings, sessions.get())
            : processor(connection, settings);
    this.lifecycle =
        new WorkerLifecycle(
            settings,
            probe,
            supervisor,
            new WorkerLifecycle.Processor() {
              @Override
              public void start() {
                processor.start();
              }

              @Override
              public void stop() {
                processor.stop();
              }

              @Override
              public void close() {
                processor.close();
              }
            });
    this.settlement = new Settlement(lifecycle, clock, settings.maxRetryBackoff(), sleeper);
  }

  private ServiceBusProcessorClient processor(
      ServiceBusConnection connection, ProcessorSettings settings) {
    ServiceBusClientBuilder.ServiceBusProcessorClientBuilder builder =
        connection.builder().processor();
    if (settings.source() instanceof ProcessorSettings.Subscription subscription) {
      builder.topicName(subscription.topic()).subscriptionName(subscription.subscription());
    } else {
      builder.queueName(((ProcessorSettings.Queue) settings.source()).name());
    }
    return builder
        .receiveMode(ServiceBusReceiveMode.PEEK_LOCK)
        .disableAutoComplete()
        .maxConcurrentCalls(settings.maxConcurrentCalls())
        .prefetchCount(settings.prefetchCount())
        .maxAutoLockRenewDuration(settings.maxLockRenewal())
        .processMessage(context -> lifecycle().onDelivery(context, this::handle))
        .processError(this::onError)
        .buildProcessorClient();
  }

  private ServiceBusProcessorClient sessionProcessor(
      ServiceBusConnection connection, ProcessorSettings settings, ProcessorSessions sessions) {
    ServiceBusClientBuilder.ServiceBusSessionProcessorClientBuilder builder =
        connection.builder().sessionProcessor();
    if (settings.source() instanceof ProcessorSettings.Subscription subscription) {
      builder.topicName(subscription.topic()).subscriptionName(subscription.subscription());
    } else {
      builder.queueName(((ProcessorSettings.Queue) settings.source()).name());
    }
    return builder
        .receiveMode(ServiceBusReceiveMode.PEEK_LOCK)
        .disableAutoComplete()
        .maxConcurrentSessions(sessions.maxConcurrentSessions())
        // One call per session keeps a session's messages in order.
        .maxConcurrentCalls(1)
        // No prefetch: a prefetched message of a session that is released when idle would come
        // back with its delivery count raised, and an idle timeout of a fraction of a second
        // releases sessions often.
        .prefetchCount(0)
        .sessionIdleTimeout(sessions.idleTimeout())
        .maxAutoLockRenewDuration(settings.maxLockRenewal())
        .processMessage(context -> lifecycle().onDelivery(context, this::handle))
        .processError(this::onError)
        .buildProcessorClient();
  }

  /** The processor calls back only after {@link #start}, when the lifecycle exists. */
  private WorkerLifecycle lifecycle() {
    return lifecycle;
  }

  /**
   * Starts taking messages.
   *
   * @throws IllegalStateException when the worker was already started or shut down
   */
  public void start() {
    lifecycle.start();
    if (sessions.isPresent()) {
      LOG.info(
          "worker started in session mode on {}, {} sessions at once",
          settings.source().describe(),
          sessions.get().maxConcurrentSessions());
    } else {
      LOG.info("worker started on {}", settings.source().describe());
    }
  }

  /**
   * The current status, for the readiness endpoint.
   *
   * @return the status
   */
  public WorkerStatus status() {
    return lifecycle.status();
  }

  /**
   * Stops taking messages, waits up to {@code timeout} for the deliveries in flight to be settled,
   * then closes the connection; deliveries still unsettled then are redelivered when their locks
   * end (the broker keeps a lock after its link closes) and take the duplicate path if their effect
   * had committed. Deliveries that arrive during the drain are held unsettled and come back
   * likewise.
   *
   * @param timeout how long to wait for in-flight deliveries
   * @return true when every in-flight delivery was settled in time
   */
  public boolean shutdown(Duration timeout) {
    return lifecycle.shutdown(timeout);
  }

  @Override
  public void close() {
    shutdown(Duration.ofSeconds(30));
  }

  private void handle(ServiceBusReceivedMessageContext context) {
    long start = System.nanoTime();
    ServiceBusReceivedMessage received = context.getMessage();
    IncomingMessage message;
    try {
      message = Deliveries.toIncoming(received);
    } catch (RuntimeException e) {
      Settlement.deadLetter(
          Settlement.of(context),
          DeadLetterReason.UNREADABLE_BODY,
          "the message could not be read: " + e.getClass().getSimpleName());
      return;
    }
    DeliveryObserver.Observation observation = observer.start(message);
    if (sessions.isPresent()) {
      if (sessions.get().misplaced(message, received.getSessionId()).isPresent()) {
        Outcome outcome =
            new Outcome.DeadLettered(
                Optional.empty(),
                Optional.empty(),
                ProcessorSessions.SESSION_ID_MISMATCH,
                "SessionId must equal the "
                    + sessions.get().keyName()
                    + " the body names: in session mode a message is taken in that session only,"
                    + " and producers (the relay among them) set SessionId to it");
        boolean settled = settlement.settle(Settlement.of(context), outcome);
        observation.finish(outcome, Duration.ofNanos(System.nanoTime() - start), settled);
        return;
      }
    }
    ProcessorLock lock =
        new ProcessorLock(
            sessions.isPresent() ? () -> null : received::getLockedUntil,
            clock.instant().plus(settings.maxLockRenewal()),
            linkLosses::get,
            clock,
            sleeper);
    Outcome outcome =
        Deliveries.run(consumer, message, received, lock, lock::renewedPast, clock, sleeper);
    boolean settled = settlement.settle(Settlement.of(context), outcome);
    observation.finish(outcome, Duration.ofNanos(System.nanoTime() - start), settled);
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

  /**
   * Whom to tell when the broker refuses this worker's receiver because the entity's sessions
   * disagree with this worker, which runs outside session mode (a session entity and a plain
   * receiver). The start-up probe finds this before the first message; this is for a probe that
   * answered nothing within its bound, when the processor would otherwise retry the refused
   * receiver for ever. Told at most once; the application decides what follows (the sample worker's
   * {@code run} exits 2 with the problem).
   *
   * @param listener called on the processor's error thread; must not block
   */
  public void onSessionsRefused(Consumer<SessionRequirementCheck.Differs> listener) {
    this.sessionsRefused = Objects.requireNonNull(listener, "listener");
  }

  private void onError(ServiceBusErrorContext context) {
    Optional<SessionRequirementCheck.Differs> differs =
        ServiceBusErrorSource.USER_CALLBACK.equals(context.getErrorSource())
            ? Optional.empty()
            : SessionRequirementCheck.differs(
                context.getException(), settings.source(), sessions.isPresent());
    if (differs.isPresent() && refusalTold.compareAndSet(false, true)) {
      sessionsRefused.accept(differs.get());
    }
    if (!ServiceBusErrorSource.USER_CALLBACK.equals(context.getErrorSource())) {
      // The processor reports only a receive link or connection it gave up on (it recovers
      // passing faults itself): the deliveries it had handed out can be neither renewed nor
      // settled any more.
      linkLosses.incrementAndGet();
    }
    Throwable error = context.getException();
    boolean transientError = error instanceof ServiceBusException sb && sb.isTransient();
    if (transientError) {
      LOG.info("Service Bus transient error ({}): {}", context.getErrorSource(), error.toString());
    } else {
      LOG.warn("Service Bus error ({}): {}", context.getErrorSource(), error.toString());
    }
  }
}
