package io.idemworker.emulator.servicebus;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.amqp.messaging.AmqpValue;
import org.apache.qpid.proton.amqp.transport.ErrorCondition;
import org.apache.qpid.proton.message.Message;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one connection's {@code $cbs} put-tokens authorised. Without {@link SharedAccessKeys} every
 * token is accepted and every link allowed (the emulator's default). With them, a put-token whose
 * token does not verify is answered 401, as the service answers it, and only links to entities
 * under an audience whose token verified may attach; any other is refused with {@code
 * amqp:unauthorized-access}.
 *
 * <p>Not thread-safe: confined to its connection's thread.
 */
final class ConnectionClaims {
  private static final Logger LOG = LoggerFactory.getLogger(ConnectionClaims.class);
  static final Symbol UNAUTHORIZED = Symbol.valueOf("amqp:unauthorized-access");

  /** Accepts every token and allows every link. */
  static final ConnectionClaims NONE = new ConnectionClaims("", Optional.empty());

  private final String remote;
  private final Optional<SharedAccessKeys> keys;
  private final List<String> audiences = new ArrayList<>();

  ConnectionClaims(String remote, Optional<SharedAccessKeys> keys) {
    this.remote = remote;
    this.keys = keys;
  }

  /** Answers a request on {@code $cbs}. */
  Message cbs(Message request) {
    if (keys.isEmpty()) {
      return ManagementNode.cbs(request);
    }
    Map<?, ?> props =
        request.getApplicationProperties() == null
            ? Map.of()
            : request.getApplicationProperties().getValue();
    Object op = props.get("operation");
    if (!"put-token".equals(op)) {
      return ManagementNode.cbs(request);
    }
    String audience = String.valueOf(props.get("name"));
    String type = String.valueOf(props.get("type"));
    if (!type.endsWith(":sastoken")) {
      LOG.info("connection {}: put-token of type {} refused", remote, type);
      return ManagementNode.cbsAnswer(
          401,
          "InvalidToken: only shared access signatures (servicebus.windows.net:sastoken) are"
              + " accepted while the emulator checks tokens, not "
              + type
              + ".",
          UNAUTHORIZED.toString());
    }
    String token =
        request.getBody() instanceof AmqpValue v && v.getValue() != null
            ? v.getValue().toString()
            : null;
    String path = Broker.normalise(audience);
    Optional<String> refusal = keys.get().refusal(token, path);
    if (refusal.isPresent()) {
      LOG.info("connection {}: put-token for {} refused: {}", remote, audience, refusal.get());
      return ManagementNode.cbsAnswer(401, refusal.get(), UNAUTHORIZED.toString());
    }
    if (!audiences.contains(path)) {
      audiences.add(path);
    }
    return ManagementNode.cbsAnswer(200, "OK", null);
  }

  /**
   * Why a link to {@code address} may not attach, as the service's detach says it; empty when a
   * put-token on this connection covers it or tokens are not checked.
   *
   * @param claim {@code Send} or {@code Listen}
   */
  Optional<ErrorCondition> refusal(String address, String claim) {
    if (keys.isEmpty() || address == null) {
      return Optional.empty();
    }
    for (String audience : audiences) {
      if (SharedAccessKeys.covers(audience, address)) {
        return Optional.empty();
      }
    }
    LOG.info("connection {}: link to {} refused: no token covers it", remote, address);
    return Optional.of(
        new ErrorCondition(
            UNAUTHORIZED,
            "Unauthorized access. '"
                + claim
                + "' claim(s) are required to perform this operation. Resource: '"
                + address
                + "'."));
  }
}
