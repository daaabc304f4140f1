package io.idemworker.relay;

import com.azure.cosmos.CosmosContainer;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import com.fasterxml.jackson.databind.JsonNode;
import io.idemworker.servicebus.WorkerStatus;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes outbox events from the Cosmos DB change feed to a Service Bus topic, at least once.
 *
 * <p><b>A cycle</b> (every {@link RelaySettings#pollInterval()} while the feed has nothing new):
 * hold the lease, read the change feed after the checkpoint page by page, and for each page with
 * {@code outbox} documents: record their ids in the lease document as being sent, send them
 * (MessageId = event id), then move the checkpoint past the page, once the topic accepted every
 * event of it. The checkpoint is the only record of progress: events are never written again (they
 * age out by the {@code ttl} they were created with; see {@link RelayProgress} for reading the
 * progress). All other documents are skipped. A failure anywhere stops the cycle without moving the
 * checkpoint, so the next cycle reads the same page again and sends it again with the same
 * MessageIds: the topic's duplicate detection drops the copies inside its window, idempotent
 * consumers beyond it.
 *
 * <p><b>Keyed by the container.</b> The relay reads the container's partition key path once, at its
 * first cycle: outbox events carry their partition key value in that field (and the relay's lease
 * document carries its own there), so one relay serves any container partitioned by one top-level
 * field. A container it cannot work with (partitioned otherwise, unreadable, refusing the lease
 * document) is a misconfiguration: the relay logs it at ERROR, reports {@link
 * WorkerStatus.State#PAUSED} with the reason (not ready), and tries again with a back-off.
 *
 * <p><b>Several replicas</b>: one holds the lease document (see {@link RelayLease}); the others
 * stand by and take over when it expires, from its checkpoint. A holder that loses the lease stops
 * at its next write.
 *
 * <p><b>Lag</b>: {@link #lag()} is the age of the oldest event this holder has read and not yet
 * published (zero once a cycle drained the feed), measured on the injected clock. Past {@link
 * RelaySettings#lagAlarm()} (half the events' TTL) the relay logs at WARN, once per episode, and
 * {@link #lagAlarm()} says so: events not read before their TTL ends expire unpublished.
 *
 * <p>Thread-safe. Cycles run one at a time on the injected executor. {@link #start()}, {@link
 * #stop(Duration)} and {@link #close()} may be called from any thread.
 */
public final class OutboxRelay implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(OutboxRelay.class);
  private static final Duration MAX_BACKOFF = Duration.ofSeconds(30);

  private final CosmosOutbox outbox;
  private final RelayLease lease;
  private final EventPublisher publisher;
  private final RelaySettings settings;
  private final RelayListener listener;
  private final Clock clock;
  private final ScheduledExecutorService executor;

  private final ReentrantLock cycleLock = new ReentrantLock();
  private final Object progress = new Object();

  // Confined to the cycle (under cycleLock).
  private Optional<RelayLease.Held> held = Optional.empty();
  private Optional<String> position = Optional.empty();
  private int failuresInARow;

  private volatile WorkerStatus status =
      new WorkerStatus(WorkerStatus.State.CREATED, Optional.of("relay not started"));
  private volatile boolean holder;
  private volatile Optional<Instant> oldestUnpublished = Optional.empty();
  private volatile boolean stopping;
  private volatile boolean lagAlarmRaised;
  private ScheduledFuture<?> next;
  private long cyclesStarted;
  private long lastDrainedCycle;

  OutboxRelay(
      CosmosOutbox outbox,
      RelayLease lease,
      EventPublisher publisher,
      RelaySettings settings,
      RelayListener listener,
      Clock clock,
      ScheduledExecutorService executor) {
    this.outbox = Objects.requireNonNull(outbox, "outbox");
    this.lease = Objects.requireNonNull(lease, "lease");
    this.publisher = Objects.requireNonNull(publisher, "publisher");
    this.settings = Objects.requireNonNull(settings, "settings");
    this.listener = Objects.requireNonNull(listener, "listener");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.executor = Objects.requireNonNull(executor, "executor");
  }

  /**
   * A relay over a container and a sender to the topic, setting each event's {@code SessionId} to
   * its partition key value ({@link SessionIdRule#partitionKey()}).
   *
   * @param container the container the events are written to, partitioned by one top-level field;
   *     the lease document lives there too
   * @param sender a sender to {@link RelaySettings#topicName()}; {@link #close()} closes it
   * @param settings the settings
   * @param listener hears what is published, for metrics
   * @param clock judges lease expiry and the lag
   * @param executor runs the cycles; stays the caller's to shut down
   * @return the relay, not started
   */
  public static OutboxRelay create(
      CosmosContainer container,
      ServiceBusSenderClient sender,
      RelaySettings settings,
      RelayListener listener,
      Clock clock,
      ScheduledExecutorService executor) {
    return create(
        container, sender, settings, SessionIdRule.partitionKey(), listener, clock, executor);
  }

  /**
   * A relay over a container and a sender to the topic.
   *
   * @param container the container the events are written to, partitioned by one top-level field;
   *     the lease document lives there too
   * @param sender a sender to {@link RelaySettings#topicName()}; {@link #close()} closes it
   * @param settings the settings
   * @param sessions which {@code SessionId} each event gets
   * @param listener hears what is published, for metrics
   * @param clock judges lease expiry and the lag
   * @param executor runs the cycles; stays the caller's to shut down
   * @return the relay, not started
   */
  public static OutboxRelay create(
      CosmosContainer container,
      ServiceBusSenderClient sender,
      RelaySettings settings,
      SessionIdRule sessions,
      RelayListener listener,
      Clock clock,
      ScheduledExecutorService executor) {
    CosmosOutbox outbox = new CosmosOutbox(container, settings.batchSize());
    return new OutboxRelay(
        outbox,
        new RelayLease(
            container, settings.topicName(), settings.ownerId(), settings.leaseDuration()),
        new ServiceBusEventPublisher(sender, outbox::partitionKeyField, sessions),
        settings,
        listener,
        clock,
        executor);
  }

  /** Starts cycling on the executor. Calling it again, or after {@link #stop}, does nothing. */
  public void start() {
    synchronized (progress) {
      if (next != null || stopping) {
        return;
      }
      status = new WorkerStatus(WorkerStatus.State.RUNNING, Optional.empty());
      next = executor.schedule(this::loop, 0, TimeUnit.MILLISECONDS);
    }
  }

  /**
   * Stops cycling: waits for the cycle in progress (at most {@code timeout}) and gives the lease up
   * so another replica takes over at once. Events already sent but not yet behind the checkpoint
   * are sent again by the next holder. Idempotent.
   *
   * @param timeout how long to wait for the cycle in progress
   * @return true when no cycle was left running
   * @throws InterruptedException when interrupted while waiting
   */
  public boolean stop(Duration timeout) throws InterruptedException {
    synchronized (progress) {
      stopping = true;
      if (next != null) {
        next.cancel(false);
      }
      progress.notifyAll();
    }
    if (!cycleLock.tryLock(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      return false;
    }
    try {
      held.ifPresent(
          h -> {
            try {
              lease.release(h, position, clock.instant());
              LOG.info("relay lease released");
            } catch (RuntimeException e) {
              LOG.info("relay lease not released ({}); it expires on its own", e.getMessage());
            }
          });
      held = Optional.empty();
      holder = false;
      status = new WorkerStatus(WorkerStatus.State.STOPPED, Optional.of("relay stopped"));
      return true;
    } finally {
      cycleLock.unlock();
    }
  }

  /** Stops (waiting up to 10 seconds for a cycle) and closes the sender. Idempotent. */
  @Override
  public void close() {
    try {
      stop(Duration.ofSeconds(10));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      publisher.close();
    }
  }

  /**
   * The relay's state for the readiness probe: running (holding the lease or standing by), paused
   * with the reason while Cosmos DB or the topic refuse it for a configuration reason (no
   * permission, missing topic or container, a container it cannot key its documents in), created or
   * stopped.
   *
   * @return the status
   */
  public WorkerStatus status() {
    return status;
  }

  /**
   * Whether this replica held the lease at the end of its last cycle.
   *
   * @return true when it publishes
   */
  public boolean holdsLease() {
    return holder;
  }

  /**
   * The age of the oldest event this lease holder has read from the feed and not yet published;
   * zero when its last cycle drained the feed. Events written since the last read are not counted
   * until the next cycle reads them (at most one poll interval later).
   *
   * @return the lag, or empty when this replica does not hold the lease
   */
  public Optional<Duration> lag() {
    if (!holder) {
      return Optional.empty();
    }
    return Optional.of(
        oldestUnpublished
            .map(oldest -> Duration.between(oldest, clock.instant()))
            .filter(d -> !d.isNegative())
            .orElse(Duration.ZERO));
  }

  /**
   * Whether the lag has passed {@link RelaySettings#lagAlarm()} (half the events' TTL): unread
   * events are getting close to expiring unpublished, and a person should look at the topic or the
   * relay.
   *
   * @return true while this lease holder's lag is past the alarm
   */
  public boolean lagAlarm() {
    return lag().filter(l -> l.compareTo(settings.lagAlarm()) > 0).isPresent();
  }

  /**
   * Waits until a cycle that started after this call has drained the feed: every event written
   * before the call is then published and behind the checkpoint.
   *
   * @param timeout how long to wait
   * @return true when caught up; false on timeout, or when this replica does not hold the lease
   * @throws InterruptedException when interrupted
   */
  public boolean awaitCaughtUp(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (progress) {
      long target = cyclesStarted + 1;
      while (lastDrainedCycle < target && !stopping) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        TimeUnit.NANOSECONDS.timedWait(progress, left);
      }
      return lastDrainedCycle >= target;
    }
  }

  private void loop() {
    Cycle cycle = runOnce();
    synchronized (progress) {
      if (stopping) {
        return;
      }
      Duration delay =
          cycle == Cycle.FAILED
              ? backoff()
              : cycle == Cycle.MORE ? Duration.ZERO : settings.pollInterval();
      try {
        next = executor.schedule(this::loop, delay.toMillis(), TimeUnit.MILLISECONDS);
      } catch (RejectedExecutionException e) {
        LOG.info("relay executor shut down; relay stops");
      }
    }
  }

  private Duration backoff() {
    Duration delay = settings.pollInterval().multipliedBy(1L << Math.min(failuresInARow, 10));
    return delay.compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : delay;
  }

  /** How a cycle ended. */
  enum Cycle {
    /** The feed is drained: every event read is published and behind the checkpoint. */
    DRAINED,
    /** Stopped early because the relay is stopping; the rest is read by the next holder. */
    MORE,
    /** Another replica holds the lease. */
    STANDBY,
    /** Cosmos DB or the topic failed; nothing after the checkpoint is lost. */
    FAILED
  }

  /**
   * Runs one cycle on the calling thread. Tests call it directly instead of {@link #start()}.
   *
   * @return how it ended
   */
  Cycle runOnce() {
    cycleLock.lock();
    long cycleNumber;
    synchronized (progress) {
      cycleNumber = ++cyclesStarted;
    }
    try {
      if (stopping) {
        return Cycle.MORE;
      }
      Cycle cycle = cycle();
      failuresInARow = 0;
      if (status.state() != WorkerStatus.State.STOPPED) {
        status = new WorkerStatus(WorkerStatus.State.RUNNING, Optional.empty());
      }
      if (cycle == Cycle.DRAINED) {
        synchronized (progress) {
          lastDrainedCycle = cycleNumber;
          progress.notifyAll();
        }
      }
      return cycle;
    } catch (RelayLease.Lost e) {
      LOG.info("relay lease lost to another replica; standing by");
      held = Optional.empty();
      holder = false;
      oldestUnpublished = Optional.empty();
      return Cycle.STANDBY;
    } catch (RelayFailure e) {
      failuresInARow++;
      if (e.kind() == RelayFailure.Kind.MISCONFIGURATION) {
        if (status.state() != WorkerStatus.State.PAUSED || failuresInARow % 10 == 0) {
          LOG.error("relay paused, needs a person: {}", e.getMessage());
        }
        status = new WorkerStatus(WorkerStatus.State.PAUSED, Optional.of(e.getMessage()));
      } else if (failuresInARow == 1 || failuresInARow % 10 == 0) {
        LOG.info("relay cycle failed ({} in a row), retrying: {}", failuresInARow, e.getMessage());
      }
      return Cycle.FAILED;
    } finally {
      checkLag();
      cycleLock.unlock();
    }
  }

  private Cycle cycle() {
    String partitionKeyField = outbox.partitionKeyField();
    Instant now = clock.instant();
    if (held.isEmpty()) {
      held = lease.acquire(now);
      if (held.isEmpty()) {
        holder = false;
        oldestUnpublished = Optional.empty();
        return Cycle.STANDBY;
      }
      position = held.get().continuation();
      holder = true;
      LOG.info(
          "relay lease taken by {}; publishing to {} from {}",
          settings.ownerId(),
          settings.topicName(),
          position.isPresent() ? "its checkpoint" : "the beginning of the change feed");
    } else if (lease.renewalDue(held.get(), now)) {
      held = Optional.of(lease.write(held.get(), position, held.get().sending(), now));
    }
    Iterator<CosmosOutbox.Page> pages = outbox.pagesAfter(position);
    while (pages.hasNext()) {
      if (stopping) {
        return Cycle.MORE;
      }
      page(pages.next(), partitionKeyField);
    }
    oldestUnpublished = Optional.empty();
    return Cycle.DRAINED;
  }

  private void page(CosmosOutbox.Page page, String partitionKeyField) {
    List<OutboxEvent> pending = new ArrayList<>();
    List<OutboxEvent.Malformed> malformed = new ArrayList<>();
    for (JsonNode document : page.documents()) {
      OutboxEvent.Read read = OutboxEvent.read(document, partitionKeyField);
      if (read instanceof OutboxEvent.Pending p) {
        pending.add(p.event());
      } else if (read instanceof OutboxEvent.Malformed m) {
        malformed.add(m);
      }
    }
    RelayLease.Held current = held.orElseThrow();
    Optional<String> after = Optional.ofNullable(page.continuation()).or(() -> position);
    if (pending.isEmpty() && malformed.isEmpty()) {
      position = after;
      Instant now = clock.instant();
      if (lease.renewalDue(current, now)) {
        held = Optional.of(lease.write(current, position, List.of(), now));
      }
      return;
    }
    pending.stream()
        .map(OutboxEvent::createdAt)
        .min(Instant::compareTo)
        .ifPresent(oldest -> oldestUnpublished = Optional.of(oldest));
    for (OutboxEvent.Malformed m : malformed) {
      unpublishable(m.id(), m.partitionKey(), m.problem());
    }
    if (!pending.isEmpty()) {
      publish(current, pending);
    }
    Instant now = clock.instant();
    held = Optional.of(lease.write(held.orElseThrow(), after, List.of(), now));
    position = after;
    oldestUnpublished = Optional.empty();
  }

  private void publish(RelayLease.Held current, List<OutboxEvent> pending) {
    List<String> ids = pending.stream().map(OutboxEvent::id).toList();
    Set<String> sentBefore = new HashSet<>(current.sending());
    // Fenced by the lease: a replica that lost it stops here, before sending anything.
    held = Optional.of(lease.write(current, position, ids, clock.instant()));
    List<EventPublisher.Rejected> rejected;
    try {
      rejected = publisher.publish(pending);
    } catch (RelayFailure e) {
      notifyFailed(
          e.kind() == RelayFailure.Kind.MISCONFIGURATION ? "misconfiguration" : "transient",
          pending.size());
      throw e;
    }
    Set<String> rejectedIds = new HashSet<>();
    for (EventPublisher.Rejected r : rejected) {
      rejectedIds.add(r.event().id());
      unpublishable(r.event().id(), r.event().partitionKey(), r.problem());
    }
    Map<String, int[]> byType = new LinkedHashMap<>();
    for (OutboxEvent event : pending) {
      if (rejectedIds.contains(event.id())) {
        continue;
      }
      int[] counts = byType.computeIfAbsent(event.eventType(), k -> new int[2]);
      counts[0]++;
      if (sentBefore.contains(event.id())) {
        counts[1]++;
      }
    }
    byType.forEach((type, counts) -> notifyPublished(type, counts[0], counts[1]));
  }

  private void checkLag() {
    boolean over = lagAlarm();
    if (over && !lagAlarmRaised) {
      LOG.warn(
          "relay lag {} is past its alarm {} (half the events' TTL {}): events not published"
              + " before their TTL ends expire unpublished; check the topic and the relay",
          lag().orElse(Duration.ZERO),
          settings.lagAlarm(),
          settings.eventTtl());
    } else if (!over && lagAlarmRaised) {
      LOG.info("relay lag back under its alarm {}", settings.lagAlarm());
    }
    lagAlarmRaised = over;
  }

  private void unpublishable(String id, String partitionKey, String problem) {
    LOG.warn(
        "outbox event {} in partition {} can never be published, marked unpublishable: {}",
        id,
        partitionKey,
        problem);
    outbox.markUnpublishable(id, partitionKey, problem, clock.instant());
    notifyFailed("unpublishable", 1);
  }

  private void notifyFailed(String reason, int count) {
    try {
      listener.publishFailed(reason, count);
    } catch (RuntimeException e) {
      LOG.warn("a relay listener failed", e);
    }
  }

  private void notifyPublished(String eventType, int count, int republished) {
    try {
      listener.published(eventType, count, republished);
    } catch (RuntimeException e) {
      LOG.warn("a relay listener failed", e);
    }
  }
}
