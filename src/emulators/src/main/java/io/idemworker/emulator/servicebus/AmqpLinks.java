package io.idemworker.emulator.servicebus;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.qpid.proton.amqp.DescribedType;
import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.amqp.messaging.Source;
import org.apache.qpid.proton.amqp.transaction.Coordinator;
import org.apache.qpid.proton.amqp.transport.AmqpError;
import org.apache.qpid.proton.amqp.transport.ErrorCondition;
import org.apache.qpid.proton.amqp.transport.SenderSettleMode;
import org.apache.qpid.proton.engine.Delivery;
import org.apache.qpid.proton.engine.EndpointState;
import org.apache.qpid.proton.engine.Link;
import org.apache.qpid.proton.engine.Receiver;
import org.apache.qpid.proton.engine.Sender;
import org.apache.qpid.proton.engine.Session;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The links of one connection: on attach it decides what a link is — a request or reply link of a
 * management node ({@link RequestLinks}), a producer's link to a queue or topic ({@link
 * IncomingTransfers}), a consumer's link from a queue or subscription ({@link ConsumerLink}) — or a
 * transaction coordinator ({@link CoordinatorLinks}) — or refuses it: {@code amqp:not-found} for an
 * unknown entity, {@code amqp:not-allowed} for a session receiver on an entity without sessions and
 * for a plain receiver on one with sessions. It routes the connection's link events (flow,
 * deliveries, detach, session close) to the link they concern.
 *
 * <p>Not thread-safe: confined to its connection's thread. Whenever a consumer link ends — detach,
 * its session's close, the connection's close or end — the locks it holds are detached from it and
 * run out on the store's clock, as on the service.
 */
final class AmqpLinks {
  private static final Logger LOG = LoggerFactory.getLogger(AmqpLinks.class);
  private static final Symbol SESSION_FILTER = ConsumerLink.SESSION_FILTER;

  private final LinkContext context;
  private final Map<Link, ConsumerLink> consumers = new IdentityHashMap<>();
  private final RequestLinks requests;
  private final IncomingTransfers transfers;
  private final Transactions transactions;
  private final CoordinatorLinks coordinators;

  private final ConnectionClaims claims;

  AmqpLinks(LinkContext context) {
    this(context, ConnectionClaims.NONE);
  }

  /**
   * Serves the links of one connection.
   *
   * @param claims what the connection's put-tokens authorised; links outside it are refused
   */
  AmqpLinks(LinkContext context, ConnectionClaims claims) {
    this.context = context;
    this.claims = claims;
    this.transactions = new Transactions(context.remote());
    this.coordinators = new CoordinatorLinks(context.remote(), transactions);
    this.requests =
        new RequestLinks(
            context.remote(), transactions, context.faults(), claims, this::detachLostSessions);
    this.transfers = new IncomingTransfers(context, requests, transactions);
  }

  /** Answers a client's attach: opens our end of the link as what it is, or refuses it. */
  void onAttach(Link link) {
    if (link.getLocalState() != EndpointState.UNINITIALIZED) {
      return;
    }
    link.setSource(link.getRemoteSource());
    link.setTarget(link.getRemoteTarget());
    link.setSenderSettleMode(link.getRemoteSenderSettleMode());
    link.setReceiverSettleMode(link.getRemoteReceiverSettleMode());
    if (link.getRemoteTarget() instanceof Coordinator) {
      if (link instanceof Receiver r) {
        coordinators.attach(r);
      } else {
        refuseUnsupported(link, "Coordinator receivers");
      }
      return;
    }
    if (link instanceof Receiver r) {
      attachIncoming(r);
    } else {
      attachOutgoing((Sender) link);
    }
  }

  private void attachIncoming(Receiver r) {
    String address = AmqpTerms.address(r.getRemoteTarget());
    if ("$cbs".equalsIgnoreCase(address)) {
      requests.attachCbs(r);
      return;
    }
    Optional<ErrorCondition> unauthorized =
        claims.refusal(
            address, RequestLinks.isManagementAddress(address) ? "Manage,EntityRead" : "Send");
    if (unauthorized.isPresent()) {
      refuse(r, unauthorized.get());
      return;
    }
    if (RequestLinks.isManagementAddress(address)) {
      String entity = Broker.normalise(address);
      entity = entity.substring(0, entity.length() - Broker.MANAGEMENT_SUFFIX.length());
      Optional<EntityStore> store = context.broker().resolve(entity);
      if (store.isPresent()) {
        requests.attachManagement(r, store.get());
        return;
      }
      Optional<Topic> topic = context.broker().resolveTopic(entity);
      if (topic.isEmpty()) {
        refuse(r, address);
        return;
      }
      requests.attachTopicManagement(r, topic.get());
      return;
    }
    Optional<MessageSink> sink = context.broker().resolveSink(address);
    if (sink.isEmpty()) {
      refuse(r, address);
      return;
    }
    transfers.attachProducer(r, sink.get());
  }

  private void attachOutgoing(Sender s) {
    String address = AmqpTerms.address(s.getRemoteSource());
    if (RequestLinks.isNodeAddress(address)) {
      requests.attachReply(s);
      return;
    }
    Optional<ErrorCondition> unauthorized = claims.refusal(address, "Listen");
    if (unauthorized.isPresent()) {
      refuse(s, unauthorized.get());
      return;
    }
    Optional<EntityStore> store = context.broker().resolve(address);
    if (store.isEmpty()) {
      refuse(s, address);
      return;
    }
    boolean sessionful =
        s.getRemoteSource() instanceof Source source
            && source.getFilter() != null
            && source.getFilter().containsKey(SESSION_FILTER);
    if (sessionful != store.get().requiresSession()) {
      refuseSessionMismatch(s, store.get(), sessionful);
      return;
    }
    boolean receiveAndDelete = s.getRemoteSenderSettleMode() == SenderSettleMode.SETTLED;
    ConsumerLink c =
        new ConsumerLink(
            s,
            store.get(),
            receiveAndDelete,
            context,
            sessionful,
            sessionful ? requestedSession((Source) s.getRemoteSource()) : null,
            transactions);
    consumers.put(s, c);
    c.open();
  }

  private void refuse(Link link, String address) {
    LOG.warn("connection {}: attach to unknown entity '{}' refused", context.remote(), address);
    refuse(
        link,
        new ErrorCondition(
            AmqpError.NOT_FOUND, "The messaging entity '" + address + "' could not be found."));
  }

  private void refuse(Link link, ErrorCondition condition) {
    AmqpTerms.refuse(link, condition);
  }

  /** The session a session receiver names in its filter; null asks for the next available. */
  private static String requestedSession(Source source) {
    Object v = source.getFilter().get(SESSION_FILTER);
    if (v instanceof DescribedType d) {
      v = d.getDescribed();
    }
    return v == null || v.toString().isEmpty() ? null : v.toString();
  }

  /**
   * Refuses a receiver whose kind (session or not) does not fit the entity, as the service does.
   */
  private void refuseSessionMismatch(Sender s, EntityStore store, boolean sessionful) {
    String text =
        sessionful
            ? "A sessionful message receiver cannot be created on an entity that does not require"
                + " sessions. Ensure RequiresSession is set to true when creating a Queue or"
                + " Subscription to enable sessionful behavior."
            : "It is not possible for an entity that requires sessions to create a non-sessionful"
                + " message receiver.";
    LOG.warn("connection {}: receiver on {} refused: {}", context.remote(), store.path(), text);
    refuse(s, new ErrorCondition(AmqpError.NOT_ALLOWED, text));
  }

  private void refuseUnsupported(Link link, String feature) {
    LOG.warn(
        "connection {}: link '{}' refused: {} not supported",
        context.remote(),
        link.getName(),
        feature);
    refuse(
        link,
        new ErrorCondition(
            AmqpError.NOT_IMPLEMENTED, feature + " are not supported by this emulator."));
  }

  /** Ends a link the client detached or closed; the locks it held run out on the clock. */
  void onDetach(Link link) {
    ConsumerLink c = consumers.get(link);
    if (c != null) {
      close(c);
    }
    requests.detach(link);
    coordinators.detach(link);
    if (link.getLocalState() != EndpointState.CLOSED) {
      link.close();
    }
  }

  /** Ends the consumer links of a session the client closed. */
  void onSessionClosed(Session s) {
    for (ConsumerLink c : new ArrayList<>(consumers.values())) {
      if (c.sender().getSession() == s) {
        close(c);
      }
    }
    coordinators.sessionClosed(s);
  }

  /** The client changed a link's credit or asked for a drain. */
  void onFlow(Link link) {
    ConsumerLink c = consumers.get(link);
    if (c != null) {
      c.pump();
    }
  }

  /** A transfer arrived on an incoming link, or a disposition on an outgoing one. */
  void onDelivery(Delivery d) {
    if (d.getLink() instanceof Receiver r) {
      if (coordinators.isCoordinator(r)) {
        coordinators.onTransfer(r, d);
        return;
      }
      transfers.onTransfer(r, d);
      return;
    }
    ConsumerLink c = consumers.get(d.getLink());
    if (c == null && d.getLink().getContext() instanceof ConsumerLink detached) {
      c = detached; // a disposition sent before the client saw our detach still gets an answer
    }
    if (c == null) {
      if (d.remotelySettled() && !d.isSettled()) {
        d.settle();
      }
      return;
    }
    c.onDisposition(d);
  }

  /**
   * Detaches, as the service does when an entity is deleted, every consumer link reading one of
   * {@code stores}: with {@code amqp:not-found}; its locks end with the store.
   */
  void detachConsumersOf(java.util.Set<EntityStore> stores) {
    for (ConsumerLink c : new ArrayList<>(consumers.values())) {
      if (stores.contains(c.store())) {
        LOG.info(
            "connection {}: receiver on {} detached: the entity was deleted",
            context.remote(),
            c.store().path());
        close(c);
        Sender s = c.sender();
        s.setCondition(
            new ErrorCondition(
                AmqpError.NOT_FOUND,
                "The messaging entity '" + c.store().path() + "' could not be found."));
        s.close();
      }
    }
  }

  /**
   * Detaches now the session receivers whose session lock has ended, and has the connection's
   * transport write their detach frames at once, so that they reach the client before anything
   * queued after (proton-j writes a round's transfers before its detaches).
   */
  private void detachLostSessions() {
    for (ConsumerLink c : new ArrayList<>(consumers.values())) {
      if (c.detachIfSessionLost()) {
        c.sender().getSession().getConnection().getTransport().pending();
      }
    }
  }

  /** Offers available messages on every consumer link. */
  void pumpAll() {
    for (ConsumerLink c : new ArrayList<>(consumers.values())) {
      c.pump();
    }
  }

  /** Ends every consumer link; the locks this connection holds run out on the clock. */
  void endAll() {
    for (ConsumerLink c : new ArrayList<>(consumers.values())) {
      close(c);
    }
    transactions.rollbackAll();
  }

  private void close(ConsumerLink c) {
    consumers.remove(c.sender());
    c.close();
  }
}
