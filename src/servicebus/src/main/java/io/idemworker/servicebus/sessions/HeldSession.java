package io.idemworker.servicebus.sessions;

import com.azure.messaging.servicebus.ServiceBusException;
import com.azure.messaging.servicebus.ServiceBusFailureReason;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusReceiverClient;
import io.idemworker.core.DeadLetterReason;
import io.idemworker.core.DeliveryObserver;
import io.idemworker.core.IncomingMessage;
import io.idemworker.core.Outcome;
import io.idemworker.servicebus.internal.Deliveries;
import io.idemworker.servicebus.internal.Settlement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * One accepted session, that is one entity's messages, handled one message at a time through the
 * session receiver that holds its lock; every session management call goes through that receiver.
 *
 * <p><b>Sequence of writes.</b> The session state is the only memory, so it is always written
 * before the settlement it describes: a message is recorded as waiting before it is deferred, and a
 * waiting message is marked applied (with the applied version raised) before it is completed. A
 * crash between the two leaves a state that is ahead of the broker, never behind: a recorded
 * message that was not deferred comes back as an active message and is recorded again; a message
 * marked applied that was not completed is run through the flow again when the session is next
 * accepted (a duplicate) and then completed; a recorded message that the broker no longer has is
 * dropped from the state. Nothing is lost, and the flow's idempotency keeps anything from applying
 * twice. The message that fills a gap is settled last, after the waiting ones it released, so that
 * a crash while they apply leaves an active message that brings the session back at once.
 *
 * <p><b>Limit.</b> The broker offers a session to a receiver only while it has an active message:
 * deferred ones do not count. A gap whose session is released (a crash, a shutdown) is looked at
 * again when the session's next message arrives; {@link SessionSettings#gapTimeout()} is then
 * measured from the deferral, so such a gap is given up at once.
 *
 * <p><b>Fenced by the session lock.</b> Every message, active or waiting, runs through the flow
 * with the session's {@link SessionLock}. A message whose lock is gone ends as {@link
 * Outcome.RetryCause#LOCK_LOST}: it settles nothing, the session state is not written any more (the
 * service would refuse both), and {@link #lost()} tells the session thread to release the session;
 * the messages come back to the session's next holder.
 *
 * <p>Not thread-safe: one session thread owns it while it holds the session.
 */
final class HeldSession {

  /** A message whose {@code SessionId} is not the session key its body names. */
  static final DeadLetterReason SESSION_ID_MISMATCH = SessionSettings.SESSION_ID_MISMATCH;

  /**
   * A message parked behind a dead-lettered one past {@link SessionSettings#maxWaiting()} or {@link
   * SessionSettings#maxParkedAge()}.
   */
  static final DeadLetterReason PARKING_BOUND_EXCEEDED =
      new DeadLetterReason("ParkingBoundExceeded");

  /**
   * The wait for more messages of a session that has delivered and has no gap open. Every session
   * pays it once, at its end: the SDK's receive waits its whole time unless the batch fills. It
   * needs to be only long enough for messages the broker already holds, which it sends as soon as
   * the receive's credit reaches it (a few round trips within a region); a message that comes later
   * brings the session back to its next holder. 10 ms, not 50: session mode went from 0.54-0.63 to
   * 0.61-0.66 of plain in {@code bench sessions} (docs/sessions.md).
   */
  static final Duration DRAINED_WAIT = Duration.ofMillis(10);

  private final String sessionId;
  private final ServiceBusReceiverClient receiver;
  private final SessionLock lock;
  private final SessionWorker.Parts parts;
  private SessionState state = SessionState.EMPTY;
  private String written = "";
  private boolean lost;

  HeldSession(
      String sessionId,
      ServiceBusReceiverClient receiver,
      SessionLock lock,
      SessionWorker.Parts parts) {
    this.sessionId = sessionId;
    this.receiver = receiver;
    this.lock = lock;
    this.parts = parts;
  }

  /**
   * Whether the session's lock is gone: a message ended as {@code LOCK_LOST}, a renewal was
   * refused, or the lock's end passed. Nothing more can be done as the session's holder.
   *
   * @return true once lost
   */
  boolean lost() {
    return lost || lock.lost();
  }

  String sessionId() {
    return sessionId;
  }

  /**
   * Reads the state, finishes what a crashed holder left (waiting messages marked applied), and
   * applies whatever became ready or whose gap timed out.
   */
  void open() {
    state = SessionState.read(receiver.getSessionState());
    written = new String(state.write(), java.nio.charset.StandardCharsets.UTF_8);
    for (SessionState.Waiting leftover : state.appliedButWaiting()) {
      if (!applyWaiting(leftover)) {
        return;
      }
    }
    expireParking();
    giveUpExpiredGap();
    drain(false);
  }

  /**
   * How long to wait for the next message: the idle timeout, or less when a gap times out sooner.
   */
  Duration nextWait() {
    Duration idle = parts.sessions().sessionIdleTimeout();
    Optional<Instant> gapSince = state.gapSince();
    if (gapSince.isEmpty()) {
      return idle;
    }
    Duration left =
        Duration.between(
            parts.clock().instant(), gapSince.get().plus(parts.sessions().gapTimeout()));
    if (left.isNegative() || left.isZero()) {
      return Duration.ofMillis(1);
    }
    return left.compareTo(idle) < 0 ? left : idle;
  }

  /**
   * How long to wait for more once the session has delivered: {@link #DRAINED_WAIT} (at most the
   * idle timeout) while no gap is open, else {@link #nextWait()}. A session whose receive then
   * comes back short is released at once instead of being held for the idle timeout; that is safe,
   * as a message that arrives later brings the session back to whoever accepts it next.
   */
  Duration drainedWait() {
    Duration wait = nextWait();
    if (state.gapSince().isPresent()) {
      return wait;
    }
    return DRAINED_WAIT.compareTo(wait) < 0 ? DRAINED_WAIT : wait;
  }

  /**
   * Nothing arrived within {@link #nextWait()}: gives up a gap that timed out.
   *
   * @return true to keep the session (a gap is still open), false to release it
   */
  boolean keepWhenIdle() {
    giveUpExpiredGap();
    return state.gapSince().isPresent();
  }

  /** Handles one active message of this session, then applies the waiting ones it made ready. */
  void handle(ServiceBusReceivedMessage received) {
    long start = System.nanoTime();
    lock.observe(received.getLockedUntil());
    IncomingMessage message;
    try {
      message = Deliveries.toIncoming(received);
    } catch (RuntimeException e) {
      markParked(received, DeadLetterReason.UNREADABLE_BODY);
      deadLetter(
          received,
          DeadLetterReason.UNREADABLE_BODY,
          "the message could not be read: " + e.getClass().getSimpleName());
      return;
    }
    SessionRules.Peeked peeked = parts.rules().peek(message);
    if (peeked.entityId().isPresent() && !peeked.entityId().get().equals(sessionId)) {
      DeliveryObserver.Observation observation = parts.observer().start(message);
      Outcome outcome =
          new Outcome.DeadLettered(
              Optional.empty(),
              peeked.entityId(),
              SESSION_ID_MISMATCH,
              "SessionId must equal the "
                  + parts.sessions().sessionKeyName()
                  + " the body names; a producer in session mode sets SessionId = "
                  + parts.sessions().sessionKeyName());
      boolean settled = settle(received, outcome);
      observation.finish(outcome, Duration.ofNanos(System.nanoTime() - start), settled);
      return;
    }
    expireParking();
    OptionalLong version = peeked.version();
    Optional<SessionState.Parked> parked = state.parked();
    if (parked.isPresent() && !parked.get().messageId().equals(messageIdOf(received))) {
      park(received, message, version, start);
      return;
    }
    giveUpExpiredGap();
    if (version.isPresent() && mustWait(version.getAsLong(), peeked, received)) {
      return;
    }
    DeliveryObserver.Observation observation = parts.observer().start(message);
    Outcome outcome = run(message, received);
    if (lockLost(received, outcome)) {
      observation.finish(outcome, Duration.ofNanos(System.nanoTime() - start), false);
      return;
    }
    if (outcome instanceof Outcome.DeadLettered deadLettered) {
      markParked(received, deadLettered.reason());
    } else if (appliedOrSettledForGood(outcome) && parked.isPresent()) {
      // The message that parked the session came back (released by an operator) and went through.
      unpark();
    }
    if (version.isPresent() && appliedOrSettledForGood(outcome)) {
      state = state.withApplied(version.getAsLong());
    }
    if (appliedOrSettledForGood(outcome)) {
      writeState();
      // The message that fills a gap (or ends a parking) is settled after the ones it released:
      // until then it keeps the session active, so a crash in between brings it back at once.
      drain(false);
    }
    if (lost) {
      // A waiting message it released found the lock gone: this one cannot be settled either.
      observation.finish(outcome, Duration.ofNanos(System.nanoTime() - start), false);
      return;
    }
    boolean settled = settle(received, outcome);
    observation.finish(outcome, Duration.ofNanos(System.nanoTime() - start), settled);
  }

  /**
   * Defers a versioned message whose predecessor has not applied, recording it first; returns false
   * when it may apply now.
   */
  private boolean mustWait(long version, SessionRules.Peeked peeked, ServiceBusReceivedMessage m) {
    if (state.applied().isEmpty()) {
      SessionRules.Stored stored = parts.rules().storedVersion(peeked.versioned().orElseThrow());
      if (stored instanceof SessionRules.Unknown unknown) {
        Outcome retry =
            new Outcome.Retry(
                Optional.empty(),
                peeked.entityId(),
                Outcome.RetryCause.TRANSIENT,
                "the stored version could not be read: " + unknown.failure().description());
        settle(m, retry);
        return true;
      }
      state = state.withApplied(((SessionRules.StoredVersion) stored).version());
    }
    long applied = state.applied().getAsLong();
    if (version <= applied + 1) {
      return false;
    }
    if (state.deferredCount() >= parts.sessions().maxWaiting()) {
      giveUpGap("more than " + parts.sessions().maxWaiting() + " messages waiting");
      return state.applied().getAsLong() + 1 < version && mustWait(version, peeked, m);
    }
    state =
        state.withWaiting(
            new SessionState.Waiting(
                m.getSequenceNumber(), version, parts.clock().instant(), false));
    writeState();
    receiver.defer(m);
    parts.events().deferred(sessionId, version, applied);
    return true;
  }

  private static boolean appliedOrSettledForGood(Outcome outcome) {
    return outcome.fold(p -> true, d -> true, s -> true, dl -> true, r -> false);
  }

  private void giveUpExpiredGap() {
    Optional<Instant> since = state.gapSince();
    if (since.isPresent()
        && !parts.clock().instant().isBefore(since.get().plus(parts.sessions().gapTimeout()))) {
      giveUpGap("waited " + parts.sessions().gapTimeout());
    }
  }

  private void giveUpGap(String why) {
    long missing = state.applied().orElse(0) + 1;
    parts.events().gapGivenUp(sessionId, missing, state.waiting().size(), why);
    drain(true);
  }

  /**
   * Applies the waiting messages that are ready, lowest version first; with {@code force} (a gap
   * given up) every waiting one, lowest version first.
   */
  private void drain(boolean force) {
    if (state.parked().isPresent()) {
      // A parked session applies nothing until an operator releases it.
      writeState();
      return;
    }
    Optional<SessionState.Waiting> next = state.nextReady(force);
    while (next.isPresent() && state.parked().isEmpty()) {
      if (!applyWaiting(next.get())) {
        writeState();
        return;
      }
      next = state.nextReady(force);
    }
    writeState();
  }

  /**
   * Receives one waiting message by its sequence number and runs it through the flow.
   *
   * @return false when it must be retried later (the flow asked for a retry)
   */
  private boolean applyWaiting(SessionState.Waiting waiting) {
    Optional<ServiceBusReceivedMessage> found = receiveDeferred(waiting.sequenceNumber());
    if (found.isEmpty()) {
      // Completed before a crash, or recorded but never deferred (it comes back as an active
      // message), or expired by its time to live: either way nothing waits under this number.
      state = state.without(waiting.sequenceNumber());
      return true;
    }
    ServiceBusReceivedMessage received = found.get();
    long start = System.nanoTime();
    lock.observe(received.getLockedUntil());
    IncomingMessage message;
    try {
      message = Deliveries.toIncoming(received);
    } catch (RuntimeException e) {
      state = state.without(waiting.sequenceNumber());
      writeState();
      deadLetter(
          received,
          DeadLetterReason.UNREADABLE_BODY,
          "the message could not be read: " + e.getClass().getSimpleName());
      return true;
    }
    DeliveryObserver.Observation observation = parts.observer().start(message);
    Outcome outcome = run(message, received);
    if (lockLost(received, outcome)) {
      observation.finish(outcome, Duration.ofNanos(System.nanoTime() - start), false);
      return false;
    }
    if (!appliedOrSettledForGood(outcome)) {
      boolean settled = settle(received, outcome);
      observation.finish(outcome, Duration.ofNanos(System.nanoTime() - start), settled);
      return false;
    }
    state = state.appliedWaiting(waiting);
    if (outcome instanceof Outcome.DeadLettered deadLettered) {
      markParked(received, deadLettered.reason());
    }
    writeState();
    boolean settled = settle(received, outcome);
    observation.finish(outcome, Duration.ofNanos(System.nanoTime() - start), settled);
    if (settled) {
      state = state.without(waiting.sequenceNumber());
      parts.events().appliedAfterWaiting(sessionId, waiting.version());
    }
    return settled;
  }

  /**
   * Runs the flow under the session's lock. A copy that meets another attempt's live lease waits it
   * out while the lock is renewed, and runs the flow again in the same delivery (at most {@link
   * Deliveries#MAX_REHANDLES} times), as the plain worker does, so contested copies do not spend
   * their delivery count.
   */
  private Outcome run(IncomingMessage message, ServiceBusReceivedMessage received) {
    return Deliveries.run(
        parts.consumer(),
        message,
        received,
        lock,
        lock::renewedPast,
        parts.clock(),
        parts.sleeper());
  }

  /**
   * Whether the flow stopped because the session lock is gone; if so, the session is lost from now
   * on (the broker would refuse any settlement or state write; the message comes back to the
   * session's next holder).
   */
  private boolean lockLost(ServiceBusReceivedMessage received, Outcome outcome) {
    if (outcome instanceof Outcome.Retry retry && retry.cause() == Outcome.RetryCause.LOCK_LOST) {
      lost = true;
      parts
          .events()
          .lockLost(
              sessionId,
              messageIdOf(received),
              retry.knownKey().map(io.idemworker.core.IdempotencyKey::value).orElse("unknown"),
              received.getDeliveryCount());
      return true;
    }
    return false;
  }

  private static String messageIdOf(ServiceBusReceivedMessage received) {
    return Optional.ofNullable(received.getMessageId()).orElse("");
  }

  /** Marks the session parked behind {@code received}, written before it is dead-lettered. */
  private void markParked(ServiceBusReceivedMessage received, DeadLetterReason reason) {
    if (state.parked().isPresent()) {
      return;
    }
    state =
        state.withParked(
            Optional.of(
                new SessionState.Parked(
                    reason.code(), messageIdOf(received), parts.clock().instant(), List.of())));
    writeState();
    parts.events().parked(sessionId, messageIdOf(received), reason.code());
  }

  /**
   * Defers a message of a parked session, recording it first; past {@link
   * SessionSettings#maxWaiting()} it is dead-lettered as {@link #PARKING_BOUND_EXCEEDED} instead.
   */
  private void park(
      ServiceBusReceivedMessage received,
      IncomingMessage message,
      OptionalLong version,
      long start) {
    SessionState.Parked parked = state.parked().orElseThrow();
    if (state.deferredCount() >= parts.sessions().maxWaiting()) {
      DeliveryObserver.Observation observation = parts.observer().start(message);
      Outcome outcome =
          new Outcome.DeadLettered(
              Optional.empty(),
              Optional.of(sessionId),
              PARKING_BOUND_EXCEEDED,
              parkedDescription(parked)
                  + "; maxWaiting ("
                  + parts.sessions().maxWaiting()
                  + ") messages already wait");
      boolean settled = settle(received, outcome);
      observation.finish(outcome, Duration.ofNanos(System.nanoTime() - start), settled);
      return;
    }
    List<SessionState.Waiting> behind = new ArrayList<>(parked.behind());
    behind.removeIf(w -> w.sequenceNumber() == received.getSequenceNumber());
    behind.add(
        new SessionState.Waiting(
            received.getSequenceNumber(), version.orElse(0), parts.clock().instant(), false));
    state =
        state.withParked(
            Optional.of(
                new SessionState.Parked(
                    parked.reason(), parked.messageId(), parked.since(), behind)));
    writeState();
    receiver.defer(received);
    parts.events().parkedBehind(sessionId, messageIdOf(received));
  }

  /**
   * Ends the parking: the messages parked behind join the waiting ones (in their sequence, each
   * with its version, 0 for none) and apply as those do.
   */
  private void unpark() {
    SessionState.Parked parked = state.parked().orElseThrow();
    SessionState next = state.withParked(Optional.empty());
    for (SessionState.Waiting behind : parked.behind()) {
      next =
          next.withWaiting(
              new SessionState.Waiting(
                  behind.sequenceNumber(), behind.version(), parts.clock().instant(), false));
    }
    state = next;
    parts.events().released(sessionId, parked.behind().size());
  }

  private static String parkedDescription(SessionState.Parked parked) {
    return "the session is parked since "
        + parked.since()
        + " behind message "
        + parked.messageId()
        + " dead-lettered as "
        + parked.reason();
  }

  /**
   * Past {@link SessionSettings#maxParkedAge()} the messages parked behind a dead-lettered one are
   * dead-lettered as {@link #PARKING_BOUND_EXCEEDED}, and the session runs again.
   */
  private void expireParking() {
    Optional<SessionState.Parked> parked = state.parked();
    if (parked.isEmpty()
        || parts
            .clock()
            .instant()
            .isBefore(parked.get().since().plus(parts.sessions().maxParkedAge()))) {
      return;
    }
    String description =
        parkedDescription(parked.get())
            + ", longer than maxParkedAge ("
            + parts.sessions().maxParkedAge()
            + ")";
    for (SessionState.Waiting waiting : parked.get().behind()) {
      receiveDeferred(waiting.sequenceNumber())
          .ifPresent(m -> deadLetter(m, PARKING_BOUND_EXCEEDED, description));
    }
    state = state.withParked(Optional.empty());
    writeState();
    parts.events().parkingExpired(sessionId, parked.get().behind().size());
  }

  private Optional<ServiceBusReceivedMessage> receiveDeferred(long sequenceNumber) {
    try {
      return Optional.ofNullable(receiver.receiveDeferredMessage(sequenceNumber));
    } catch (ServiceBusException e) {
      if (e.getReason() == ServiceBusFailureReason.MESSAGE_NOT_FOUND || nothingReceived(e)) {
        return Optional.empty();
      }
      throw e;
    } catch (java.util.NoSuchElementException e) {
      return Optional.empty();
    }
  }

  /**
   * The SDK (7.17) answers a sequence number the broker no longer holds (the management reply "not
   * found") with an empty result, and its single-message call then fails with a {@code
   * ServiceBusException} around a {@link java.util.NoSuchElementException} ("Flux#last() didn't
   * observe any onNext signal"), not with {@code MESSAGE_NOT_FOUND}. Taken for an error, it ended
   * the session at once on every accept, for ever: found by {@code chaos --sessions}.
   */
  private static boolean nothingReceived(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof java.util.NoSuchElementException
          || String.valueOf(t.getMessage()).contains("didn't observe any onNext signal")) {
        return true;
      }
    }
    return false;
  }

  /** Writes the state when it differs from what was last written. */
  private void writeState() {
    if (lost) {
      return;
    }
    byte[] bytes = state.write();
    String text = new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
    if (!text.equals(written)) {
      receiver.setSessionState(bytes);
      written = text;
    }
  }

  private boolean settle(ServiceBusReceivedMessage received, Outcome outcome) {
    return parts.settlement().settle(Settlement.of(receiver, received, sessionId), outcome);
  }

  private void deadLetter(ServiceBusReceivedMessage received, DeadLetterReason reason, String why) {
    Settlement.deadLetter(Settlement.of(receiver, received, sessionId), reason, why);
  }
}
