package io.idemworker.webhooks;

import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.core.DeadLetterReason;
import io.idemworker.core.EffectStore;
import io.idemworker.core.IdempotencyKey;
import io.idemworker.core.IdempotentConsumer;
import io.idemworker.core.IncomingMessage;
import io.idemworker.core.KeyStrategy;
import io.idemworker.core.Outcome;
import io.idemworker.orders.PaymentWebhookEvents;
import java.io.IOException;
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
 * <p>Thread-safe and free of any HTTP server: the api's route table calls {@link #refusal} on the
 * request head and {@link #receive} with the body; each receive blocks its thread for the store's
 * round trips. Every answer is {@code application/problem+json} in the api's shape ({@code type}
 * {@code urn:idemworker:problem:{reason}}); details name rules and fields, never the event's
 * values.
 */
public final class PaymentWebhookHandler {
  /** The path the handler serves. */
  public static final String PATH = "/webhooks/payments";

  /** How far a signature's timestamp may be from the receiver's clock. */
  public static final Duration DEFAULT_TOLERANCE = Duration.ofMinutes(5);

  /** The largest event body accepted. */
  public static final int MAX_BODY_BYTES = 64 * 1024;

  private static final Logger LOG = LoggerFactory.getLogger(PaymentWebhookHandler.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  /** How long an answer "the order has not arrived yet" is given again from memory. */
  static final Duration NOT_YET_MEMORY = Duration.ofSeconds(5);

  /** The most event bodies remembered (about 100 bytes each, plus the answer). */
  static final int SEEN_CAPACITY = 10_000;

  private final Optional<SignatureCheck> signatures;
  private final IdempotentConsumer consumer;
  private final SeenEvents seen;

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
    this.seen = new SeenEvents(clock, tolerance, NOT_YET_MEMORY, SEEN_CAPACITY);
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

  /**
   * One answer of the receiver, for the server to write.
   *
   * @param status the HTTP status
   * @param contentType {@code application/json} (200) or {@code application/problem+json}
   * @param headers extra headers ({@code Retry-After} on 503)
   * @param body the JSON body
   */
  public record Reply(
      int status, String contentType, Map<String, String> headers, ObjectNode body) {
    /** Copies the headers. */
    public Reply {
      Objects.requireNonNull(contentType, "contentType");
      Objects.requireNonNull(body, "body");
      headers = Map.copyOf(headers);
    }

    Reply withHeader(String name, String value) {
      Map<String, String> more = new java.util.LinkedHashMap<>(headers);
      more.put(name, value);
      return new Reply(status, contentType, more, body);
    }
  }

  /**
   * What can be refused from the request head alone, before the body is read: a media type other
   * than {@code application/json} (parameters such as {@code charset} allowed), or a receiver
   * without a secret.
   *
   * @param contentType the request's one {@code Content-Type}, if it sent exactly one
   * @return the refusal, or empty to read the body and {@link #receive} it
   */
  public Optional<Reply> refusal(Optional<String> contentType) {
    boolean json =
        contentType
            .map(type -> type.split(";", 2)[0].strip().toLowerCase(Locale.ROOT))
            .filter("application/json"::equals)
            .isPresent();
    if (!json) {
      return Optional.of(
          problem(415, "UnsupportedMediaType", "send Content-Type: application/json", 0)
              .withHeader("Accept-Post", "application/json"));
    }
    if (signatures.isEmpty()) {
      return Optional.of(
          problem(
              503,
              "NotConfigured",
              "this receiver has no webhook secret (PAYMENTS_WEBHOOK_SECRET is unset); nothing was"
                  + " applied",
              60));
    }
    return Optional.empty();
  }

  /**
   * Checks the signature and applies the event once. Blocks for the store's round trips; never
   * throws for a request it refuses.
   *
   * @param signatureHeaders every {@value SignatureCheck#HEADER} value the request carried
   * @param body the body, at most {@link #MAX_BODY_BYTES}
   * @return the answer
   */
  public Reply receive(List<String> signatureHeaders, byte[] body) {
    try {
      return answer(signatureHeaders, body);
    } catch (RuntimeException e) {
      LOG.warn("webhook request failed unexpectedly", e);
      return problem(503, "InternalError", "the event was not applied; redeliver it later", 5);
    }
  }

  private Reply answer(List<String> signatureHeaders, byte[] body) {
    if (signatures.isEmpty()) {
      return refusal(Optional.of("application/json")).orElseThrow();
    }
    Optional<SignatureCheck.Refusal> refusal = signatures.get().refusal(signatureHeaders, body);
    if (refusal.isPresent()) {
      SignatureCheck.Refusal r = refusal.get();
      LOG.debug("webhook refused: {} ({})", r.code(), r.status());
      return problem(r.status(), r.code(), r.detail(), 0);
    }
    Optional<Reply> again = seen.answerFor(body);
    if (again.isPresent()) {
      return again.get();
    }
    JsonNode root;
    String unreadable = "the body must be a JSON object";
    try {
      root = JSON.readTree(body);
    } catch (StreamConstraintsException e) {
      root = null;
      unreadable = "the body nests deeper, or has longer values, than the receiver reads";
    } catch (IOException e) {
      root = null;
      unreadable = "the body is not well-formed JSON";
    }
    if (root == null || !root.isObject()) {
      return problem(400, DeadLetterReason.UNREADABLE_BODY.code(), unreadable, 0);
    }
    Outcome outcome = consumer.handle(incoming((ObjectNode) root, body));
    Reply reply = settle(outcome);
    if (outcome instanceof Outcome.Processed || outcome instanceof Outcome.Duplicate) {
      seen.remember(
          body,
          received("duplicate", outcome.knownKey().map(Object::toString).orElse("-")),
          true,
          Duration.ZERO);
    } else if (outcome instanceof Outcome.DeadLettered || outcome instanceof Outcome.Stale) {
      seen.remember(body, reply, true, Duration.ZERO);
    } else if (outcome instanceof Outcome.Retry retry
        && retry.cause() == Outcome.RetryCause.NOT_YET) {
      seen.remember(
          body,
          reply,
          false,
          Duration.ofSeconds(Long.parseLong(reply.headers().getOrDefault("Retry-After", "0"))));
    }
    return reply;
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

  private static Reply settle(Outcome outcome) {
    String eventId = outcome.knownKey().map(Object::toString).orElse("-");
    String orderId = outcome.knownEntityId().orElse("-");
    return outcome.fold(
        processed -> received("processed", eventId),
        duplicate -> received("duplicate", eventId),
        stale -> received("stale", eventId),
        dead -> {
          LOG.warn(
              "webhook event {} for order {} refused: {} {}",
              eventId,
              orderId,
              dead.reason(),
              dead.description());
          return problem(400, dead.reason().code(), withoutValues(dead, orderId, eventId), 0);
        },
        retry -> {
          LOG.info(
              "webhook event {} for order {} not applied now ({}): {}",
              eventId,
              orderId,
              retry.cause(),
              retry.description());
          return problem(
              503,
              retryReason(retry.cause()),
              retryDetail(retry.cause()),
              retry
                  .retryAfter()
                  .map(PaymentWebhookHandler::seconds)
                  .orElse(retry.cause() == Outcome.RetryCause.TRANSIENT ? 1L : 10L));
        });
  }

  /**
   * The dead-letter description without the values it may carry (the event id, a store message):
   * the sender learns the rule and the fields, as the api's details do.
   */
  private static String withoutValues(Outcome.DeadLettered dead, String orderId, String eventId) {
    String description = dead.description();
    if (!orderId.equals("-")) {
      description =
          description.replace("order " + orderId, "the order").replace(orderId, "the order");
    }
    if (!eventId.equals("-")) {
      description = description.replace(eventId, "the event");
    }
    if (dead.reason() == DeadLetterReason.IDEMPOTENCY_CONFLICT) {
      int differing = description.indexOf("differing fields:");
      return "the event id was already used for different content"
          + (differing >= 0 ? "; " + description.substring(differing) : "");
    }
    if (dead.reason() == DeadLetterReason.STORE_REJECTED) {
      return "the store refused the event; it will not be applied";
    }
    return description;
  }

  private static String retryDetail(Outcome.RetryCause cause) {
    return switch (cause) {
      case TRANSIENT -> "the store is unavailable for a moment; redeliver the event later";
      case NOT_YET -> "the order the event is for has not arrived yet; redeliver the event later";
      case MISCONFIGURATION -> "the receiver cannot reach its store; redeliver the event later";
      // An HTTP request holds no broker lock; kept for the exhaustive match.
      case LOCK_LOST -> "the receiver stopped before it finished; redeliver the event later";
    };
  }

  private static String retryReason(Outcome.RetryCause cause) {
    return switch (cause) {
      case TRANSIENT -> "Unavailable";
      case NOT_YET -> "NotYet";
      case MISCONFIGURATION -> "NotConfigured";
      case LOCK_LOST -> "Unavailable";
    };
  }

  private static long seconds(Duration duration) {
    return Math.max(1, (duration.toMillis() + 999) / 1000);
  }

  private static Reply received(String outcome, String eventId) {
    ObjectNode body = JSON.createObjectNode();
    body.put("received", true);
    body.put("outcome", outcome);
    body.put("eventId", eventId);
    return new Reply(200, "application/json", Map.of(), body);
  }

  private static Reply problem(int status, String reason, String detail, long retryAfterSeconds) {
    ObjectNode body = JSON.createObjectNode();
    body.put("type", "urn:idemworker:problem:" + reason);
    body.put("title", title(status));
    body.put("status", status);
    body.put("detail", detail);
    body.put("reason", reason);
    Map<String, String> headers =
        retryAfterSeconds > 0 ? Map.of("Retry-After", Long.toString(retryAfterSeconds)) : Map.of();
    return new Reply(status, "application/problem+json", headers, body);
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
}
