package io.idemworker.emulator.payments;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import io.idemworker.emulator.Latencies;
import io.idemworker.emulator.payments.IdempotencyKeys.Claim;
import io.idemworker.emulator.payments.IdempotencyKeys.InFlight;
import io.idemworker.emulator.payments.IdempotencyKeys.Mismatch;
import io.idemworker.emulator.payments.IdempotencyKeys.Replay;
import io.idemworker.emulator.payments.IdempotencyKeys.StoredResponse;
import io.idemworker.emulator.payments.PaymentFaults.Failure;
import io.idemworker.emulator.payments.PaymentFaults.Pause;
import io.idemworker.emulator.payments.PaymentFaults.Plan;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves {@code /v1/captures}: {@code POST} executes a capture under an idempotency key, {@code
 * GET} lists the ledger. Runs on the emulator's bounded executor; thread-safe because the key
 * table, the ledger, the faults and the counters are.
 */
final class CapturesHandler implements HttpHandler {
  static final String PATH = "/v1/captures";
  static final int MAX_BODY_BYTES = 64 * 1024;
  static final int MAX_KEY_LENGTH = 255;
  private static final Logger LOG = LoggerFactory.getLogger(CapturesHandler.class);

  private final ObjectMapper mapper =
      new ObjectMapper()
          .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
  private final byte[] expectedToken;
  private final Clock clock;
  private final IdempotencyKeys keys;
  private final Ledger ledger;
  private final PaymentFaults faults;
  private final PaymentStats.Counters stats;
  private final WebhookSender webhooks;

  CapturesHandler(
      String apiKey,
      Clock clock,
      IdempotencyKeys keys,
      Ledger ledger,
      PaymentFaults faults,
      PaymentStats.Counters stats,
      WebhookSender webhooks) {
    this.expectedToken = apiKey.getBytes(StandardCharsets.UTF_8);
    this.clock = clock;
    this.keys = keys;
    this.ledger = ledger;
    this.faults = faults;
    this.stats = stats;
    this.webhooks = webhooks;
  }

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    stats.requests.increment();
    try {
      route(exchange);
    } catch (InterruptedException e) {
      // The emulator is closing: cut the request as a dying server would.
      Thread.currentThread().interrupt();
      exchange.close();
    } catch (RuntimeException e) {
      LOG.warn("payments emulator failed on {} {}", exchange.getRequestMethod(), PATH, e);
      Answers.error(exchange, 500, "api_error", "internal_error", null, "internal error");
    }
  }

  private void route(HttpExchange exchange) throws IOException, InterruptedException {
    String method = exchange.getRequestMethod();
    if (!PATH.equals(exchange.getRequestURI().getPath())) {
      reject(exchange, 404, "resource_missing", null, "no such resource; captures are at " + PATH);
    } else if (!"GET".equals(method) && !"POST".equals(method)) {
      exchange.getResponseHeaders().set("Allow", "GET, POST");
      reject(exchange, 405, "method_not_allowed", null, method + " is not allowed on " + PATH);
    } else if (!authorised(exchange)) {
      stats.rejected.increment();
      exchange.getResponseHeaders().set("WWW-Authenticate", "Bearer");
      Answers.error(
          exchange,
          401,
          "authentication_error",
          "invalid_api_key",
          null,
          "missing or invalid API key; send Authorization: Bearer <key>");
    } else if ("GET".equals(method)) {
      listLedger(exchange);
    } else {
      capture(exchange);
    }
  }

  private boolean authorised(HttpExchange exchange) {
    String header = exchange.getRequestHeaders().getFirst("Authorization");
    if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return false;
    }
    byte[] token = header.substring(7).strip().getBytes(StandardCharsets.UTF_8);
    return MessageDigest.isEqual(token, expectedToken);
  }

  private void listLedger(HttpExchange exchange) throws IOException {
    Optional<String> orderId = Optional.empty();
    String query = exchange.getRequestURI().getRawQuery();
    if (query != null && !query.isEmpty()) {
      for (String pair : query.split("&")) {
        int eq = pair.indexOf('=');
        String name =
            URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
        if (!"orderId".equals(name) || eq < 0 || orderId.isPresent()) {
          reject(
              exchange, 400, "parameter_unknown", name, "the only query parameter is one orderId");
          return;
        }
        orderId = Optional.of(URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
      }
    }
    ArrayNode list = mapper.createArrayNode();
    ledger
        .list(orderId)
        .forEach(
            c -> list.add(Answers.capture(mapper, c).put("idempotencyKey", c.idempotencyKey())));
    Answers.send(exchange, 200, mapper.writeValueAsBytes(list), Map.of());
  }

  private void capture(HttpExchange exchange) throws IOException, InterruptedException {
    List<String> keyHeaders = exchange.getRequestHeaders().get("Idempotency-Key");
    if (keyHeaders == null || keyHeaders.size() != 1 || keyHeaders.get(0).isEmpty()) {
      reject(
          exchange,
          400,
          "parameter_missing",
          "Idempotency-Key",
          "send exactly one Idempotency-Key header");
      return;
    }
    String key = keyHeaders.get(0);
    if (key.length() > MAX_KEY_LENGTH) {
      reject(
          exchange,
          400,
          "parameter_invalid",
          "Idempotency-Key",
          "Idempotency-Key must be 1-255 characters");
      return;
    }
    String contentType = exchange.getRequestHeaders().getFirst("Content-Type");
    if (contentType == null
        || !contentType.toLowerCase(Locale.ROOT).startsWith("application/json")) {
      reject(
          exchange,
          415,
          "unsupported_media_type",
          null,
          "send the body as Content-Type: application/json");
      return;
    }
    byte[] body = exchange.getRequestBody().readNBytes(MAX_BODY_BYTES + 1);
    if (body.length > MAX_BODY_BYTES) {
      reject(
          exchange,
          413,
          "body_too_large",
          null,
          "the body must be at most " + MAX_BODY_BYTES + " bytes");
      return;
    }
    JsonNode json;
    try {
      json = mapper.readTree(body);
    } catch (JsonProcessingException e) {
      reject(exchange, 400, "body_invalid", "body", "the body is not valid JSON");
      return;
    }
    CaptureRequest.Parsed parsed = CaptureRequest.parse(json);
    if (parsed.request().isEmpty()) {
      CaptureRequest.Violation first = parsed.violations().get(0);
      String message =
          String.join(
              "; ", parsed.violations().stream().map(CaptureRequest.Violation::message).toList());
      reject(exchange, 400, "parameter_invalid", first.param(), message);
      return;
    }
    CaptureRequest request = parsed.request().get();
    Claim claim = keys.claim(key, request, clock.instant());
    exchange.getResponseHeaders().set("Idempotency-Key", key);
    if (claim instanceof Replay replay) {
      stats.replays.increment();
      StoredResponse stored = replay.response();
      Answers.send(exchange, stored.status(), stored.body(), Map.of("Idempotent-Replayed", "true"));
    } else if (claim instanceof InFlight) {
      stats.inFlightConflicts.increment();
      Answers.error(
          exchange,
          409,
          "idempotency_error",
          "idempotency_key_in_use",
          null,
          "a request with this Idempotency-Key is still being executed; retry later with the same key");
    } else if (claim instanceof Mismatch mismatch) {
      stats.keyConflicts.increment();
      Answers.error(
          exchange,
          422,
          "idempotency_error",
          "idempotency_key_reused",
          null,
          "this Idempotency-Key was first used with other parameters; differing: "
              + String.join(", ", mismatch.fields()));
    } else {
      execute(exchange, key, request);
    }
  }

  /** Runs a claimed key to its stored answer, or gives the key up if no capture was made. */
  private void execute(HttpExchange exchange, String key, CaptureRequest request)
      throws IOException, InterruptedException {
    boolean settled = false;
    try {
      Plan plan = faults.onExecution();
      Latencies.await(plan.latency());
      for (Pause pause : plan.pauses()) {
        pause.hold();
      }
      if (plan.failure() == Failure.FAIL_BEFORE_APPLY) {
        keys.release(key);
        settled = true;
        stats.faulted.increment();
        Answers.error(
            exchange,
            500,
            "api_error",
            "injected_fault",
            null,
            "the capture was not executed; retry with the same key");
        return;
      }
      Instant now = clock.instant();
      Ledger.Capture capture = ledger.execute(key, request, now);
      StoredResponse response =
          new StoredResponse(
              capture.declineCode().isPresent() ? 402 : 201,
              mapper.writeValueAsBytes(Answers.capture(mapper, capture)));
      keys.complete(key, response, now);
      settled = true;
      // Queued for the sender's own threads: the capture's answer never waits for a receiver.
      webhooks.captured(capture);
      stats.executed.increment();
      if (capture.declineCode().isPresent()) {
        stats.declined.increment();
      }
      if (plan.failure() == Failure.APPLY_THEN_DROP) {
        stats.faulted.increment();
        exchange.close();
        return;
      }
      Answers.send(exchange, response.status(), response.body(), Map.of());
    } finally {
      if (!settled) {
        keys.release(key);
      }
    }
  }

  private void reject(HttpExchange exchange, int status, String code, String param, String message)
      throws IOException {
    stats.rejected.increment();
    Answers.error(exchange, status, "invalid_request_error", code, param, message);
  }
}
