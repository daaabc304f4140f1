package io.idemworker.emulator.servicebus;

import java.util.List;
import java.util.Optional;
import org.apache.qpid.proton.amqp.Binary;
import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.amqp.UnsignedLong;
import org.apache.qpid.proton.amqp.messaging.Accepted;
import org.apache.qpid.proton.amqp.messaging.Rejected;
import org.apache.qpid.proton.amqp.transaction.TransactionalState;
import org.apache.qpid.proton.amqp.transport.AmqpError;
import org.apache.qpid.proton.amqp.transport.ErrorCondition;
import org.apache.qpid.proton.engine.Delivery;
import org.apache.qpid.proton.engine.Receiver;
import org.apache.qpid.proton.message.Message;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transfers a client sends on its sender links (our {@link Receiver}s) on one connection: opens
 * a producer's link to a queue or topic with the announced maximum message size and credit,
 * assembles each transfer, rejects one past {@link #MAX_MESSAGE_SIZE} ({@code
 * amqp:link:message-size-exceeded}) or one that cannot be decoded ({@code amqp:decode-error}),
 * hands a complete request to {@link RequestLinks} and a complete message (or batch) to its entity,
 * and keeps every such link's credit topped up, aborted transfers included.
 *
 * <p>A transfer whose state names a transaction ({@code TransactionalState}) joins it: see {@link
 * Transactions}.
 *
 * <p>Not thread-safe: confined to its connection's thread. A message is accepted only once its
 * entity has taken it (or its transaction has); a transfer to an entity deleted since the attach is
 * rejected with {@code amqp:not-found}.
 */
final class IncomingTransfers {
  private static final Logger LOG = LoggerFactory.getLogger(IncomingTransfers.class);
  static final int MAX_MESSAGE_SIZE = 256 * 1024;
  private static final int PRODUCER_CREDIT = 500;
  private static final Symbol MESSAGE_SIZE_EXCEEDED =
      Symbol.valueOf("amqp:link:message-size-exceeded");
  private static final Object OVERSIZE = new Object();

  private final LinkContext context;
  private final RequestLinks requests;
  private final Transactions transactions;
  private final byte[] scratch = new byte[64 * 1024];

  IncomingTransfers(LinkContext context, RequestLinks requests, Transactions transactions) {
    this.context = context;
    this.requests = requests;
    this.transactions = transactions;
  }

  /** Opens a producer's link to {@code sink}, announcing the size limit, and gives it credit. */
  void attachProducer(Receiver r, MessageSink sink) {
    r.setMaxMessageSize(UnsignedLong.valueOf(MAX_MESSAGE_SIZE));
    r.open();
    r.flow(PRODUCER_CREDIT);
    LOG.debug("connection {}: sender attached to {}", context.remote(), sink.path());
  }

  /** Takes the part of a transfer that arrived on {@code r}, and serves it once complete. */
  void onTransfer(Receiver r, Delivery d) {
    if (d.isAborted()) {
      d.settle();
      // An aborted transfer used a credit like any other: give it back, or a sender that keeps
      // aborting stalls at zero credit.
      AmqpTerms.topUp(r, requests.isRequestLink(r) ? RequestLinks.REQUEST_CREDIT : PRODUCER_CREDIT);
      return;
    }
    if (d.isPartial()) {
      if (d.getContext() == OVERSIZE || d.pending() > MAX_MESSAGE_SIZE) {
        d.setContext(OVERSIZE);
        while (r.recv(scratch, 0, scratch.length) > 0) {
          // discard: the message will be rejected when complete
        }
      }
      return;
    }
    int size = d.pending();
    if (d.getContext() == OVERSIZE || size > MAX_MESSAGE_SIZE) {
      while (r.recv(scratch, 0, scratch.length) > 0) {
        // discard
      }
      r.advance();
      LOG.warn(
          "connection {}: message larger than {} bytes rejected",
          context.remote(),
          MAX_MESSAGE_SIZE);
      Rejected rejected = new Rejected();
      rejected.setError(
          new ErrorCondition(
              MESSAGE_SIZE_EXCEEDED,
              "The received message exceeds the maximum message size of "
                  + MAX_MESSAGE_SIZE
                  + " bytes."));
      AmqpTerms.answer(d, rejected);
      AmqpTerms.topUp(r, PRODUCER_CREDIT);
      return;
    }
    byte[] bytes = new byte[size];
    int read = r.recv(bytes, 0, size);
    int format = d.getMessageFormat();
    r.advance();
    if (requests.serve(r, d, bytes, read)) {
      return;
    }
    Optional<MessageSink> sink =
        context.broker().resolveSink(AmqpTerms.address(r.getRemoteTarget()));
    if (sink.isEmpty()) {
      AmqpTerms.answer(d, AmqpTerms.rejected(AmqpError.NOT_FOUND, "entity deleted"));
      return;
    }
    List<Message> messages;
    try {
      messages = MessageCodec.decodeTransfer(bytes, read, format);
    } catch (RuntimeException e) {
      LOG.warn("connection {}: undecodable message rejected: {}", context.remote(), e.toString());
      AmqpTerms.answer(
          d,
          AmqpTerms.rejected(AmqpError.DECODE_ERROR, "cannot decode message: " + e.getMessage()));
      AmqpTerms.topUp(r, PRODUCER_CREDIT);
      return;
    }
    Optional<String> refusal = sink.get().refusal(messages);
    if (refusal.isPresent()) {
      LOG.info(
          "connection {}: send to {} refused: {}",
          context.remote(),
          sink.get().path(),
          refusal.get());
      AmqpTerms.answer(d, AmqpTerms.rejected(AmqpError.NOT_ALLOWED, refusal.get()));
      AmqpTerms.topUp(r, PRODUCER_CREDIT);
      return;
    }
    if (d.getRemoteState() instanceof TransactionalState ts) {
      sendInTransaction(d, ts.getTxnId(), sink.get(), messages);
    } else {
      sink.get().send(messages);
      AmqpTerms.answer(d, Accepted.getInstance());
    }
    AmqpTerms.topUp(r, PRODUCER_CREDIT);
  }

  /**
   * A send in a transaction: the messages reach the entity when the transaction commits (numbered,
   * and checked for duplicates, then), never when it rolls back.
   */
  private void sendInTransaction(
      Delivery d, Binary txnId, MessageSink sink, List<Message> messages) {
    if (!transactions.isOpen(txnId)) {
      AmqpTerms.answer(d, Transactions.unknown());
      return;
    }
    transactions.enlist(txnId, () -> sink.send(messages));
    TransactionalState accepted = new TransactionalState();
    accepted.setTxnId(txnId);
    accepted.setOutcome(Accepted.getInstance());
    AmqpTerms.answer(d, accepted);
  }
}
