package io.idemworker.emulator.servicebus;

import java.util.Map;
import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.amqp.messaging.Rejected;
import org.apache.qpid.proton.amqp.messaging.Source;
import org.apache.qpid.proton.amqp.messaging.Target;
import org.apache.qpid.proton.amqp.transport.DeliveryState;
import org.apache.qpid.proton.amqp.transport.ErrorCondition;
import org.apache.qpid.proton.engine.Delivery;
import org.apache.qpid.proton.engine.Link;
import org.apache.qpid.proton.engine.Receiver;
import org.apache.qpid.proton.engine.Sender;

/**
 * Small helpers over proton-j's terms that several link classes share: a terminus's address, a
 * rejected outcome, answering and settling a delivery, topping a receiver's credit up, and reading
 * an error's info map. Stateless; the methods that take a proton-j object must run on its
 * connection's thread, as every proton-j call must.
 */
final class AmqpTerms {
  private AmqpTerms() {}

  /** The address of a source or target, or null for any other terminus (or none). */
  static String address(Object terminus) {
    if (terminus instanceof Source s) {
      return s.getAddress();
    }
    if (terminus instanceof Target t) {
      return t.getAddress();
    }
    return null;
  }

  static Rejected rejected(Symbol condition, String description) {
    Rejected rejected = new Rejected();
    rejected.setError(new ErrorCondition(condition, description));
    return rejected;
  }

  /** Sends {@code state} unless the peer settled already, then settles our end. */
  static void answer(Delivery d, DeliveryState state) {
    if (!d.remotelySettled()) {
      d.disposition(state);
    }
    d.settle();
  }

  /** Grants {@code r} credit back up to {@code window} once it has fallen below half of it. */
  static void topUp(Receiver r, int window) {
    int credit = r.getCredit();
    if (credit < window / 2) {
      r.flow(window - credit);
    }
  }

  /**
   * Refuses a link the client attached: opens our end without a terminus, with {@code condition},
   * and closes it at once, as the service answers an attach it cannot serve.
   */
  static void refuse(Link link, ErrorCondition condition) {
    if (link instanceof Sender) {
      link.setSource(null);
    } else {
      link.setTarget(null);
    }
    link.setCondition(condition);
    link.open();
    link.close();
  }

  /** The value under {@code key} given as a string or a symbol, as text; null when absent. */
  static String infoString(Map<?, ?> info, String key) {
    Object v = info.get(key);
    if (v == null) {
      v = info.get(Symbol.valueOf(key));
    }
    return v == null ? null : v.toString();
  }
}
