package io.idemworker.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.core.DeadLetterReason;
import io.idemworker.core.EffectStore;
import io.idemworker.core.Fingerprint;
import io.idemworker.core.IdempotentConsumer;
import io.idemworker.core.IncomingMessage;
import io.idemworker.core.KeyStrategies;
import io.idemworker.core.MessageDecoder;
import io.idemworker.core.Outcome;
import io.idemworker.core.RequestRecords;
import io.idemworker.orders.OrderDecoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code POST /orders} with an {@code Idempotency-Key}, and {@code GET /orders/{orderId}}.
 *
 * <p>A POST is checked (content type, key, body) before anything is stored, so a request the client
 * must fix leaves no record behind and may be sent again under the same key once fixed. Then the
 * key's record is claimed ({@link RequestRecords}); the claim's holder hands the body to the
 * worker's own flow — the same {@link OrderDecoder}, the same {@link IdempotentConsumer} and so the
 * same atomic write, keyed by the orderId exactly as a queue message whose MessageId is the orderId
 * — so an order that arrives by HTTP and by the queue is one order. The answer is stored with the
 * key and then sent. What each result becomes is {@link IntakeAnswers}'s business.
 *
 * <p>Store round trips for a new key: claim 1, order write 1, order read 1, completion 1.
 *
 * <p>Thread-safe; keeps no state between requests.
 */
final class OrderIntake {
  /** The request header that carries the key. */
  static final String KEY_HEADER = "Idempotency-Key";

  /** The longest key accepted. */
  static final int MAX_KEY_LENGTH = 255;

  private static final Logger LOG = LoggerFactory.getLogger(OrderIntake.class);
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  private final MessageDecoder decoder;
  private final EffectStore store;
  private final RequestRecords records;
  private final IntakeFaults faults;
  private final Clock clock;
  private final int maxBodyBytes;

  /**
   * Creates the intake.
   *
   * @param store the orders container's store (the worker's)
   * @param records the key records, in the same container
   * @param clock stamps the acceptance time
   * @param maxBodyBytes the body limit, as the worker's {@code WORKER_MAX_BODY_BYTES}
   * @param faults seams for tests and the demo
   */
  OrderIntake(
      EffectStore store,
      RequestRecords records,
      Clock clock,
      int maxBodyBytes,
      IntakeFaults faults) {
    this.store = Objects.requireNonNull(store, "store");
    this.records = Objects.requireNonNull(records, "records");
    this.faults = Objects.requireNonNull(faults, "faults");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.maxBodyBytes = maxBodyBytes;
    this.decoder = new OrderDecoder(true);
  }

  /**
   * Answers {@code POST /orders}.
   *
   * @param request the request
   * @return the answer
   * @throws IntakeFaults.Crash when a fault seam simulates a crash
   */
  HttpAnswer post(ApiRequest request) {
    Optional<HttpAnswer> refused = checkContentType(request);
    if (refused.isPresent()) {
      return refused.get();
    }
    KeyHeader.Result key = KeyHeader.parse(request.header(KEY_HEADER));
    if (key instanceof KeyHeader.Refused bad) {
      return IntakeAnswers.badKey(bad.reason(), bad.description());
    }
    String keyValue = ((KeyHeader.Key) key).value();
    MessageDecoder.Decoding decoding = decoder.decode(message(Optional.empty(), request.body()));
    if (decoding instanceof MessageDecoder.Invalid invalid) {
      return IntakeAnswers.invalid(invalid.reason(), invalid.description());
    }
    MessageDecoder.ValidMessage valid = ((MessageDecoder.Valid) decoding).message();
    String orderId = valid.entityId();
    Fingerprint fingerprint = Fingerprint.of(valid.immutableFields());
    String recordId = recordId(request.principal(), keyValue);
    RequestRecords.Claim claim = records.claim(recordId, fingerprint);
    if (!(claim instanceof RequestRecords.Claimed claimed)) {
      HttpAnswer answer = IntakeAnswers.unclaimed(claim);
      LOG.info("POST /orders order {} record {}: {}", orderId, recordId, answer.status());
      return answer;
    }
    long attempt = claimed.attempt();
    Outcome outcome;
    try {
      // The order records its creator; the content and so the fingerprint are the caller's body.
      IdempotentConsumer owned =
          new IdempotentConsumer(
              KeyStrategies.messageId(),
              OrderDecoder.forOwner(request.principal()),
              store,
              clock,
              maxBodyBytes);
      outcome = owned.handle(message(Optional.of(orderId), request.body()));
    } catch (RuntimeException e) {
      records.release(recordId, attempt);
      throw e;
    }
    IntakeAnswers.Decided decided =
        foreign(request.principal(), outcome)
            ? IntakeAnswers.takenByAnother()
            : IntakeAnswers.of(outcome, () -> readOrder(orderId, request.principal()));
    faults.afterCommit(orderId);
    if (decided.keep()) {
      EffectStore.UpdateResult stored =
          records.complete(recordId, attempt, decided.answer().toJson());
      if (!(stored instanceof EffectStore.Applied)) {
        // The answer stands (the order is the anchor); only its replay record is missing, so a
        // retry recomputes the same answer from the order.
        LOG.warn("order {}: answer not stored under record {}: {}", orderId, recordId, stored);
      }
    } else {
      records.release(recordId, attempt);
    }
    LOG.info(
        "POST /orders order {} record {} attempt {}: {} {}",
        orderId,
        recordId,
        attempt,
        outcome.label(),
        decided.answer().status());
    faults.beforeReply(orderId);
    return decided.replayed()
        ? decided.answer().with(IntakeAnswers.REPLAYED_HEADER, "true")
        : decided.answer();
  }

  /**
   * Answers {@code GET /orders/{orderId}}.
   *
   * @param request the request
   * @return 200 with the order, 404, or 503
   */
  HttpAnswer get(ApiRequest request) {
    String orderId = request.path().substring(request.path().lastIndexOf('/') + 1);
    if (!orderId.matches("[A-Za-z0-9\\-_.:]{1,64}")) {
      return HttpAnswer.problem(404, "NotFound", "Not found", "no order with this id");
    }
    try {
      return readOrder(orderId, request.principal())
          .map(order -> HttpAnswer.json(200, order))
          .orElseGet(
              () -> HttpAnswer.problem(404, "NotFound", "Not found", "no order with this id"));
    } catch (IntakeAnswers.StoreUnavailable e) {
      return IntakeAnswers.failure(e.failure());
    }
  }

  /**
   * Whether a caller who sees only its own orders met another caller's order: the order existed
   * before this request (a duplicate or a conflict) and is not the caller's. Costs one read, on
   * those outcomes only.
   */
  private boolean foreign(String principal, Outcome outcome) {
    boolean existed =
        outcome instanceof Outcome.Duplicate
            || (outcome instanceof Outcome.DeadLettered dead
                && dead.reason().equals(DeadLetterReason.IDEMPOTENCY_CONFLICT));
    if (!existed || !ApiAuth.seesOnlyOwnOrders(principal)) {
      return false;
    }
    String orderId = outcome.knownEntityId().orElse("");
    return readStored(orderId)
        .map(stored -> !principal.equals(stored.path(OrderDecoder.OWNER_FIELD).asText(null)))
        .orElse(false);
  }

  private Optional<ObjectNode> readStored(String orderId) {
    EffectStore.ReadResult read = store.read(orderId, orderId);
    if (read instanceof EffectStore.Failed failed) {
      throw new IntakeAnswers.StoreUnavailable(failed.failure());
    }
    if (!(read instanceof EffectStore.Document document)
        || !"order".equals(document.content().path("type").asText())) {
      return Optional.empty();
    }
    return Optional.of(document.content());
  }

  /**
   * The order as the api shows it, read from the store: the same for the request that created it,
   * for every replay and for an order that came by the queue. A caller who sees only its own orders
   * ({@link ApiAuth#seesOnlyOwnOrders}) is shown none other: another caller's order, or one that
   * came by the queue, is not found.
   */
  private Optional<ObjectNode> readOrder(String orderId, String principal) {
    Optional<ObjectNode> found = readStored(orderId);
    if (found.isEmpty()) {
      return Optional.empty();
    }
    ObjectNode stored = found.get();
    if (ApiAuth.seesOnlyOwnOrders(principal)
        && !principal.equals(stored.path(OrderDecoder.OWNER_FIELD).asText(null))) {
      return Optional.empty();
    }
    ObjectNode order = JSON.objectNode();
    for (String field :
        new String[] {"orderId", "customerId", "currency", "placedAt", "total", "acceptedAt"}) {
      if (stored.has(field)) {
        order.set(field, stored.get(field));
      }
    }
    ArrayNode lines = order.putArray("lines");
    stored.path("lines").forEach(lines::add);
    return Optional.of(order);
  }

  private static Optional<HttpAnswer> checkContentType(ApiRequest request) {
    Optional<String> type = request.single("Content-Type");
    String media = type.map(t -> t.toLowerCase(Locale.ROOT).split(";", 2)[0].strip()).orElse("");
    if (media.equals("application/json")) {
      return Optional.empty();
    }
    return Optional.of(
        HttpAnswer.problem(
                415,
                "UnsupportedMediaType",
                "Unsupported media type",
                "Content-Type must be application/json")
            .with("Accept-Post", "application/json"));
  }

  /** The body as the worker's flow reads a queue message with this MessageId and subject. */
  private static IncomingMessage message(Optional<String> messageId, byte[] body) {
    return new IncomingMessage(
        messageId,
        Optional.empty(),
        Optional.of(OrderDecoder.SUBJECT),
        Optional.of("application/json"),
        Map.of(),
        body,
        0);
  }

  /**
   * The key's record id: {@code request:} and the SHA-256 of the client and the key, so keys from
   * two clients never meet and any key is a valid document id (keys may hold {@code / ? #}).
   */
  static String recordId(String principal, String key) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256")
              .digest((principal + "\n" + key).getBytes(StandardCharsets.UTF_8));
      return "request:" + HexFormat.of().formatHex(digest);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }
}
