package io.idemworker.servicebus.sessions;

import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusException;
import com.azure.messaging.servicebus.ServiceBusFailureReason;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusReceiverClient;
import com.azure.messaging.servicebus.ServiceBusSessionReceiverClient;
import com.azure.messaging.servicebus.models.ServiceBusReceiveMode;
import io.idemworker.core.DeliveryObserver;
import io.idemworker.core.EffectStore;
import io.idemworker.core.IdempotentConsumer;
import io.idemworker.core.MessageDecoder;
import io.idemworker.core.ReadinessProbe;
import io.idemworker.servicebus.MessageWorker;
import io.idemworker.servicebus.ProcessorSettings;
import io.idemworker.servicebus.ServiceBusConnection;
import io.idemworker.servicebus.WorkerStatus;
import io.idemworker.servicebus.internal.Settlement;
import io.idemworker.servicebus.internal.Sleeper;
import io.idemworker.servicebus.internal.WorkerLifecycle;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker in session mode: the queue or subscription requires sessions, the producers set {@code
 * SessionId} = the session key of each message (the entity it changes), and this worker holds up to
 * {@link SessionSettings#maxConcurrentSessions()} sessions at once, each handled one message at a
 * time by an {@link HeldSession}, so one entity's messages apply in sequence while different
 * entities run in parallel. Idempotency is unchanged: every message still goes through the {@link
 * IdempotentConsumer}; sessions sequence messages, they do not deduplicate them.
 *
 * <p><b>Why not the SDK's session processor.</b> Its message context offers complete, abandon,
 * defer and dead-letter, but neither the session state nor receiving a deferred message, and both
 * are what waiting for a missing version needs. So each session thread accepts the next available
 * session with a {@link ServiceBusSessionReceiverClient} and works through the receiver bound to
 * that session, which makes every session call as the lock holder, as the service requires.
 *
 * <p><b>Fenced by the session lock.</b> The worker renews each session's lock itself ({@link
 * SessionLock}, up to {@link ProcessorSettings#maxLockRenewal()} after acceptance, as the SDK
 * would; the SDK's own renewal is off because it shows neither the end it reached nor a refusal),
 * so it knows the lock's end. The flow asks that lock before every store write and before a
 * provider call, as on the plain path; a message whose session lock is gone ends as {@link
 * io.idemworker.core.Outcome.RetryCause#LOCK_LOST}, settles nothing, and the session is released:
 * its messages come back to whoever accepts it next.
 *
 * <p>Pausing and draining are the plain worker's ({@link WorkerLifecycle}): a paused worker
 * releases its sessions and accepts none until the store's probe passes.
 *
 * <p>Thread-safe; {@link #shutdown} is idempotent.
 */
public final class SessionWorker implements MessageWorker {
  private static final Logger LOG = LoggerFactory.getLogger(SessionWorker.class);
  private static final Duration ACCEPT_RETRY = Duration.ofSeconds(1);

  /** The most messages one receive of an accepted session asks for once it has delivered. */
  static final int RECEIVE_BATCH = 16;

  /** Everything an {@link HeldSession} needs, shared by all sessions. */
  record Parts(
      IdempotentConsumer consumer,
      SessionRules rules,
      SessionSettings sessions,
      ProcessorSettings processor,
      DeliveryObserver observer,
      Clock clock,
      SessionEvents events,
      WorkerLifecycle lifecycle,
      Settlement settlement,
      Sleeper sleeper) {}

  private final ProcessorSettings settings;
  private final SessionSettings sessionSettings;
  private final ServiceBusSessionReceiverClient sessions;
  private final ScheduledExecutorService renewals;
  private final WorkerLifecycle lifecycle;
  private final Parts parts;
  private final SessionEvents events;
  private final Object pumpLock = new Object();
  private final List<Thread> threads = new ArrayList<>();
  private boolean accepting;
  private boolean closed;

  /**
   * Builds the worker; nothing connects until {@link #start}.
   *
   * @param connection the namespace
   * @param settings the source, lock renewal and back-off (its concurrent calls do not apply: each
   *     session takes one message at a time)
   * @param sessionSettings sessions at once, idle timeout, gap timeout and parking bounds
   * @param consumer the flow
   * @param decoder the flow's decoder, to tell a message's session key and version before the flow
   *     runs
   * @param store the flow's store, read once per session when its state does not know the version
   * @param probe tells a paused worker when it may resume
   * @param observer metrics, logs and traces
   * @param events session mode's own logs and counts
   * @param clock for gap timeouts and lock arithmetic
   */
  public SessionWorker(
      ServiceBusConnection connection,
      ProcessorSettings settings,
      SessionSettings sessionSettings,
      IdempotentConsumer consumer,
      MessageDecoder decoder,
      EffectStore store,
      ReadinessProbe probe,
      DeliveryObserver observer,
      SessionEvents events,
      Clock clock) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.sessionSettings = Objects.requireNonNull(sessionSettings, "sessionSettings");
    this.events = Objects.requireNonNull(events, "events");
    ServiceBusClientBuilder.ServiceBusSessionReceiverClientBuilder builder =
        connection.builder().sessionReceiver();
    if (settings.source() instanceof ProcessorSettings.Subscription subscription) {
      builder.topicName(subscription.topic()).subscriptionName(subscription.subscription());
    } else {
      builder.queueName(((ProcessorSettings.Queue) settings.source()).name());
    }
    this.sessions =
        builder
            .receiveMode(ServiceBusReceiveMode.PEEK_LOCK)
            .disableAutoComplete()
            // SessionLock renews, so that the lock's end is known (see the class comment).
            .maxAutoLockRenewDuration(Duration.ZERO)
            .buildClient();
    AtomicInteger renewalThreads = new AtomicInteger();
    ScheduledThreadPoolExecutor renewalPool =
        new ScheduledThreadPoolExecutor(
            sessionSettings.maxConcurrentSessions(),
            runnable -> {
              Thread thread =
                  new Thread(
                      runnable, "idemworker-session-lock-" + renewalThreads.incrementAndGet());
              thread.setDaemon(true);
              return thread;
            });
    renewalPool.setRemoveOnCancelPolicy(true);
    this.renewals = renewalPool;
    this.lifecycle =
        new WorkerLifecycle(
            settings,
            probe,
            WorkerLifecycle.newSupervisor(),
            new WorkerLifecycle.Processor() {
              @Override
              public void start() {
                resume();
              }

              @Override
              public void stop() {
                pause();
              }

              @Override
              public void close() {
                closePump();
              }
            });
    this.parts =
        new Parts(
            consumer,
            new SessionRules(decoder, store),
            sessionSettings,
            settings,
            observer,
            clock,
            events,
            lifecycle,
            new Settlement(lifecycle, clock, settings.maxRetryBackoff(), Sleeper.REAL_TIME),
            Sleeper.REAL_TIME);
  }

  @Override
  public void start() {
    lifecycle.start();
    LOG.info(
        "worker started in session mode on {}, {} sessions at once",
        settings.source().describe(),
        sessionSettings.maxConcurrentSessions());
  }

  @Override
  public WorkerStatus status() {
    return lifecycle.status();
  }

  @Override
  public boolean shutdown(Duration timeout) {
    return lifecycle.shutdown(timeout);
  }

  /**
   * Session mode's own counts.
   *
   * @return deferrals, gaps given up, messages applied after waiting
   */
  public SessionEvents events() {
    return events;
  }

  private void resume() {
    synchronized (pumpLock) {
      if (closed) {
        return;
      }
      accepting = true;
      if (threads.isEmpty()) {
        for (int i = 0; i < sessionSettings.maxConcurrentSessions(); i++) {
          Thread thread = new Thread(this::pump, "idemworker-session-" + (i + 1));
          thread.setDaemon(true);
          threads.add(thread);
          thread.start();
        }
      }
      pumpLock.notifyAll();
    }
  }

  private void pause() {
    synchronized (pumpLock) {
      accepting = false;
    }
  }

  private void closePump() {
    List<Thread> running;
    synchronized (pumpLock) {
      closed = true;
      accepting = false;
      pumpLock.notifyAll();
      running = List.copyOf(threads);
    }
    sessions.close();
    try {
      for (Thread thread : running) {
        try {
          thread.join(Duration.ofSeconds(10).toMillis());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    } finally {
      renewals.shutdownNow();
    }
  }

  /** Waits until sessions may be accepted; false once closed. */
  private boolean awaitAccepting() {
    synchronized (pumpLock) {
      while (!accepting && !closed) {
        try {
          pumpLock.wait();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return false;
        }
      }
      return !closed;
    }
  }

  private boolean accepting() {
    synchronized (pumpLock) {
      return accepting && !closed;
    }
  }

  /** One session thread: accept the next session, serve it until idle, release it, repeat. */
  private void pump() {
    while (awaitAccepting()) {
      ServiceBusReceiverClient receiver;
      try {
        receiver = sessions.acceptNextSession();
      } catch (RuntimeException e) {
        if (!accepting()) {
          continue;
        }
        // No session became available within the try timeout, or the link failed: try again.
        LOG.debug("no session accepted ({}); trying again", e.toString());
        try {
          parts.sleeper().sleep(ACCEPT_RETRY.dividedBy(10));
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
        }
        continue;
      }
      SessionLock lock =
          new SessionLock(
              receiver.getSessionId(),
              () -> renew(receiver),
              settings.maxLockRenewal(),
              parts.clock(),
              renewals,
              parts.sleeper());
      try {
        lock.start();
        if (accepting()) {
          serve(new HeldSession(receiver.getSessionId(), receiver, lock, parts), receiver);
        }
      } catch (RuntimeException e) {
        LOG.info(
            "session {} ended early ({}); its messages go back to the queue",
            receiver.getSessionId(),
            e.toString());
      } finally {
        lock.close();
        receiver.close();
      }
    }
  }

  /**
   * One renewal of the session lock; a refusal (the lock is lost) as {@link SessionLock.Refused}.
   */
  private static OffsetDateTime renew(ServiceBusReceiverClient receiver) {
    try {
      return receiver.renewSessionLock();
    } catch (RuntimeException e) {
      for (Throwable t = e; t != null; t = t.getCause()) {
        if (t instanceof ServiceBusException sb
            && sb.getReason() == ServiceBusFailureReason.SESSION_LOCK_LOST) {
          throw new SessionLock.Refused(sb.getReason().toString());
        }
      }
      throw e;
    }
  }

  /**
   * Serves one accepted session: waits up to the idle timeout for its first message, then receives
   * up to {@link #RECEIVE_BATCH} at a time with {@link HeldSession#drainedWait()}, handled strictly
   * one after the other in the order received. A receive that comes back short with no gap open
   * releases the session (its later messages come back to the next holder); the first, idle-bounded
   * wait that receives nothing releases it too. A message that could not be handled (the worker
   * paused or drains) sends the rest of its batch back and releases the session, so nothing behind
   * it runs before it; a lost lock releases it without another call as the holder.
   */
  private void serve(HeldSession session, ServiceBusReceiverClient receiver) {
    session.open();
    boolean delivered = false;
    while (accepting() && !session.lost()) {
      int max = delivered ? RECEIVE_BATCH : 1;
      Duration wait = delivered ? session.drainedWait() : session.nextWait();
      int count = 0;
      boolean stopped = false;
      for (ServiceBusReceivedMessage message : receiver.receiveMessages(max, wait)) {
        count++;
        if (session.lost()) {
          // Not ours to settle any more: it comes back to the session's next holder.
          continue;
        }
        if (stopped) {
          abandonQuietly(receiver, message);
          continue;
        }
        boolean[] ran = {false};
        lifecycle.onDelivery(
            () -> {
              ran[0] = true;
              session.handle(message);
            },
            () -> receiver.abandon(message));
        stopped = !ran[0];
      }
      if (session.lost() || stopped) {
        // Nothing more can be done as this session's holder, or nothing behind an unhandled
        // message may run before it: release the session for the next one.
        return;
      }
      if (count > 0) {
        delivered = true;
      }
      if (count < max && !session.keepWhenIdle()) {
        return;
      }
    }
  }

  private static void abandonQuietly(
      ServiceBusReceiverClient receiver, ServiceBusReceivedMessage message) {
    try {
      receiver.abandon(message);
    } catch (RuntimeException e) {
      // The session is released next: the message comes back to its next holder either way.
      LOG.debug("message {} not abandoned ({})", message.getMessageId(), e.toString());
    }
  }
}
