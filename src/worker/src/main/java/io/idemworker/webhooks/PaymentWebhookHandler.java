package io.idemworker.webhooks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import io.idemworker.core.DeadLetterReason;
import io.idemworker.core.EffectStore;
import io.idemworker.core.IdempotencyKey;
import io.idemworker.core.IdempotentConsumer;
import io.idemworker.core.IncomingMessage;
import io.idemworker.core.KeyStrategy;
import io.idemworker.core.Outcome;
import io.idemworker.orders.PaymentWebhookEvents;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code POST /webhooks/payments}: receives the payment provider's signed events and applies each
 * exactly once through the {@link IdempotentConsumer} flow (an inbox marker {@code
 * webhook:{eventId}} in the order's partition, in one batch with the order's patch). This class is
 * the only place where a {@link Outcome} becomes an HTTP status:
 *
 * <table>
 *   <caption>answers</caption>
 *   <tr><th>status</th><th>when</th><th>what the sender should do</th></tr>
 *   <tr><td>200</td><td>applied now ({@code processed}), or already applied by an earlier copy
 *       ({@code duplicate}): nothing was applied again</td><td>stop</td></tr>
 *   <tr><td>400</td><td>the request or the event breaks the contract; {@code reason} names the
 *       rule (e.g. {@code SchemaViolation}, {@code CurrencyMismatch}, {@code IdempotencyConflict},
 *       {@code SignatureMalformed})</td><td>stop: resending the same bytes cannot succeed</td></tr>
 *   <tr><td>401</td><td>the signature does not match ({@code SignatureMismatch}) or its timestamp is
 *       outside the tolerance ({@code SignatureExpired})</td><td>stop, or resend freshly signed</td></tr>
 *   <tr><td>404, 405, 413, 415</td><td>wrong path, method, size or content type</td><td>stop</td></tr>
 *   <tr><td>503 + {@code Retry-After}</td><td>not applied now: the order has not arrived yet
 *       ({@code OrderNotFound}), the store failed for a while, or this receiver has no secret
 *       configured ({@code PAYMENTS_WEBHOOK_SECRET})</td><td>redeliver later</td></tr>
 * </table>
 *
 * <p>Every answer but 200 is {@code application/problem+json} {@code {type, title, status, detail,
 * reason}}; nothing is applied unless the answer is 200. HTTP carries no delivery count, so an
 * event for an order that never arrives is answered 503 for as long as the sender redelivers it;
 * the sender's schedule, not this receiver, bounds those retries.
 *
 * <p>Thread-safe: mount it on any {@link com.sun.net.httpserver.HttpServer} with any executor; each
 * request blocks its thread for the store's round trips.
 */
public final class PaymentWebhookHandler implements HttpHandler {
  /** The path the handler serves. */
  public static final String PATH = "/webhooks/payments";

  /** How far a signature's timestamp may be from the receiver's clock. */
  public static final Duration DEFAULT_TOLERANCE = Duration.ofMinutes(5);

  /** The largest event body accepted. */
  public static final int MAX_BODY_BYTES = 64 * 1024;

  private static final Logger LOG = LoggerFactory.getLogger(PaymentWebhookHandler.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Optional<SignatureCheck> signatures;
  private final IdempotentConsumer consumer;

  /**
   * Creates the handler with the {@link #DEFAULT_TOLERANCE}.
   *
   * @param secret the shared secret; empty = every request is answered 503 naming {@code
   *     PAYMENTS_WEBHOOK_SECRET}, so the provider keeps the events until it is configured
   * @param store the orders' store
   * @param clock checks signature timestamps and stamps markers
   * @param markerTtl how long a marker lives; must outlive the provider's redelivery window; empty
   *     = forever
   */
  public PaymentWebhookHandler(
      Optional<WebhookSecret> secret,
      EffectStore store,
      Clock clock,
      Optional<Duration> markerTtl) {
    this(secret, store, clock, markerTtl, DEFAULT_TOLERANCE);
  }

  /**
   * Creates the handler.
   *
   * @param secret the shared secret; empty = every request is answered 503
   * @param store the orders' store
   * @param clock checks signature timestamps and stamps markers
   * @param markerTtl how long a marker lives; empty = forever
   * @param tolerance how far a signature's timestamp may be from the clock; positive
   */
  public PaymentWebhookHandler(
      Optional<WebhookSecret> secret,
      EffectStore store,
      Clock clock,
      Optional<Duration> markerTtl,
      Duration tolerance) {
    Objects.requireNonNull(secret, "secret");
    this.signatures = secret.map(s -> new SignatureCheck(s, clock, tolerance));
    this.consumer =
        new IdempotentConsumer(
            PaymentWebhookHandler::eventKey,
            PaymentWebhookEvents.decoder(markerTtl),
            store,
            clock,
            MAX_BODY_BYTES,
            // HTTP has no delivery count: never treat a delivery as the last one.
            Integer.MAX_VALUE);
  }

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      answer(exchange);
    } catch (IOException e) {
      LOG.debug("webhook request cut: {}", e.getMessage());
    } catch (RuntimeException e) {
      LOG.warn("webhook request failed unexpectedly", e);
      problem(exchange, 503, "InternalError", "the event was not applied; redeliver it later", 5);
    }
  }

  private void answer(HttpExchange exchange) throws IOException {
    if (!PATH.equals(exchange.getRequestURI().getPath())) {
      problem(exchange, 404, "NotFound", "payment webhooks are received at " + PATH, 0);
      return;
    }
    if (!"POST".equals(exchange.getRequestMethod())) {
      exchange.getResponseHeaders().set("Allow", "POST");
      problem(exchange, 405, "MethodNotAllowed", "send events with POST", 0);
      return;
    }
    String contentType = exchange.getRequestHeaders().getFirst("Content-Type");
    if (contentType == null
        || !contentType.toLowerCase(Locale.ROOT).startsWith("application/json")) {
      problem(exchange, 415, "UnsupportedMediaType", "send Content-Type: application/json", 0);
      return;
    }
    byte[] body;
    try (InputStream in = exchange.getRequestBody()) {
      body = in.readNBytes(MAX_BODY_BYTES + 1);
    }
    if (body.length > MAX_BODY_BYTES) {
      problem(exchange, 413, "BodyTooLarge", "an event is at most " + MAX_BODY_BYTES + " bytes", 0);
      return;
    }
    if (signatures.isEmpty()) {
      problem(
          exchange,
          503,
          "NotConfigured",
          "this receiver has no webhook secret (PAYMENTS_WEBHOOK_SECRET is unset); nothing was"
              + " applied",
          60);
      return;
    }
    List<String> signatureHeaders =
        exchange.getRequestHeaders().getOrDefault(SignatureCheck.HEADER, List.of());
    Optional<SignatureCheck.Refusal> refusal = signatures.get().refusal(signatureHeaders, body);
    if (refusal.isPresent()) {
      SignatureCheck.Refusal r = refusal.get();
      LOG.info("webhook refused: {} ({})", r.code(), r.status());
      problem(exchange, r.status(), r.code(), r.detail(), 0);
      return;
    }
    JsonNode root;
    try {
      root = JSON.readTree(body);
    } catch (IOException e) {
      root = null;
    }
    if (root == null || !root.isObject()) {
      problem(
          exchange,
          400,
          DeadLetterReason.UNREADABLE_BODY.code(),
          "the body must be a JSON object",
          0);
      return;
    }
    Outcome outcome = consumer.handle(incoming((ObjectNode) root, body));
    settle(exchange, outcome);
  }

  /** The event's {@code id} is its key: the provider sends every copy of an event with one id. */
  private static KeyStrategy.KeyResult eventKey(IncomingMessage message) {
    return message
        .messageId()
        .filter(id -> id.length() <= IdempotencyKey.MAX_LENGTH)
        .<KeyStrategy.KeyResult>map(id -> new KeyStrategy.Found(new IdempotencyKey(id)))
        .orElseGet(
            () ->
                new KeyStrategy.Missing(
                    DeadLetterReason.MISSING_MESSAGE_ID,
                    "id is missing or not a string: every event carries its id"));
  }

  /** The event as the flow sees it: its {@code id} is the key, its {@code type} the subject. */
  private static IncomingMessage incoming(ObjectNode root, byte[] body) {
    return new IncomingMessage(
        textual(root, "id"),
        Optional.empty(),
        textual(root, "type"),
        Optional.of("application/json"),
        Map.of(),
        body,
        0);
  }

  private static Optional<String> textual(ObjectNode root, String field) {
    JsonNode node = root.get(field);
    return node != null && node.isTextual() ? Optional.of(node.asText()) : Optional.empty();
  }

  private static void settle(HttpExchange exchange, Outcome outcome) throws IOException {
    String eventId = outcome.knownKey().map(Object::toString).orElse("-");
    String orderId = outcome.knownEntityId().orElse("-");
    outcome
        .<IoAction>fold(
            processed -> () -> received(exchange, "processed", eventId),
            duplicate -> () -> received(exchange, "duplicate", eventId),
            stale -> () -> received(exchange, "stale", eventId),
            dead -> {
              LOG.warn(
                  "webhook event {} for order {} refused: {} {}",
                  eventId,
                  orderId,
                  dead.reason(),
                  dead.description());
              return () -> problem(exchange, 400, dead.reason().code(), dead.description(), 0);
            },
            retry -> {
              LOG.info(
                  "webhook event {} for order {} not applied now ({}): {}",
                  eventId,
                  orderId,
                  retry.cause(),
                  retry.description());
              return () ->
                  problem(
                      exchange,
                      503,
                      retryReason(retry.cause()),
                      retry.description(),
                      retry
                          .retryAfter()
                          .map(PaymentWebhookHandler::seconds)
                          .orElse(retry.cause() == Outcome.RetryCause.TRANSIENT ? 1L : 10L));
            })
        .run();
  }

  private static String retryReason(Outcome.RetryCause cause) {
    return switch (cause) {
      case TRANSIENT -> "Unavailable";
      case NOT_YET -> "NotYet";
      case MISCONFIGURATION -> "NotConfigured";
    };
  }

  private static long seconds(Duration duration) {
    return Math.max(1, (duration.toMillis() + 999) / 1000);
  }

  private static void received(HttpExchange exchange, String outcome, String eventId)
      throws IOException {
    ObjectNode body = JSON.createObjectNode();
    body.put("received", true);
    body.put("outcome", outcome);
    body.put("eventId", eventId);
    send(exchange, 200, "application/json", body);
  }

  private static void problem(
      HttpExchange exchange, int status, String reason, String detail, long retryAfterSeconds)
      throws IOException {
    ObjectNode body = JSON.createObjectNode();
    body.put("type", "about:blank");
    body.put("title", title(status));
    body.put("status", status);
    body.put("detail", detail);
    body.put("reason", reason);
    if (retryAfterSeconds > 0) {
      exchange.getResponseHeaders().set("Retry-After", Long.toString(retryAfterSeconds));
    }
    send(exchange, status, "application/problem+json", body);
  }

  private static String title(int status) {
    return switch (status) {
      case 400 -> "Bad Request";
      case 401 -> "Unauthorized";
      case 404 -> "Not Found";
      case 405 -> "Method Not Allowed";
      case 413 -> "Content Too Large";
      case 415 -> "Unsupported Media Type";
      default -> "Service Unavailable";
    };
  }

  private static void send(HttpExchange exchange, int status, String contentType, ObjectNode body)
      throws IOException {
    byte[] bytes = JSON.writeValueAsBytes(body);
    exchange.getResponseHeaders().set("Content-Type", contentType);
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  @FunctionalInterface
  private interface IoAction {
    void run() throws IOException;
  }
}
