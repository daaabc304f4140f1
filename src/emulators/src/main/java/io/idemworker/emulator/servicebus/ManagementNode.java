package io.idemworker.emulator.servicebus;

import io.idemworker.emulator.servicebus.EntityStore.Settled;
import io.idemworker.emulator.servicebus.StoredMessage.Snapshot;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.apache.qpid.proton.amqp.Binary;
import org.apache.qpid.proton.amqp.UnsignedInteger;
import org.apache.qpid.proton.amqp.messaging.AmqpValue;
import org.apache.qpid.proton.amqp.messaging.ApplicationProperties;
import org.apache.qpid.proton.engine.Connection;
import org.apache.qpid.proton.message.Message;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code ENTITY/$management} request/response node. Stateless; thread-safe as the stores are.
 */
final class ManagementNode {
  private static final Logger LOG = LoggerFactory.getLogger(ManagementNode.class);
  static final String LOCK_LOST = "com.microsoft:message-lock-lost";
  static final String MESSAGE_NOT_FOUND = "com.microsoft:message-not-found";
  static final String SESSION_LOCK_LOST = "com.microsoft:session-lock-lost";

  private ManagementNode() {}

  /** The answer to a management request naming a transaction that is not open. */
  static Message transactionNotOpen() {
    return status(
        400,
        "The transaction is not open on this connection.",
        null,
        "amqp:transaction:unknown-id");
  }

  /** Answers a put-token request on {@code $cbs}; any token is accepted. */
  static Message cbs(Message request) {
    Map<String, Object> props = applicationProperties(request);
    Object op = props.get("operation");
    return "put-token".equals(op)
        ? cbsAnswer(200, "OK", null)
        : cbsAnswer(400, "unsupported $cbs operation " + op, "amqp:not-implemented");
  }

  /**
   * An answer of the {@code $cbs} node. The service's CBS node names the status status-code and
   * status-description: uamqp (the Python and C SDKs) reads only those, the Java SDK either
   * spelling.
   */
  static Message cbsAnswer(int code, String description, String errorCondition) {
    Message answer = status(code, description, null, errorCondition);
    Map<String, Object> cbsProps = new HashMap<>();
    answer
        .getApplicationProperties()
        .getValue()
        .forEach(
            (k, v) ->
                cbsProps.put(
                    switch (k) {
                      case "statusCode" -> "status-code";
                      case "statusDescription" -> "status-description";
                      default -> k;
                    },
                    v));
    answer.setApplicationProperties(new ApplicationProperties(cbsProps));
    return answer;
  }

  /**
   * Which renewals to refuse ({@link Faults#refuseLockRenewals}, {@link
   * Faults#refuseSessionLockRenewals}); each predicate is asked with the entity's path and uses up
   * one refusal when it answers true.
   *
   * @param lock message lock renewals
   * @param sessionLock session lock renewals
   */
  record Refusals(Predicate<String> lock, Predicate<String> sessionLock) {
    static final Refusals NONE = new Refusals(path -> false, path -> false);
  }

  /** Answers a management request for one entity. */
  static Message handle(EntityStore store, Message request) {
    return handle(store, request, null, Refusals.NONE);
  }

  /**
   * Answers a management request for one entity, in a transaction when {@code txn} is not null:
   * {@code update-disposition} checks the locks now and settles at commit; {@code schedule-message}
   * schedules now and cancels at rollback; other operations ignore the transaction.
   *
   * @param txn enlists work in the request's transaction; null outside one
   * @param refusals which renewals to refuse (fault injection)
   */
  static Message handle(
      EntityStore store, Message request, Consumer<Transactions.Work> txn, Refusals refusals) {
    return handle(store, request, txn, refusals, null);
  }

  /**
   * As {@link #handle(EntityStore, Message, Consumer, Refusals)}, for a request that came on {@code
   * connection}: a session operation naming its receiver's link is refused unless that link, on
   * that connection, holds the session.
   *
   * @param connection the requesting connection, or null when unknown
   */
  static Message handle(
      EntityStore store,
      Message request,
      Consumer<Transactions.Work> txn,
      Refusals refusals,
      Connection connection) {
    Map<String, Object> props = applicationProperties(request);
    String op = String.valueOf(props.get("operation"));
    Map<?, ?> body = bodyMap(request);
    try {
      return switch (op) {
        case "com.microsoft:renew-lock" -> renewLock(store, body, refusals.lock());
        case "com.microsoft:update-disposition" ->
            txn == null ? updateDisposition(store, body) : updateDisposition(store, body, txn);
        case "com.microsoft:peek-message" -> peek(store, body);
        case "com.microsoft:schedule-message" -> schedule(store, body, txn);
        case "com.microsoft:cancel-scheduled-message" -> cancel(store, body);
        case "com.microsoft:receive-by-sequence-number" -> receiveDeferred(store, body);
        case "com.microsoft:renew-session-lock" -> {
          store.sessions().requireHeldBy(sessionId(body), associatedLink(props), connection);
          yield renewSessionLock(store, sessionId(body), refusals.sessionLock());
        }
        case "com.microsoft:get-session-state" -> {
          store.sessions().requireHeldBy(sessionId(body), associatedLink(props), connection);
          yield getSessionState(store, body);
        }
        case "com.microsoft:set-session-state" -> {
          store.sessions().requireHeldBy(sessionId(body), associatedLink(props), connection);
          yield setSessionState(store, body);
        }
        default -> {
          LOG.warn("{}: management operation {} is not implemented", store.path(), op);
          yield status(501, "operation not implemented: " + op, null, "amqp:not-implemented");
        }
      };
    } catch (SessionLockLostException e) {
      LOG.info("{}: {} refused: {}", store.path(), op, e.getMessage());
      return status(410, e.getMessage(), null, SESSION_LOCK_LOST);
    } catch (RuntimeException e) {
      LOG.warn("{}: bad management request {}: {}", store.path(), op, e.toString());
      return status(400, "bad request: " + e.getMessage(), null, "amqp:invalid-field");
    }
  }

  /**
   * Answers a request to a topic's management node: {@code schedule-message} and {@code
   * cancel-scheduled-message}, which the SDK sends there for a topic sender; other operations
   * answer 501.
   */
  static Message handleTopic(Topic topic, Message request) {
    return handleTopic(topic, request, null);
  }

  /**
   * As {@link #handleTopic(Topic, Message)}; a schedule in a transaction is cancelled at rollback.
   */
  static Message handleTopic(Topic topic, Message request, Consumer<Transactions.Work> txn) {
    String op = String.valueOf(applicationProperties(request).get("operation"));
    Map<?, ?> body = bodyMap(request);
    try {
      return switch (op) {
        case "com.microsoft:schedule-message" -> {
          long[] seqs = topic.schedule(scheduledMessages(body));
          cancelAtRollback(txn, () -> topic.cancelScheduled(seqs));
          yield sequenceNumbers(seqs);
        }
        case "com.microsoft:cancel-scheduled-message" -> {
          topic.cancelScheduled(longs(body.get("sequence-numbers")));
          yield status(200, "OK", null, null);
        }
        default -> {
          LOG.warn("{}: topic management operation {} is not implemented", topic.path(), op);
          yield status(501, "operation not implemented: " + op, null, "amqp:not-implemented");
        }
      };
    } catch (RuntimeException e) {
      LOG.warn("{}: bad management request {}: {}", topic.path(), op, e.toString());
      return status(400, "bad request: " + e.getMessage(), null, "amqp:invalid-field");
    }
  }

  private static Message renewLock(
      EntityStore store, Map<?, ?> body, Predicate<String> refuseRenewal) {
    List<UUID> tokens = uuids(body.get("lock-tokens"));
    if (refuseRenewal.test(store.path())) {
      tokens.forEach(store::loseLock);
      LOG.info("{}: renewal of {} lock(s) refused (fault injected)", store.path(), tokens.size());
      return status(410, "The lock supplied is invalid or has expired.", null, LOCK_LOST);
    }
    Date[] expirations = new Date[tokens.size()];
    for (int i = 0; i < tokens.size(); i++) {
      Optional<Instant> until = store.renew(tokens.get(i));
      if (until.isEmpty()) {
        return status(410, "The lock supplied is invalid or has expired.", null, LOCK_LOST);
      }
      expirations[i] = Date.from(until.get());
    }
    return status(200, "OK", Map.of("expirations", expirations), null);
  }

  private static Message renewSessionLock(
      EntityStore store, String sessionId, Predicate<String> refuseRenewal) {
    if (store.sessions().locked(sessionId) && refuseRenewal.test(store.path())) {
      store.sessions().lose(sessionId);
      LOG.info("{}: renewal of session {} refused (fault injected)", store.path(), sessionId);
      throw new SessionLockLostException(
          "The session lock has expired on the session '" + sessionId + "', or is not held.");
    }
    return status(
        200, "OK", Map.of("expiration", Date.from(store.sessions().renew(sessionId))), null);
  }

  private static Message updateDisposition(EntityStore store, Map<?, ?> body) {
    requireSessionLock(store, body);
    for (UUID token : uuids(body.get("lock-tokens"))) {
      if (dispose(store, body, token) == Settled.LOCK_LOST) {
        return status(410, "The lock supplied is invalid or has expired.", null, LOCK_LOST);
      }
    }
    return status(200, "OK", null, null);
  }

  /** update-disposition in a transaction: every lock must be held now and at commit. */
  private static Message updateDisposition(
      EntityStore store, Map<?, ?> body, Consumer<Transactions.Work> txn) {
    requireSessionLock(store, body);
    List<UUID> tokens = uuids(body.get("lock-tokens"));
    for (UUID token : tokens) {
      if (!store.holdsLock(token)) {
        return status(410, "The lock supplied is invalid or has expired.", null, LOCK_LOST);
      }
    }
    txn.accept(
        new Transactions.Work() {
          @Override
          public Optional<String> problem() {
            return tokens.stream().allMatch(store::holdsLock)
                ? Optional.empty()
                : Optional.of("the lock of a message settled in the transaction was lost");
          }

          @Override
          public void commit() {
            tokens.forEach(token -> dispose(store, body, token));
          }
        });
    return status(200, "OK", null, null);
  }

  /**
   * A settlement naming a session (as a session receiver's does) needs that session's lock, as on
   * the service: without it the answer is {@code session-lock-lost}, whatever the lock tokens.
   */
  private static void requireSessionLock(EntityStore store, Map<?, ?> body) {
    String sessionId = sessionId(body);
    if (sessionId != null && store.requiresSession() && !store.sessions().locked(sessionId)) {
      throw new SessionLockLostException(
          "The session lock has expired on the session '" + sessionId + "', or is not held.");
    }
  }

  private static Settled dispose(EntityStore store, Map<?, ?> body, UUID token) {
    String disposition = String.valueOf(body.get("disposition-status"));
    Map<String, Object> modify = new HashMap<>();
    if (body.get("properties-to-modify") instanceof Map<?, ?> m) {
      m.forEach((k, v) -> modify.put(String.valueOf(k), v));
    }
    return switch (disposition) {
      case "completed" -> store.complete(token);
      case "abandoned" -> store.abandon(token, modify);
      case "defered", "deferred" -> store.defer(token, modify);
      case "suspended" ->
          store.deadLetter(
              token,
              (String) body.get("deadletter-reason"),
              (String) body.get("deadletter-description"),
              modify);
      default -> throw new IllegalArgumentException("disposition-status " + disposition);
    };
  }

  private static Message peek(EntityStore store, Map<?, ?> body) {
    long from = ((Number) body.get("from-sequence-number")).longValue();
    int count = ((Number) body.get("message-count")).intValue();
    List<Snapshot> found = store.peek(from, count, sessionId(body));
    if (found.isEmpty()) {
      return status(204, "No messages", null, MESSAGE_NOT_FOUND);
    }
    return messages(found, false);
  }

  private static Message schedule(
      EntityStore store, Map<?, ?> body, Consumer<Transactions.Work> txn) {
    List<Message> messages = scheduledMessages(body);
    Optional<String> refusal = store.refusal(messages);
    if (refusal.isPresent()) {
      return status(400, refusal.get(), null, "amqp:not-allowed");
    }
    long[] seqs = store.schedule(messages);
    cancelAtRollback(txn, () -> store.cancelScheduled(seqs));
    return sequenceNumbers(seqs);
  }

  /**
   * In a transaction, a scheduled message is scheduled at once (its sequence number is the answer)
   * and cancelled if the transaction rolls back.
   */
  private static void cancelAtRollback(Consumer<Transactions.Work> txn, Runnable cancel) {
    if (txn == null) {
      return;
    }
    txn.accept(
        new Transactions.Work() {
          @Override
          public void commit() {}

          @Override
          public void rollback() {
            cancel.run();
          }
        });
  }

  private static Message getSessionState(EntityStore store, Map<?, ?> body) {
    Map<String, Object> answer = new HashMap<>();
    answer.put(
        "session-state", store.sessions().state(sessionId(body)).map(Binary::new).orElse(null));
    return status(200, "OK", answer, null);
  }

  private static Message setSessionState(EntityStore store, Map<?, ?> body) {
    Object state = body.get("session-state");
    byte[] bytes = null;
    if (state instanceof Binary b) {
      bytes =
          Arrays.copyOfRange(b.getArray(), b.getArrayOffset(), b.getArrayOffset() + b.getLength());
    } else if (state != null) {
      throw new IllegalArgumentException("session-state must be binary");
    }
    store.sessions().setState(sessionId(body), bytes);
    return status(200, "OK", null, null);
  }

  /** The receiver link a request names ({@code associated-link-name}), or null. */
  private static String associatedLink(Map<String, Object> props) {
    Object v = props.get("associated-link-name");
    return v == null || v.toString().isEmpty() ? null : v.toString();
  }

  /** The request's {@code session-id}, or null; an empty one reads as none. */
  private static String sessionId(Map<?, ?> body) {
    Object v = body.get("session-id");
    return v == null || v.toString().isEmpty() ? null : v.toString();
  }

  private static List<Message> scheduledMessages(Map<?, ?> body) {
    List<Message> messages = new ArrayList<>();
    for (Object entry : (Iterable<?>) body.get("messages")) {
      Binary b = (Binary) ((Map<?, ?>) entry).get("message");
      messages.add(MessageCodec.decode(b.getArray(), b.getArrayOffset(), b.getLength()));
    }
    return messages;
  }

  private static Message sequenceNumbers(long[] seqs) {
    // An Object array: proton-j encodes it as an AMQP array of long, which the client decodes as
    // long[]; a primitive long[] inside a map is not encodable by proton-j.
    Long[] boxed = new Long[seqs.length];
    for (int i = 0; i < seqs.length; i++) {
      boxed[i] = seqs[i];
    }
    return status(200, "OK", Map.of("sequence-numbers", boxed), null);
  }

  private static Message cancel(EntityStore store, Map<?, ?> body) {
    store.cancelScheduled(longs(body.get("sequence-numbers")));
    return status(200, "OK", null, null);
  }

  private static Message receiveDeferred(EntityStore store, Map<?, ?> body) {
    long[] seqs = longs(body.get("sequence-numbers"));
    Object mode = body.get("receiver-settle-mode");
    boolean receiveAndDelete = mode instanceof UnsignedInteger u && u.intValue() == 0;
    List<Snapshot> found = store.receiveDeferred(seqs, receiveAndDelete, sessionId(body));
    if (found.isEmpty()) {
      return status(
          404, "The requested deferred messages were not found.", null, MESSAGE_NOT_FOUND);
    }
    return messages(found, !receiveAndDelete);
  }

  private static Message messages(List<Snapshot> found, boolean withLock) {
    List<Map<String, Object>> list = new ArrayList<>();
    for (Snapshot s : found) {
      Map<String, Object> entry = new HashMap<>();
      entry.put("message", new Binary(MessageCodec.encodeForManagementReply(s, withLock)));
      if (withLock && s.lockToken() != null) {
        entry.put("lock-token", s.lockToken());
      }
      list.add(entry);
    }
    return status(200, "OK", Map.of("messages", list), null);
  }

  static Message status(int code, String description, Object body, String errorCondition) {
    Message m = Message.Factory.create();
    Map<String, Object> props = new HashMap<>();
    props.put("statusCode", code);
    props.put("statusDescription", description);
    if (errorCondition != null) {
      props.put("errorCondition", errorCondition);
    }
    m.setApplicationProperties(new ApplicationProperties(props));
    if (body != null) {
      m.setBody(new AmqpValue(body));
    }
    return m;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> applicationProperties(Message m) {
    if (m.getApplicationProperties() == null || m.getApplicationProperties().getValue() == null) {
      return Map.of();
    }
    return m.getApplicationProperties().getValue();
  }

  private static Map<?, ?> bodyMap(Message m) {
    if (m.getBody() instanceof AmqpValue v && v.getValue() instanceof Map<?, ?> map) {
      return map;
    }
    return Map.of();
  }

  private static List<UUID> uuids(Object value) {
    List<UUID> out = new ArrayList<>();
    if (value instanceof Object[] array) {
      for (Object o : array) {
        out.add((UUID) o);
      }
    } else if (value instanceof Iterable<?> it) {
      for (Object o : it) {
        out.add((UUID) o);
      }
    } else if (value instanceof UUID u) {
      out.add(u);
    } else {
      throw new IllegalArgumentException("lock-tokens missing");
    }
    return out;
  }

  private static long[] longs(Object value) {
    if (value instanceof long[] l) {
      return l;
    }
    List<Long> out = new ArrayList<>();
    if (value instanceof Object[] array) {
      for (Object o : array) {
        out.add(((Number) o).longValue());
      }
    } else if (value instanceof Iterable<?> it) {
      for (Object o : it) {
        out.add(((Number) o).longValue());
      }
    } else if (value instanceof Number n) {
      out.add(n.longValue());
    } else {
      throw new IllegalArgumentException("sequence-numbers missing");
    }
    return out.stream().mapToLong(Long::longValue).toArray();
  }
}
