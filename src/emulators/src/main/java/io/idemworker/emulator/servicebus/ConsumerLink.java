package io.idemworker.emulator.servicebus;

import io.idemworker.emulator.servicebus.EntityStore.Settled;
import io.idemworker.emulator.servicebus.StoredMessage.Snapshot;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.qpid.proton.amqp.Binary;
import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.amqp.messaging.Accepted;
import org.apache.qpid.proton.amqp.messaging.Modified;
import org.apache.qpid.proton.amqp.messaging.Outcome;
import org.apache.qpid.proton.amqp.messaging.Rejected;
import org.apache.qpid.proton.amqp.messaging.Released;
import org.apache.qpid.proton.amqp.messaging.Source;
import org.apache.qpid.proton.amqp.transaction.TransactionalState;
import org.apache.qpid.proton.amqp.transport.AmqpError;
import org.apache.qpid.proton.amqp.transport.DeliveryState;
import org.apache.qpid.proton.amqp.transport.ErrorCondition;
import org.apache.qpid.proton.engine.Delivery;
import org.apache.qpid.proton.engine.EndpointState;
import org.apache.qpid.proton.engine.Sender;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One link on which a client receives from a queue or subscription (our {@link Sender}): it takes
 * messages from the {@link EntityStore} on the link's credit, sends them, honours drain, holds the
 * locks of the messages it sent in peek-lock mode, and settles them as the client's dispositions
 * say (complete, dead-letter, abandon, defer, release), answering a lost lock with {@code
 * com.microsoft:message-lock-lost}, or on a session receiver whose session lock ended with {@code
 * com.microsoft:session-lock-lost}: at once, also for a disposition that crosses the link's detach.
 * The injected delivery and disposition delays are applied here.
 *
 * <p>Not thread-safe: confined to its connection's thread. The store wakes it through a listener
 * that only asks the connection to pump, from any thread. After {@link #close()} it sends nothing
 * more, including messages still waiting out a delivery delay; the locks it held run out on the
 * store's clock.
 */
final class ConsumerLink {
  private static final Logger LOG = LoggerFactory.getLogger(ConsumerLink.class);
  private static final Symbol LOCK_LOST = Symbol.valueOf(ManagementNode.LOCK_LOST);
  private static final Symbol DEAD_LETTER = Symbol.valueOf("com.microsoft:dead-letter");
  static final Symbol SESSION_FILTER = Symbol.valueOf("com.microsoft:session-filter");
  static final Symbol LOCKED_UNTIL_UTC = Symbol.valueOf("com.microsoft:locked-until-utc");
  private static final Symbol LINK_TIMEOUT = Symbol.valueOf("com.microsoft:timeout");
  private static final Symbol SESSION_LOCK_LOST = Symbol.valueOf("com.microsoft:session-lock-lost");
  private static final Symbol SESSION_CANNOT_BE_LOCKED =
      Symbol.valueOf("com.microsoft:session-cannot-be-locked");
  private static final Symbol TIMEOUT = Symbol.valueOf("com.microsoft:timeout");
  private static final long DEFAULT_ACCEPT_TIMEOUT_MILLIS = 60_000;
  private static final long DOTNET_EPOCH_TICKS = 621_355_968_000_000_000L;

  private final Sender sender;
  private final EntityStore store;
  private final boolean receiveAndDelete;
  private final LinkContext context;
  private final Set<UUID> tokens = new HashSet<>();
  private final Transactions transactions;
  // One listener object per link: the store keeps its listeners in a set.
  private final Runnable signal = this::requestPump;

  /** Messages taken on this link's credit that wait out the delivery delay. */
  private int inTransit;

  private boolean closed;

  /** Whether this is a session receiver (its attach carried a session filter). */
  private final boolean sessionful;

  /** The session asked for by name, or null for the next available one. */
  private final String requestedSession;

  /** The session whose lock this link holds, once accepted. */
  private String sessionId;

  /** A session receiver waiting for a session to become available; not yet attached. */
  private boolean waitingForSession;

  /**
   * A receiver link.
   *
   * @param sessionful whether the client asked for a session receiver
   * @param requestedSession the session named in the filter, or null for the next available one
   */
  ConsumerLink(
      Sender sender,
      EntityStore store,
      boolean receiveAndDelete,
      LinkContext context,
      boolean sessionful,
      String requestedSession,
      Transactions transactions) {
    this.sender = sender;
    // A disposition can arrive after the link left the connection's table (the client's detach
    // crossed ours): the connection finds its consumer here to answer it.
    sender.setContext(this);
    this.store = store;
    this.receiveAndDelete = receiveAndDelete;
    this.context = context;
    this.sessionful = sessionful;
    this.requestedSession = requestedSession;
    this.transactions = transactions;
  }

  EntityStore store() {
    return store;
  }

  Sender sender() {
    return sender;
  }

  /**
   * Registers for the store's wake-ups and opens our end of the link. A session receiver first
   * accepts its session: a named one that another receiver holds is refused with {@code
   * com.microsoft:session-cannot-be-locked}; when no session is available it waits, unanswered,
   * until one is or the link's {@code com.microsoft:timeout} (60 s by default) passes, then is
   * refused with {@code com.microsoft:timeout}, as the service does.
   */
  void open() {
    store.addListener(signal);
    if (sessionful) {
      if (!tryAcceptSession()) {
        if (requestedSession != null) {
          refuse(
              SESSION_CANNOT_BE_LOCKED,
              "The requested session '"
                  + requestedSession
                  + "' cannot be accepted. It may be locked by another receiver.");
        } else {
          waitingForSession = true;
          context.later(acceptTimeoutNanos(), this::giveUpWaiting);
        }
      }
      return;
    }
    sender.open();
    LOG.debug(
        "connection {}: receiver attached to {} ({})",
        context.remote(),
        store.path(),
        receiveAndDelete ? "receive-and-delete" : "peek-lock");
  }

  /**
   * Stops the store's wake-ups and detaches the locks this link holds: they stay until their
   * LockDuration ends, as on the service (see {@link EntityStore#detachLocks}); a session receiver
   * releases its session, which another receiver may accept at once. Idempotent.
   */
  void close() {
    closed = true;
    waitingForSession = false;
    store.removeListener(signal);
    if (sessionId != null) {
      store.sessions().release(sessionId, this);
      tokens.clear();
      return;
    }
    if (!tokens.isEmpty()) {
      store.detachLocks(this, tokens);
      tokens.clear();
    }
  }

  private void requestPump() {
    context.requestPump().run();
  }

  private boolean tryAcceptSession() {
    Optional<EntitySessions.SessionLock> lock = store.sessions().accept(requestedSession, this);
    if (lock.isEmpty()) {
      return false;
    }
    sessionId = lock.get().sessionId();
    waitingForSession = false;
    Source source =
        sender.getRemoteSource() instanceof Source remote ? (Source) remote.copy() : new Source();
    Map<Symbol, Object> filter = new HashMap<>();
    if (source.getFilter() != null) {
      for (Object e : source.getFilter().entrySet()) {
        Map.Entry<?, ?> entry = (Map.Entry<?, ?>) e;
        filter.put((Symbol) entry.getKey(), entry.getValue());
      }
    }
    filter.put(SESSION_FILTER, sessionId);
    source.setFilter(filter);
    sender.setSource(source);
    Instant until = lock.get().lockedUntil();
    long ticks = DOTNET_EPOCH_TICKS + until.getEpochSecond() * 10_000_000L + until.getNano() / 100;
    sender.setProperties(Map.of(LOCKED_UNTIL_UTC, ticks));
    sender.open();
    LOG.debug(
        "connection {}: session receiver attached to {} session {}",
        context.remote(),
        store.path(),
        sessionId);
    return true;
  }

  private long acceptTimeoutNanos() {
    Map<Symbol, Object> props = sender.getRemoteProperties();
    Object v = props == null ? null : props.get(LINK_TIMEOUT);
    long millis = v instanceof Number n && n.longValue() > 0 ? n.longValue() : -1;
    if (v instanceof org.apache.qpid.proton.amqp.UnsignedInteger u) {
      millis = u.longValue();
    }
    return TimeUnit.MILLISECONDS.toNanos(millis > 0 ? millis : DEFAULT_ACCEPT_TIMEOUT_MILLIS);
  }

  private void giveUpWaiting() {
    if (waitingForSession && !closed) {
      waitingForSession = false;
      refuse(TIMEOUT, "No session is available to accept on " + store.path() + ".");
    }
  }

  private void refuse(Symbol condition, String description) {
    LOG.info(
        "connection {}: session receiver on {} refused: {}",
        context.remote(),
        store.path(),
        condition);
    AmqpTerms.refuse(sender, new ErrorCondition(condition, description));
  }

  /** Offers available messages on the link's credit, and answers a drain once nothing is due. */
  void pump() {
    Sender s = sender;
    if (waitingForSession && !closed) {
      tryAcceptSession();
    }
    if (s.getLocalState() != EndpointState.ACTIVE || s.getRemoteState() != EndpointState.ACTIVE) {
      return;
    }
    if (detachIfSessionLost()) {
      return;
    }
    // Link credit is an AMQP uint: proton-j's int reads 2^31 and above as negative. Messages in
    // transit already hold part of it.
    long credit = Integer.toUnsignedLong(s.getCredit()) - inTransit;
    if (credit > 0) {
      int max = (int) Math.min(credit, Integer.MAX_VALUE);
      List<Snapshot> messages =
          sessionId != null
              ? store.sessions().take(sessionId, max, this, receiveAndDelete)
              : store.take(max, this, receiveAndDelete);
      long delay = messages.isEmpty() ? 0 : context.faults().nextDeliveryDelayNanos(store.path());
      if (delay <= 0) {
        messages.forEach(this::send);
      } else {
        // Locked now (the lock runs from the take, as on the service), sent after the delay.
        if (!receiveAndDelete) {
          messages.forEach(m -> tokens.add(m.lockToken()));
        }
        inTransit += messages.size();
        context.later(delay, () -> deliverLate(messages));
      }
    }
    // A drain waits for the messages in transit: they are sent on the credit they hold.
    if (s.getDrain() && inTransit == 0 && s.getCredit() > 0) {
      s.drained();
    }
  }

  /**
   * Detaches the link with {@code com.microsoft:session-lock-lost} when it is an attached session
   * receiver whose session lock has ended.
   *
   * @return whether it detached the link now
   */
  boolean detachIfSessionLost() {
    Sender s = sender;
    if (sessionId == null
        || s.getLocalState() != EndpointState.ACTIVE
        || store.sessions().holds(sessionId, this)) {
      return false;
    }
    LOG.info("connection {}: lock on session {} lost; link detached", context.remote(), sessionId);
    s.setCondition(
        new ErrorCondition(
            SESSION_LOCK_LOST,
            "The session lock has expired on the MessageSession. Accept a new MessageSession."));
    s.close();
    return true;
  }

  private void send(Snapshot m) {
    Sender s = sender;
    byte[] bytes = MessageCodec.encodeForDelivery(m, !receiveAndDelete);
    UUID token = receiveAndDelete ? UUID.randomUUID() : m.lockToken();
    Delivery d = s.delivery(MessageCodec.lockTokenToTag(token));
    d.setContext(token);
    s.send(bytes, 0, bytes.length);
    s.advance();
    if (receiveAndDelete) {
      d.settle();
    } else {
      tokens.add(token);
    }
  }

  /** Sends messages whose delivery delay is over, on the connection thread. */
  private void deliverLate(List<Snapshot> messages) {
    inTransit -= messages.size();
    if (closed) {
      return; // the link closed meanwhile; the locks run out on the store's clock
    }
    Sender s = sender;
    boolean active =
        s.getLocalState() == EndpointState.ACTIVE && s.getRemoteState() == EndpointState.ACTIVE;
    for (Snapshot m : messages) {
      if (active && s.getCredit() != 0) {
        send(m);
      } else if (!receiveAndDelete) {
        tokens.remove(m.lockToken());
        store.release(m.lockToken());
      } else {
        LOG.debug(
            "connection {}: a receive-and-delete message in transit lost its credit",
            context.remote());
      }
    }
    pump();
  }

  /** Settles a message as the client's disposition of delivery {@code d} says. */
  void onDisposition(Delivery d) {
    if (d.isSettled() || !(d.getContext() instanceof UUID token)) {
      return;
    }
    DeliveryState state = d.getRemoteState();
    if (state == null) {
      return;
    }
    long delay = context.faults().nextDispositionDelayNanos(store.path());
    if (delay <= 0) {
      settle(d, token, state);
    } else {
      context.later(delay, () -> settle(d, token, state));
    }
  }

  private void settle(Delivery d, UUID token, DeliveryState state) {
    if (d.isSettled()) {
      return;
    }
    if (closed || d.getLink().getLocalState() == EndpointState.CLOSED) {
      settleAfterDetach(d, token);
      return;
    }
    if (state instanceof TransactionalState ts) {
      settleInTransaction(d, token, ts);
      return;
    }
    DeliveryState answer = echo(state);
    if (answer == null) {
      return;
    }
    Settled result = apply(token, state);
    tokens.remove(token);
    if (result == Settled.LOCK_LOST) {
      LOG.info("connection {}: settlement of lock {} refused: lock lost", context.remote(), token);
      answer = lockLost();
    }
    AmqpTerms.answer(d, answer);
  }

  /**
   * A disposition on a link already detached. Dispositions travel on the session, so one the client
   * sent before it saw our detach still arrives; a session receiver's is refused at once with
   * {@code session-lock-lost} (its session lock ended with the link, and a client waiting for the
   * answer would otherwise wait out its timeout). Others are only settled if the client settled
   * them: their locks run out on the store's clock.
   */
  private void settleAfterDetach(Delivery d, UUID token) {
    tokens.remove(token);
    if (sessionId != null) {
      LOG.info(
          "connection {}: settlement on session {} refused: session lock lost",
          context.remote(),
          sessionId);
      AmqpTerms.answer(d, sessionLockLost());
    } else if (d.remotelySettled()) {
      d.settle();
    }
  }

  /**
   * A settlement in a transaction: the lock is checked now, the outcome applied when the
   * transaction commits (see {@link Transactions}); the answer echoes the transactional state.
   */
  private void settleInTransaction(Delivery d, UUID token, TransactionalState ts) {
    Binary txnId = ts.getTxnId();
    DeliveryState outcome = ts.getOutcome() instanceof DeliveryState o ? o : null;
    DeliveryState echo = outcome == null ? null : echo(outcome);
    if (echo == null) {
      AmqpTerms.answer(d, AmqpTerms.rejected(AmqpError.NOT_ALLOWED, "no outcome in transaction"));
      return;
    }
    if (!transactions.isOpen(txnId)) {
      AmqpTerms.answer(d, Transactions.unknown());
      return;
    }
    if (!store.holdsLock(token)) {
      tokens.remove(token);
      AmqpTerms.answer(d, lockLost());
      return;
    }
    transactions.enlist(
        txnId,
        new Transactions.Work() {
          @Override
          public Optional<String> problem() {
            return store.holdsLock(token)
                ? Optional.empty()
                : Optional.of("the lock of a message settled in the transaction was lost");
          }

          @Override
          public void commit() {
            apply(token, outcome);
          }
        });
    TransactionalState answer = new TransactionalState();
    answer.setTxnId(txnId);
    answer.setOutcome((Outcome) echo);
    AmqpTerms.answer(d, answer);
  }

  /** What the broker answers for a settlement it applied; null for a state it ignores. */
  private static DeliveryState echo(DeliveryState state) {
    if (state instanceof Accepted) {
      return Accepted.getInstance();
    } else if (state instanceof Rejected) {
      return new Rejected();
    } else if (state instanceof Modified modified) {
      Modified echo = new Modified();
      echo.setDeliveryFailed(modified.getDeliveryFailed());
      echo.setUndeliverableHere(modified.getUndeliverableHere());
      return echo;
    } else if (state instanceof Released) {
      return Released.getInstance();
    }
    return null;
  }

  /** Applies a settlement outcome to the message locked by {@code token}. */
  private Settled apply(UUID token, DeliveryState state) {
    if (state instanceof Accepted) {
      return store.complete(token);
    } else if (state instanceof Rejected rejected) {
      ErrorCondition error = rejected.getError();
      String reason = null;
      String description = null;
      if (error != null && error.getInfo() != null) {
        reason = AmqpTerms.infoString(error.getInfo(), "DeadLetterReason");
        description = AmqpTerms.infoString(error.getInfo(), "DeadLetterErrorDescription");
      }
      if (error != null && !DEAD_LETTER.equals(error.getCondition()) && reason == null) {
        reason = String.valueOf(error.getCondition());
        description = error.getDescription();
      }
      return store.deadLetter(token, reason, description, Map.of());
    } else if (state instanceof Modified modified) {
      Map<String, Object> modify = new HashMap<>();
      if (modified.getMessageAnnotations() != null) {
        Map<?, ?> annotations = modified.getMessageAnnotations();
        annotations.forEach((k, v) -> modify.put(String.valueOf(k), v));
      }
      return Boolean.TRUE.equals(modified.getUndeliverableHere())
          ? store.defer(token, modify)
          : store.abandon(token, modify);
    }
    return store.release(token);
  }

  /**
   * The answer to a settlement whose lock is gone: {@code session-lock-lost} on a session receiver
   * whose session lock ended (a session message's lock is its session's), else {@code
   * message-lock-lost}.
   */
  private Rejected lockLost() {
    if (sessionId != null && !store.sessions().holds(sessionId, this)) {
      return sessionLockLost();
    }
    Rejected lost = new Rejected();
    lost.setError(
        new ErrorCondition(
            LOCK_LOST,
            "The lock supplied is invalid. Either the lock expired, or the message has already"
                + " been removed from the queue."));
    return lost;
  }

  private static Rejected sessionLockLost() {
    return AmqpTerms.rejected(
        SESSION_LOCK_LOST,
        "The session lock has expired on the MessageSession. Accept a new MessageSession.");
  }
}
