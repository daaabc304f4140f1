package io.idemworker.emulator.servicebus;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Optional;
import java.util.Set;
import org.apache.qpid.proton.amqp.Binary;
import org.apache.qpid.proton.amqp.messaging.Accepted;
import org.apache.qpid.proton.amqp.messaging.AmqpValue;
import org.apache.qpid.proton.amqp.messaging.Rejected;
import org.apache.qpid.proton.amqp.transaction.Declare;
import org.apache.qpid.proton.amqp.transaction.Declared;
import org.apache.qpid.proton.amqp.transaction.Discharge;
import org.apache.qpid.proton.amqp.transport.AmqpError;
import org.apache.qpid.proton.amqp.transport.ErrorCondition;
import org.apache.qpid.proton.engine.Delivery;
import org.apache.qpid.proton.engine.Link;
import org.apache.qpid.proton.engine.Receiver;
import org.apache.qpid.proton.engine.Session;
import org.apache.qpid.proton.message.Message;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transaction coordinator links of one connection (a client's sender link whose target is a
 * {@code Coordinator}): a {@code Declare} is answered with {@code Declared} and a new transaction
 * id, a {@code Discharge} commits or rolls back through {@link Transactions} and is answered with
 * {@code Accepted}, or {@code Rejected} with {@code amqp:transaction:unknown-id} (not open) or
 * {@code amqp:transaction:rollback} (a commit that could not apply its work, rolled back instead).
 * Global transactions ({@code Declare} with a global id) are refused with {@code
 * amqp:not-implemented}, as the service does.
 *
 * <p>Not thread-safe: confined to its connection's thread. Closing a coordinator link rolls back
 * the transactions it declared and did not discharge.
 */
final class CoordinatorLinks {
  private static final Logger LOG = LoggerFactory.getLogger(CoordinatorLinks.class);
  private static final int CREDIT = 100;

  private final String remote;
  private final Transactions transactions;
  private final Set<Link> links = Collections.newSetFromMap(new IdentityHashMap<>());

  CoordinatorLinks(String remote, Transactions transactions) {
    this.remote = remote;
    this.transactions = transactions;
  }

  /** Opens a client's coordinator link and gives it credit. */
  void attach(Receiver r) {
    links.add(r);
    r.open();
    r.flow(CREDIT);
    LOG.debug("connection {}: transaction coordinator attached ({})", remote, r.getName());
  }

  boolean isCoordinator(Link link) {
    return links.contains(link);
  }

  /** A coordinator link ended: its open transactions roll back. */
  void detach(Link link) {
    if (links.remove(link)) {
      transactions.rollbackDeclaredBy(link);
    }
  }

  /** The client closed {@code session}: its coordinator links end as if detached. */
  void sessionClosed(Session session) {
    for (Link link : new ArrayList<>(links)) {
      if (link.getSession() == session) {
        detach(link);
      }
    }
  }

  /** Serves a declare or discharge that arrived on coordinator link {@code r}. */
  void onTransfer(Receiver r, Delivery d) {
    if (d.isPartial()) {
      return;
    }
    if (d.isAborted()) {
      d.settle();
      AmqpTerms.topUp(r, CREDIT);
      return;
    }
    byte[] bytes = new byte[d.pending()];
    int read = r.recv(bytes, 0, bytes.length);
    r.advance();
    AmqpTerms.topUp(r, CREDIT);
    Object body;
    try {
      Message m = Message.Factory.create();
      m.decode(bytes, 0, read);
      body = m.getBody() instanceof AmqpValue v ? v.getValue() : null;
    } catch (RuntimeException e) {
      LOG.warn("connection {}: undecodable coordinator message: {}", remote, e.toString());
      AmqpTerms.answer(d, AmqpTerms.rejected(AmqpError.DECODE_ERROR, "cannot decode"));
      return;
    }
    if (body instanceof Declare declare) {
      if (declare.getGlobalId() != null) {
        AmqpTerms.answer(
            d,
            AmqpTerms.rejected(
                AmqpError.NOT_IMPLEMENTED, "Global transactions are not supported."));
        return;
      }
      Declared declared = new Declared();
      declared.setTxnId(transactions.declare(r));
      AmqpTerms.answer(d, declared);
      return;
    }
    if (body instanceof Discharge discharge) {
      Binary id = discharge.getTxnId();
      Optional<ErrorCondition> error =
          transactions.discharge(id, Boolean.TRUE.equals(discharge.getFail()));
      if (error.isEmpty()) {
        AmqpTerms.answer(d, Accepted.getInstance());
      } else {
        Rejected rejected = new Rejected();
        rejected.setError(error.get());
        AmqpTerms.answer(d, rejected);
      }
      return;
    }
    LOG.warn("connection {}: coordinator message is neither declare nor discharge", remote);
    AmqpTerms.answer(
        d, AmqpTerms.rejected(AmqpError.NOT_ALLOWED, "expected a declare or a discharge"));
  }
}
