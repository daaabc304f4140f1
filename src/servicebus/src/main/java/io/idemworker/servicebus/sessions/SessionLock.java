package io.idemworker.servicebus.sessions;

import io.idemworker.core.DeliveryLock;
import io.idemworker.servicebus.ProcessorSettings;
import io.idemworker.servicebus.internal.Sleeper;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An accepted session's lock, renewed by the worker itself so that it knows the lock's end: every
 * message of the session is fenced by it ({@link DeliveryLock}). The SDK renews a session lock on
 * its own only out of sight (it neither reports a refused renewal nor exposes the end it reached),
 * so {@link SessionWorker} switches that renewal off and renews here: once at acceptance (the
 * answer is the first known end), then at the end less half of what is left, at most 10 s before it
 * (as the SDK schedules its own), until {@link ProcessorSettings#maxLockRenewal()} has passed since
 * acceptance, the same bound the SDK would apply. A step that needs more than is left asks for the
 * next renewal at once instead of waiting for its turn.
 *
 * <p>A renewal the service refuses ({@link Refused}: the session lock is already lost) ends the
 * lock at once. Any other failure (a timeout, a dropped connection) leaves the end where it was and
 * is retried after {@link #RETRY} while the lock lasts; the lock is gone when that end passes. With
 * {@code maxLockRenewal} zero nothing is renewed, and the end is the one the service stamped on the
 * messages it delivered in the session ({@link #observe}).
 *
 * <p>{@link #holdFor} waits, polling, while a renewal is due or in flight and the lock has less
 * left than asked for; it waits at most until the lock ends (or, before the first answer, {@link
 * #FIRST_ANSWER_WAIT}). Thread-safe; never throws.
 */
final class SessionLock implements DeliveryLock, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SessionWorker.class);

  /** How often a waiting handler looks for the renewal. */
  static final Duration POLL = Duration.ofMillis(100);

  /** The longest lead of a renewal before the lock's end. */
  static final Duration MAX_LEAD = Duration.ofSeconds(10);

  /** The wait before a renewal that failed (other than refused) is tried again. */
  static final Duration RETRY = Duration.ofSeconds(1);

  /** How long a handler waits for the first renewal's answer when it has none yet. */
  static final Duration FIRST_ANSWER_WAIT = Duration.ofSeconds(30);

  /** Renews the session lock once, through the receiver that holds it. */
  @FunctionalInterface
  interface Renewal {
    /**
     * Renews.
     *
     * @return the lock's new end, by the service's clock
     * @throws Refused when the service answers that the session lock is lost
     * @throws RuntimeException for a failure that may pass
     */
    OffsetDateTime renew();
  }

  /** The service refused a renewal: the session lock is lost. No stack trace (not an error). */
  static final class Refused extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Refused(String message) {
      super(message, null, false, false);
    }
  }

  private final String sessionId;
  private final Renewal renewal;
  private final Instant renewalsEnd;
  private final boolean renews;
  private final Clock clock;
  private final ScheduledExecutorService scheduler;
  private final Sleeper sleeper;
  private final Object guard = new Object();

  /** The lock's end as last learnt; null until the first renewal answers or a message shows it. */
  private volatile Instant end;

  private volatile boolean gone;
  private boolean closed; // guarded
  private boolean inFlight; // guarded
  private boolean retrying; // guarded: the scheduled renewal is a retry after a failure
  private ScheduledFuture<?> next; // guarded

  /**
   * The lock of a session accepted now; nothing is renewed until {@link #start}.
   *
   * @param sessionId for logs
   * @param renewal renews once
   * @param maxRenewal how long after acceptance renewals go on; zero renews nothing
   * @param clock the worker's clock (the end is the service's: {@link
   *     io.idemworker.core.Change.TwoPhase#CALL_MARGIN} absorbs the difference)
   * @param scheduler runs the renewals (they block for a round trip)
   * @param sleeper waits between looks
   */
  SessionLock(
      String sessionId,
      Renewal renewal,
      Duration maxRenewal,
      Clock clock,
      ScheduledExecutorService scheduler,
      Sleeper sleeper) {
    this.sessionId = Objects.requireNonNull(sessionId, "sessionId");
    this.renewal = Objects.requireNonNull(renewal, "renewal");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.renewalsEnd = clock.instant().plus(maxRenewal);
    this.renews = !maxRenewal.isZero();
    this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
    this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
  }

  /** Renews once at once (when renewals are on), which tells the first end. */
  void start() {
    if (renewalsOn(clock.instant())) {
      renewSoon(Duration.ZERO);
    }
  }

  /**
   * A lock end the service stamped on a message it delivered in this session: the session's end at
   * the delivery, so a floor for it. Used only while renewals are off (else the renewals' own
   * answers are the ends).
   *
   * @param lockedUntil the message's lock end; null is ignored
   */
  void observe(OffsetDateTime lockedUntil) {
    if (lockedUntil == null || renews) {
      return;
    }
    raiseEnd(lockedUntil.toInstant());
  }

  @Override
  public Optional<Duration> holdFor(Duration needed) {
    Instant now = clock.instant();
    Instant known = end;
    Duration horizon =
        known == null ? FIRST_ANSWER_WAIT : Duration.between(now, known).plus(FIRST_ANSWER_WAIT);
    long looks = Math.max(0, horizon.toMillis()) / POLL.toMillis();
    Instant firstAnswerBy = now.plus(FIRST_ANSWER_WAIT);
    for (long look = 0; look <= looks + 1; look++) {
      if (gone || isClosed()) {
        return Optional.empty();
      }
      now = clock.instant();
      known = end;
      if (known == null) {
        if (!renewalDue() || !now.isBefore(firstAnswerBy)) {
          return Optional.empty();
        }
      } else {
        if (!now.isBefore(known)) {
          gone = true;
          return Optional.empty();
        }
        if (!now.plus(needed).isAfter(known)) {
          return Optional.of(Duration.between(now, known));
        }
        if (!renewalsOn(now)) {
          // It ends before `needed` has passed, and nothing renews it any more.
          return Optional.empty();
        }
        renewEarly();
      }
      try {
        sleeper.sleep(POLL);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return Optional.empty();
      }
    }
    return Optional.empty();
  }

  /**
   * Whether the lock is known to be gone: a renewal was refused, or its end passed.
   *
   * @return true once gone (it never comes back)
   */
  boolean lost() {
    Instant known = end;
    return gone || (known != null && !clock.instant().isBefore(known));
  }

  /**
   * Whether this lock is renewed past {@code instant}: it is not lost, and renewals go on until
   * then. A wait that ends before then keeps the lock.
   *
   * @param instant by the worker's clock
   * @return true when the lock is renewed past it
   */
  boolean renewedPast(Instant instant) {
    return renews && !lost() && !isClosed() && renewalsEnd.isAfter(instant);
  }

  /** Stops renewing: the session is released. The lock answers gone from now on. */
  @Override
  public void close() {
    synchronized (guard) {
      closed = true;
      if (next != null) {
        next.cancel(false);
        next = null;
      }
    }
  }

  private boolean isClosed() {
    synchronized (guard) {
      return closed;
    }
  }

  private boolean renewalsOn(Instant at) {
    return renewalsEnd.isAfter(at);
  }

  private boolean renewalDue() {
    synchronized (guard) {
      return !closed && (inFlight || next != null);
    }
  }

  /** Pulls the next renewal forward to now, unless it is a retry (that keeps its pace). */
  private void renewEarly() {
    synchronized (guard) {
      if (retrying) {
        return;
      }
    }
    renewSoon(Duration.ZERO);
  }

  /** Schedules the next renewal after {@code delay}, or sooner than one already scheduled. */
  private void renewSoon(Duration delay) {
    synchronized (guard) {
      if (closed || gone || inFlight) {
        return;
      }
      if (next != null) {
        if (next.getDelay(TimeUnit.NANOSECONDS) <= delay.toNanos()) {
          return;
        }
        next.cancel(false);
      }
      try {
        next = scheduler.schedule(this::renewOnce, delay.toNanos(), TimeUnit.NANOSECONDS);
      } catch (RejectedExecutionException e) {
        // The worker is closing: nothing renews any more, the end stays where it is.
        next = null;
      }
    }
  }

  private void renewOnce() {
    synchronized (guard) {
      if (closed || gone) {
        next = null;
        return;
      }
      next = null;
      inFlight = true;
    }
    Duration after = null;
    boolean failed = false;
    try {
      Instant until = renewal.renew().toInstant();
      raiseEnd(until);
      Instant now = clock.instant();
      Duration left = Duration.between(now, until);
      Duration lead = left.dividedBy(2).compareTo(MAX_LEAD) < 0 ? left.dividedBy(2) : MAX_LEAD;
      Instant at = until.minus(lead);
      if (renewalsOn(at)) {
        after = Duration.between(now, at);
      }
    } catch (Refused e) {
      gone = true;
      LOG.info(
          "session {}: lock renewal refused ({}); the lock is lost", sessionId, e.getMessage());
    } catch (RuntimeException e) {
      failed = true;
      Instant now = clock.instant();
      Instant known = end;
      if (renewalsOn(now) && (known == null || now.plus(RETRY).isBefore(known))) {
        after = RETRY;
      }
      LOG.info(
          "session {}: lock renewal failed ({}); {}",
          sessionId,
          e.toString(),
          after == null ? "the lock ends at " + known : "trying again");
    } finally {
      synchronized (guard) {
        inFlight = false;
        retrying = failed;
      }
    }
    if (after != null) {
      renewSoon(after.isNegative() ? Duration.ZERO : after);
    }
  }

  private void raiseEnd(Instant until) {
    synchronized (guard) {
      Instant known = end;
      if (known == null || until.isAfter(known)) {
        end = until;
      }
    }
  }
}
