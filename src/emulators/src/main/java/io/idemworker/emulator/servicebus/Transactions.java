package io.idemworker.emulator.servicebus;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.apache.qpid.proton.amqp.Binary;
import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.amqp.messaging.Rejected;
import org.apache.qpid.proton.amqp.transport.ErrorCondition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The open transactions of one connection, as the service keeps them: a transaction is declared on
 * a coordinator link, work joins it (a send, a settlement on a receive link, a management
 * update-disposition or schedule-message whose transfer carries the transaction's id), and
 * discharging it applies all that work in order (commit) or none of it (rollback). A send in a
 * transaction reaches its entity only at commit; a settlement checks the lock when it is made and
 * again at commit, and the message stays locked (and may be settled again) after a rollback.
 *
 * <p>When the coordinator link that declared a transaction closes, or the connection ends, the
 * transactions still open roll back.
 *
 * <p>Not thread-safe: confined to its connection's thread.
 */
final class Transactions {
  private static final Logger LOG = LoggerFactory.getLogger(Transactions.class);
  static final Symbol UNKNOWN_ID = Symbol.valueOf("amqp:transaction:unknown-id");
  static final Symbol ROLLBACK = Symbol.valueOf("amqp:transaction:rollback");

  /**
   * One piece of work done in a transaction.
   *
   * <p>{@link #problem()} is asked of every piece before any is applied, so a commit that cannot
   * apply all of them applies none.
   */
  interface Work {
    /** Why this work can no longer be applied (a lock ran out), or empty. */
    default Optional<String> problem() {
      return Optional.empty();
    }

    /** Applies the work: the transaction commits. */
    void commit();

    /** Undoes what was done ahead of the commit, if anything: the transaction rolls back. */
    default void rollback() {}
  }

  private record Open(Object coordinator, List<Work> work) {}

  private final String remote;
  private final Map<Binary, Open> open = new HashMap<>();

  Transactions(String remote) {
    this.remote = remote;
  }

  /** Declares a transaction on {@code coordinator}; returns its id. */
  Binary declare(Object coordinator) {
    UUID id = UUID.randomUUID();
    ByteBuffer b = ByteBuffer.allocate(16);
    b.putLong(id.getMostSignificantBits()).putLong(id.getLeastSignificantBits());
    Binary txnId = new Binary(b.array());
    open.put(txnId, new Open(coordinator, new ArrayList<>()));
    LOG.debug("connection {}: transaction {} declared", remote, id);
    return txnId;
  }

  /** Whether {@code txnId} names a transaction open on this connection. */
  boolean isOpen(Binary txnId) {
    return txnId != null && open.containsKey(txnId);
  }

  /**
   * Adds work to an open transaction.
   *
   * @throws IllegalStateException when the transaction is not open (check {@link #isOpen} first)
   */
  void enlist(Binary txnId, Work work) {
    Open t = open.get(txnId);
    if (t == null) {
      throw new IllegalStateException("transaction not open");
    }
    t.work.add(work);
  }

  /**
   * Ends a transaction: commits its work (all of it, or, when a piece cannot be applied any more,
   * none of it) or rolls it back.
   *
   * @return empty when done as asked; otherwise the error to answer the discharge with
   */
  Optional<ErrorCondition> discharge(Binary txnId, boolean fail) {
    Open t = txnId == null ? null : open.remove(txnId);
    if (t == null) {
      return Optional.of(new ErrorCondition(UNKNOWN_ID, "The transaction is not open."));
    }
    if (fail) {
      rollback(t);
      return Optional.empty();
    }
    for (Work w : t.work) {
      Optional<String> problem = w.problem();
      if (problem.isPresent()) {
        LOG.info("connection {}: commit refused, rolled back: {}", remote, problem.get());
        rollback(t);
        return Optional.of(new ErrorCondition(ROLLBACK, problem.get()));
      }
    }
    t.work.forEach(Work::commit);
    return Optional.empty();
  }

  /** Rolls back every transaction {@code coordinator} declared (the link closed). */
  void rollbackDeclaredBy(Object coordinator) {
    open.values()
        .removeIf(
            t -> {
              if (t.coordinator != coordinator) {
                return false;
              }
              rollback(t);
              return true;
            });
  }

  /** Rolls back every open transaction (the connection ended). */
  void rollbackAll() {
    open.values().forEach(Transactions::rollback);
    open.clear();
  }

  private static void rollback(Open t) {
    for (int i = t.work.size() - 1; i >= 0; i--) {
      t.work.get(i).rollback();
    }
  }

  /** The answer to work naming a transaction that is not open. */
  static Rejected unknown() {
    Rejected r = new Rejected();
    r.setError(new ErrorCondition(UNKNOWN_ID, "The transaction is not open on this connection."));
    return r;
  }
}
