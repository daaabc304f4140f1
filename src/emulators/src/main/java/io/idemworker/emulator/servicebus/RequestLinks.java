package io.idemworker.emulator.servicebus;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import org.apache.qpid.proton.amqp.Binary;
import org.apache.qpid.proton.amqp.messaging.Accepted;
import org.apache.qpid.proton.amqp.transaction.TransactionalState;
import org.apache.qpid.proton.amqp.transport.AmqpError;
import org.apache.qpid.proton.amqp.transport.DeliveryState;
import org.apache.qpid.proton.engine.Delivery;
import org.apache.qpid.proton.engine.EndpointState;
import org.apache.qpid.proton.engine.Link;
import org.apache.qpid.proton.engine.Receiver;
import org.apache.qpid.proton.engine.Sender;
import org.apache.qpid.proton.message.Message;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The request/response links of one connection: links to the {@code $cbs} node and to an entity's
 * {@code $management} node carry requests in, and the reply links the client attached carry the
 * answers back, found by the request's reply-to address. {@link ManagementNode} computes the
 * answers; this class decodes requests, accepts them and sends the answers.
 *
 * <p>Not thread-safe: confined to its connection's thread. A request whose reply link is missing or
 * no longer open is accepted and its answer dropped (and logged); an undecodable one is rejected
 * with {@code amqp:decode-error}.
 */
final class RequestLinks {
  private static final Logger LOG = LoggerFactory.getLogger(RequestLinks.class);
  static final int REQUEST_CREDIT = 100;

  private enum Node {
    CBS,
    MANAGEMENT,
    TOPIC_MANAGEMENT
  }

  /** A request link: the node it reaches (its address normalised) and the entity behind it. */
  private record RequestLink(Node node, String address, EntityStore store, Topic topic) {}

  private final String remote;
  private final Faults faults;
  private final Map<Link, RequestLink> requestLinks = new IdentityHashMap<>();
  private final Map<String, Sender> replyLinks = new HashMap<>();

  /** Reply links by the node they come from (their source address normalised). */
  private final Map<String, Sender> replyLinksByNode = new HashMap<>();

  private final Transactions transactions;

  private final ConnectionClaims claims;

  /** Detaches, ahead of anything queued after, the receivers whose session lock has ended. */
  private final Runnable detachLostSessions;

  /** Whether the request being served had a session lock renewal refused (fault injection). */
  private boolean sessionRenewalRefused;

  RequestLinks(
      String remote,
      Transactions transactions,
      Faults faults,
      ConnectionClaims claims,
      Runnable detachLostSessions) {
    this.remote = remote;
    this.claims = claims;
    this.transactions = transactions;
    this.faults = faults;
    this.detachLostSessions = detachLostSessions;
  }

  /** Whether {@code address} names a request/response node: {@code $cbs} or ENTITY/$management. */
  static boolean isNodeAddress(String address) {
    return "$cbs".equalsIgnoreCase(address) || isManagementAddress(address);
  }

  static boolean isManagementAddress(String address) {
    return address != null && Broker.normalise(address).endsWith(Broker.MANAGEMENT_SUFFIX);
  }

  /** Opens a client's link to the {@code $cbs} node and gives it request credit. */
  void attachCbs(Receiver r) {
    attachRequests(r, new RequestLink(Node.CBS, "$cbs", null, null));
  }

  /** Opens a client's link to {@code store}'s {@code $management} node and gives it credit. */
  void attachManagement(Receiver r, EntityStore store) {
    attachRequests(r, new RequestLink(Node.MANAGEMENT, nodeOf(r), store, null));
  }

  /** Opens a client's link to {@code topic}'s {@code $management} node and gives it credit. */
  void attachTopicManagement(Receiver r, Topic topic) {
    attachRequests(r, new RequestLink(Node.TOPIC_MANAGEMENT, nodeOf(r), null, topic));
  }

  private static String nodeOf(Receiver r) {
    return Broker.normalise(AmqpTerms.address(r.getRemoteTarget()));
  }

  private void attachRequests(Receiver r, RequestLink link) {
    requestLinks.put(r, link);
    r.open();
    r.flow(REQUEST_CREDIT);
  }

  /**
   * Opens a link on which answers go back, known by its target address (the requests' reply-to)
   * and, failing that, by its name; a request without reply-to is answered on the latest such link
   * from the node it was sent to.
   */
  void attachReply(Sender s) {
    String replyTo = AmqpTerms.address(s.getRemoteTarget());
    if (replyTo != null) {
      replyLinks.put(replyTo, s);
    }
    replyLinks.putIfAbsent(s.getName(), s);
    String node = AmqpTerms.address(s.getRemoteSource());
    if (node != null) {
      replyLinksByNode.put(Broker.normalise(node), s);
    }
    s.open();
  }

  boolean isRequestLink(Link link) {
    return requestLinks.containsKey(link);
  }

  /** Forgets {@code link} as a request or reply link; no-op for any other link. */
  void detach(Link link) {
    requestLinks.remove(link);
    replyLinks.values().removeIf(s -> s == link);
    replyLinksByNode.values().removeIf(s -> s == link);
  }

  /**
   * Serves a complete request that arrived on {@code r}, then tops its credit up.
   *
   * @return false, having done nothing, when {@code r} is not a request link
   */
  boolean serve(Receiver r, Delivery d, byte[] bytes, int length) {
    RequestLink link = requestLinks.get(r);
    if (link == null) {
      return false;
    }
    onRequest(link, d, bytes, length);
    AmqpTerms.topUp(r, REQUEST_CREDIT);
    return true;
  }

  private void onRequest(RequestLink link, Delivery d, byte[] bytes, int length) {
    Message request = Message.Factory.create();
    try {
      request.decode(bytes, 0, length);
    } catch (RuntimeException e) {
      LOG.warn("connection {}: undecodable request rejected: {}", remote, e.toString());
      AmqpTerms.answer(d, AmqpTerms.rejected(AmqpError.DECODE_ERROR, "cannot decode request"));
      return;
    }
    Binary txnId = d.getRemoteState() instanceof TransactionalState ts ? ts.getTxnId() : null;
    Consumer<Transactions.Work> txn = txnId == null ? null : w -> transactions.enlist(txnId, w);
    Message response;
    if (txnId != null && !transactions.isOpen(txnId)) {
      AmqpTerms.answer(d, Transactions.unknown());
      response = ManagementNode.transactionNotOpen();
    } else {
      AmqpTerms.answer(d, accepted(txnId));
      response =
          switch (link.node) {
            case CBS -> claims.cbs(request);
            case MANAGEMENT ->
                ManagementNode.handle(
                    link.store,
                    request,
                    txn,
                    new ManagementNode.Refusals(faults::refuseRenewal, this::refuseSessionRenewal),
                    d.getLink().getSession().getConnection());
            case TOPIC_MANAGEMENT -> ManagementNode.handleTopic(link.topic, request, txn);
          };
    }
    if (sessionRenewalRefused) {
      // The service refuses the renewal of a session lock it has already lost, and its receiver
      // was detached when it lost it: the detach goes first, so a client knows its receiver is gone
      // before it learns of the refusal (and settles through this node, not through that link).
      sessionRenewalRefused = false;
      detachLostSessions.run();
    }
    response.setCorrelationId(request.getMessageId());
    String replyTo = request.getReplyTo();
    Sender reply = replyTo == null ? replyLinksByNode.get(link.address) : replyLinks.get(replyTo);
    if (reply == null || reply.getLocalState() != EndpointState.ACTIVE) {
      LOG.warn("connection {}: no reply link for reply-to '{}'; response dropped", remote, replyTo);
      return;
    }
    if (replyTo != null) {
      response.setAddress(replyTo);
    }
    byte[] out = MessageCodec.encode(response);
    Delivery rd = reply.delivery(UUID.randomUUID().toString().getBytes(StandardCharsets.US_ASCII));
    reply.send(out, 0, out.length);
    reply.advance();
    rd.settle();
  }

  private boolean refuseSessionRenewal(String entityPath) {
    boolean refused = faults.refuseSessionRenewal(entityPath);
    sessionRenewalRefused |= refused;
    return refused;
  }

  /** Accepted, or within a transaction, Accepted in that transaction. */
  private static DeliveryState accepted(Binary txnId) {
    if (txnId == null) {
      return Accepted.getInstance();
    }
    TransactionalState state = new TransactionalState();
    state.setTxnId(txnId);
    state.setOutcome(Accepted.getInstance());
    return state;
  }
}
