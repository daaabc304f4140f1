package io.idemworker.emulator.servicebus;

import io.idemworker.emulator.servicebus.EntityStore.Settled;
import io.idemworker.emulator.servicebus.StoredMessage.Snapshot;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.amqp.messaging.Accepted;
import org.apache.qpid.proton.amqp.messaging.Modified;
import org.apache.qpid.proton.amqp.messaging.Rejected;
import org.apache.qpid.proton.amqp.messaging.Released;
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
 * com.microsoft:message-lock-lost}. The injected delivery and disposition delays are applied here.
 *
 * <p>Not thread-safe: confined to its connection's thread. The store wakes it through a listener
 * that only asks the connection to pump, from any thread. After {@link #close()} it gives every
 * lock it holds back and sends nothing more, including messages still waiting out a delivery delay.
 */
final class ConsumerLink {
  private static final Logger LOG = LoggerFactory.getLogger(ConsumerLink.class);
  private static final Symbol LOCK_LOST = Symbol.valueOf(ManagementNode.LOCK_LOST);
  private static final Symbol DEAD_LETTER = Symbol.valueOf("com.microsoft:dead-letter");

  private final Sender sender;
  private final EntityStore store;
  private final boolean receiveAndDelete;
  private final LinkContext context;
  private final Set<UUID> tokens = new HashSet<>();
  // One listener object per link: the store keeps its listeners in a set.
  private final Runnable signal = this::requestPump;

  /** Messages taken on this link's credit that wait out the delivery delay. */
  private int inTransit;

  private boolean closed;

  ConsumerLink(Sender sender, EntityStore store, boolean receiveAndDelete, LinkContext context) {
    this.sender = sender;
    this.store = store;
    this.receiveAndDelete = receiveAndDelete;
    this.context = context;
  }

  Sender sender() {
    return sender;
  }

  /** Registers for the store's wake-ups and opens our end of the link. */
  void open() {
    store.addListener(signal);
    sender.open();
    LOG.debug(
        "connection {}: receiver attached to {} ({})",
        context.remote(),
        store.path(),
        receiveAndDelete ? "receive-and-delete" : "peek-lock");
  }

  /** Stops the store's wake-ups and gives back every lock this link holds. Idempotent. */
  void close() {
    closed = true;
    store.removeListener(signal);
    if (!tokens.isEmpty()) {
      store.releaseAll(this, tokens);
      tokens.clear();
    }
  }

  private void requestPump() {
    context.requestPump().run();
  }

  /** Offers available messages on the link's credit, and answers a drain once nothing is due. */
  void pump() {
    Sender s = sender;
    if (s.getLocalState() != EndpointState.ACTIVE || s.getRemoteState() != EndpointState.ACTIVE) {
      return;
    }
    // Link credit is an AMQP uint: proton-j's int reads 2^31 and above as negative. Messages in
    // transit already hold part of it.
    long credit = Integer.toUnsignedLong(s.getCredit()) - inTransit;
    if (credit > 0) {
      int max = (int) Math.min(credit, Integer.MAX_VALUE);
      List<Snapshot> messages = store.take(max, this, receiveAndDelete);
      long delay = messages.isEmpty() ? 0 : context.faults().nextDeliveryDelayNanos();
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
      return; // the link closed meanwhile and gave its locks back
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
    long delay = context.faults().nextDispositionDelayNanos();
    if (delay <= 0) {
      settle(d, token, state);
    } else {
      context.later(delay, () -> settle(d, token, state));
    }
  }

  private void settle(Delivery d, UUID token, DeliveryState state) {
    if (d.isSettled() || d.getLink().getLocalState() == EndpointState.CLOSED) {
      return;
    }
    Settled result;
    DeliveryState answer;
    if (state instanceof Accepted) {
      result = store.complete(token);
      answer = Accepted.getInstance();
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
      result = store.deadLetter(token, reason, description, Map.of());
      answer = new Rejected();
    } else if (state instanceof Modified modified) {
      Map<String, Object> modify = new HashMap<>();
      if (modified.getMessageAnnotations() != null) {
        Map<?, ?> annotations = modified.getMessageAnnotations();
        annotations.forEach((k, v) -> modify.put(String.valueOf(k), v));
      }
      if (Boolean.TRUE.equals(modified.getUndeliverableHere())) {
        result = store.defer(token, modify);
      } else {
        result = store.abandon(token, modify);
      }
      Modified echo = new Modified();
      echo.setDeliveryFailed(modified.getDeliveryFailed());
      echo.setUndeliverableHere(modified.getUndeliverableHere());
      answer = echo;
    } else if (state instanceof Released) {
      result = store.release(token);
      answer = Released.getInstance();
    } else {
      return;
    }
    tokens.remove(token);
    if (result == Settled.LOCK_LOST) {
      LOG.info("connection {}: settlement of lock {} refused: lock lost", context.remote(), token);
      Rejected lost = new Rejected();
      lost.setError(
          new ErrorCondition(
              LOCK_LOST,
              "The lock supplied is invalid. Either the lock expired, or the message has already"
                  + " been removed from the queue."));
      answer = lost;
    }
    AmqpTerms.answer(d, answer);
  }
}
