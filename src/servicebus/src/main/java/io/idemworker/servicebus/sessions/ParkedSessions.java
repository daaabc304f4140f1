package io.idemworker.servicebus.sessions;

import com.azure.messaging.servicebus.ServiceBusException;
import com.azure.messaging.servicebus.ServiceBusFailureReason;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusReceiverClient;
import com.azure.messaging.servicebus.ServiceBusSessionReceiverClient;
import com.azure.messaging.servicebus.models.ServiceBusReceiveMode;
import io.idemworker.servicebus.ServiceBusConnection;
import io.idemworker.servicebus.internal.DeadLetterCopies;
import io.idemworker.servicebus.sending.Outgoing;
import io.idemworker.servicebus.sending.ProducerKit;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The operator's side of parking, for a queue in session mode: look at a parked session, release it
 * (its dead-lettered message goes back; the worker then applies the parked ones in sequence), or
 * discard what is parked behind it. Each call accepts the session, so it is made as the session
 * lock holder, as the service requires; while a worker holds the session the call fails with {@link
 * SessionBusy} and can be repeated.
 *
 * <p>Crash-safe in the same way as the worker: a copy is sent before its original is completed, and
 * the parking is cleared from the session state last, so an interrupted release can be run again (a
 * copy sent twice is a duplicate to the worker). Not thread-safe; one call at a time.
 */
public final class ParkedSessions implements AutoCloseable {
  private final ServiceBusConnection connection;
  private final String queue;
  private final ServiceBusSessionReceiverClient sessions;

  /**
   * Opens the operator's clients on a queue.
   *
   * @param connection the namespace
   * @param queue the queue, which requires sessions
   */
  public ParkedSessions(ServiceBusConnection connection, String queue) {
    this.connection = Objects.requireNonNull(connection, "connection");
    this.queue = Objects.requireNonNull(queue, "queue");
    this.sessions =
        connection
            .builder()
            .sessionReceiver()
            .queueName(queue)
            .receiveMode(ServiceBusReceiveMode.PEEK_LOCK)
            .disableAutoComplete()
            .buildClient();
  }

  /** A worker holds the session now; try again in a moment. */
  public static final class SessionBusy extends RuntimeException {
    private static final long serialVersionUID = 1L;

    SessionBusy(String sessionId, Throwable cause) {
      super("a worker holds session " + sessionId + " now; try again", cause);
    }
  }

  /**
   * What a parked session looks like.
   *
   * @param sessionId the session
   * @param reason the dead-letter reason that parked it
   * @param messageId the dead-lettered message
   * @param since when it was parked
   * @param behind the sequence numbers parked behind it, in sequence
   * @param waitingForVersion status changes deferred for a missing version (sequence numbers)
   */
  public record Parking(
      String sessionId,
      String reason,
      String messageId,
      Instant since,
      List<Long> behind,
      List<Long> waitingForVersion) {}

  /**
   * One message released or discarded.
   *
   * @param messageId its id
   * @param subject its subject
   * @param sequenceNumber its sequence number before
   */
  public record Moved(String messageId, String subject, long sequenceNumber) {}

  /**
   * Looks at a session's state.
   *
   * @param sessionId the session
   * @return the parking, empty when the session is not parked
   * @throws SessionBusy when a worker holds the session
   */
  public Optional<Parking> look(String sessionId) {
    try (ServiceBusReceiverClient session = accept(sessionId)) {
      return parking(sessionId, SessionState.read(stateOf(sessionId, session)));
    }
  }

  /**
   * Releases a parked session: resubmits its dead-lettered message (found in the dead-letter queue
   * by MessageId and SessionId; the call reads the whole dead-letter queue, holding each message's
   * lock until it ends, then abandons the others). When the copy goes through, the worker ends the
   * parking itself and applies the parked messages in sequence (they never leave the session, so no
   * copy of them can be dropped by duplicate detection); when it fails again, the session stays
   * parked.
   *
   * @param sessionId the session
   * @param wait how long to wait for each batch of the dead-letter queue
   * @return the parking and whether its dead-lettered message was found and sent back; empty when
   *     the session is not parked
   * @throws SessionBusy when a worker holds the session
   */
  public Optional<Released> release(String sessionId, Duration wait) {
    Optional<Parking> parking = look(sessionId);
    if (parking.isEmpty()) {
      return Optional.empty();
    }
    try (ProducerKit sender =
        new ProducerKit(connection.builder().sender().queueName(queue).buildClient())) {
      return Optional.of(
          new Released(
              parking.get(),
              resubmitDeadLettered(sessionId, parking.get().messageId(), sender, wait)));
    }
  }

  /**
   * What {@link #release} did.
   *
   * @param parking the parking it released
   * @param resubmitted the dead-lettered message sent back; empty when it was not in the
   *     dead-letter queue (resubmitted or removed before)
   */
  public record Released(Parking parking, Optional<Moved> resubmitted) {}

  /**
   * Drops what is parked behind a session's dead-lettered message and clears the parking; the
   * dead-lettered message stays in the dead-letter queue.
   *
   * @param sessionId the session
   * @return what was dropped, for the operator's record; empty when the session was not parked
   * @throws SessionBusy when a worker holds the session
   */
  public List<Moved> discard(String sessionId) {
    List<Moved> dropped = new ArrayList<>();
    try (ServiceBusReceiverClient session = accept(sessionId)) {
      SessionState state = SessionState.read(stateOf(sessionId, session));
      if (state.parked().isEmpty()) {
        return dropped;
      }
      for (SessionState.Waiting waiting : state.parked().get().behind()) {
        Optional<ServiceBusReceivedMessage> found =
            receiveDeferred(session, waiting.sequenceNumber());
        if (found.isPresent()) {
          session.complete(found.get());
          dropped.add(moved(found.get()));
        }
      }
      session.setSessionState(state.withParked(Optional.empty()).write());
    }
    return dropped;
  }

  @Override
  public void close() {
    sessions.close();
  }

  /**
   * The session's state; a session lock lost between the accept and this read (a worker took the
   * session over) is {@link SessionBusy}, to be repeated, as a session a worker holds is.
   */
  private static byte[] stateOf(String sessionId, ServiceBusReceiverClient session) {
    try {
      return session.getSessionState();
    } catch (com.azure.messaging.servicebus.ServiceBusException e) {
      if (e.getReason()
          == com.azure.messaging.servicebus.ServiceBusFailureReason.SESSION_LOCK_LOST) {
        throw new SessionBusy(sessionId, e);
      }
      throw e;
    }
  }

  private ServiceBusReceiverClient accept(String sessionId) {
    try {
      return sessions.acceptSession(sessionId);
    } catch (RuntimeException e) {
      throw new SessionBusy(sessionId, e);
    }
  }

  private static Optional<Parking> parking(String sessionId, SessionState state) {
    return state
        .parked()
        .map(
            p ->
                new Parking(
                    sessionId,
                    p.reason(),
                    p.messageId(),
                    p.since(),
                    p.behind().stream().map(SessionState.Waiting::sequenceNumber).toList(),
                    state.waiting().stream().map(SessionState.Waiting::sequenceNumber).toList()));
  }

  private Optional<Moved> resubmitDeadLettered(
      String sessionId, String messageId, ProducerKit sender, Duration wait) {
    List<ServiceBusReceivedMessage> others = new ArrayList<>();
    try {
      try (ServiceBusReceiverClient deadLetters = deadLetterReceiver()) {
        // Read to the end before acting: a batch can end before every message it asked for has
        // arrived, and one that arrives after the last read would stay locked (invisible to the
        // next release) until its lock expired.
        ServiceBusReceivedMessage match = null;
        boolean any = true;
        while (any) {
          any = false;
          for (ServiceBusReceivedMessage message : deadLetters.receiveMessages(100, wait)) {
            any = true;
            if (match == null
                && messageId.equals(message.getMessageId())
                && sessionId.equals(message.getSessionId())) {
              match = message;
            } else {
              others.add(message);
            }
          }
        }
        if (match == null) {
          return Optional.empty();
        }
        sender.send(copy(match, sessionId));
        deadLetters.complete(match);
        return Optional.of(moved(match));
      }
    } finally {
      // After the receiving link is closed: abandoned on it, they could come straight back to it
      // (the last, empty read leaves credit) and stay locked, as with resubmit.
      DeadLetterCopies.abandonByLockToken(connection, queue, others);
    }
  }

  private ServiceBusReceiverClient deadLetterReceiver() {
    return DeadLetterCopies.deadLetterReceiver(connection, queue);
  }

  private static Outgoing copy(ServiceBusReceivedMessage message, String sessionId) {
    return DeadLetterCopies.copyOf(message).withSessionId(sessionId);
  }

  private static Moved moved(ServiceBusReceivedMessage message) {
    return new Moved(
        Optional.ofNullable(message.getMessageId()).orElse(""),
        Optional.ofNullable(message.getSubject()).orElse(""),
        message.getSequenceNumber());
  }

  private static Optional<ServiceBusReceivedMessage> receiveDeferred(
      ServiceBusReceiverClient session, long sequenceNumber) {
    try {
      return Optional.ofNullable(session.receiveDeferredMessage(sequenceNumber));
    } catch (ServiceBusException e) {
      if (e.getReason() == ServiceBusFailureReason.MESSAGE_NOT_FOUND) {
        return Optional.empty();
      }
      throw e;
    }
  }
}
