package io.idemworker.payments;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.orders.CaptureAnswer;
import io.idemworker.orders.CaptureAnswer.Ambiguous;
import io.idemworker.orders.CaptureAnswer.Captured;
import io.idemworker.orders.CaptureAnswer.Declined;
import io.idemworker.orders.CaptureAnswer.InFlight;
import io.idemworker.orders.CaptureAnswer.KeyConflict;
import io.idemworker.orders.CaptureAnswer.Rejected;
import io.idemworker.orders.PaymentProvider;
import java.io.IOException;
import java.math.BigDecimal;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;

/**
 * {@link PaymentProvider} over the provider's HTTP API ({@code POST /v1/captures} with {@code
 * Authorization: Bearer} and {@code Idempotency-Key}), on the JDK's {@link HttpClient}.
 *
 * <p>Thread-safe: one instance serves any number of concurrent captures over one connection pool.
 * {@link #capture} never throws: every answer, network failure, timeout, interruption and bad
 * argument becomes a {@link CaptureAnswer}. Each call makes exactly one HTTP attempt (the JDK
 * client does not resend a {@code POST}); retrying is the caller's decision, with the same key.
 * Each attempt, connecting included, waits at most the request timeout for the complete answer
 * (status, headers and body), then answers {@link Ambiguous}.
 */
public final class HttpPaymentProvider implements PaymentProvider {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern KEY = Pattern.compile("[\\x21-\\x7E]{1,255}");

  private final URI captures;
  private final String authorization;
  private final Duration requestTimeout;
  private final HttpClient client;

  /**
   * A provider client.
   *
   * @param baseUrl the API root, {@code http} or {@code https}, for example {@code
   *     https://api.example.com} ({@code /v1/captures} is appended)
   * @param apiKey the secret API key, sent as {@code Authorization: Bearer <apiKey>}
   * @param requestTimeout the most one attempt waits for its answer, positive
   * @throws IllegalArgumentException naming the argument when one is not usable
   */
  public HttpPaymentProvider(URI baseUrl, String apiKey, Duration requestTimeout) {
    this(baseUrl, apiKey, requestTimeout, defaultClient(requestTimeout));
  }

  HttpPaymentProvider(URI baseUrl, String apiKey, Duration requestTimeout, HttpClient client) {
    this.captures = captures(baseUrl);
    Objects.requireNonNull(apiKey, "apiKey");
    if (!KEY.matcher(apiKey).matches()) {
      throw new IllegalArgumentException("apiKey must be 1-255 visible ASCII characters");
    }
    this.authorization = "Bearer " + apiKey;
    this.requestTimeout = requirePositive(requestTimeout);
    this.client = Objects.requireNonNull(client, "client");
  }

  @Override
  public CaptureAnswer capture(
      String idempotencyKey, String orderId, BigDecimal amount, String currency) {
    Optional<Rejected> unsendable = checkArguments(idempotencyKey, orderId, amount, currency);
    if (unsendable.isPresent()) {
      return unsendable.get();
    }
    HttpRequest request;
    try {
      request = request(idempotencyKey, orderId, amount, currency);
    } catch (IllegalArgumentException | JsonProcessingException e) {
      return new Rejected(0, "the request cannot be built: " + e.getMessage());
    }
    CompletableFuture<HttpResponse<byte[]>> pending;
    try {
      pending = client.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray());
    } catch (RuntimeException e) {
      return new Rejected(0, "the HTTP client refused the request: " + describe(e));
    }
    HttpResponse<byte[]> response;
    try {
      // The client's own timeout ends when the headers arrive; this one also bounds the body.
      response = pending.get(requestTimeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      pending.cancel(true);
      return noAnswer(e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      if (cause instanceof HttpTimeoutException) {
        return noAnswer(cause);
      }
      return new Ambiguous(
          (cause instanceof IOException ? "connection failed: " : "the HTTP client failed: ")
              + describe(cause));
    } catch (InterruptedException e) {
      pending.cancel(true);
      Thread.currentThread().interrupt();
      return new Ambiguous("interrupted while waiting for the answer");
    }
    return classify(response);
  }

  /** Maps one HTTP answer to a capture answer; package-private for the mapping tests. */
  static CaptureAnswer classify(HttpResponse<byte[]> response) {
    int status = response.statusCode();
    boolean replayed =
        response
            .headers()
            .firstValue("Idempotent-Replayed")
            .map("true"::equalsIgnoreCase)
            .orElse(false);
    Optional<JsonNode> body = parse(response.body());
    if (status == 200 || status == 201) {
      Optional<String> id = body.flatMap(b -> text(b, "id"));
      boolean captured =
          body.flatMap(b -> text(b, "status")).filter("captured"::equals).isPresent();
      return id.isPresent() && captured
          ? new Captured(id.get(), replayed)
          : new Ambiguous("HTTP " + status + " without a readable captured body");
    }
    if (status == 402) {
      return body.flatMap(b -> text(b, "declineCode"))
          .<CaptureAnswer>map(code -> new Declined(code, replayed))
          .orElseGet(() -> new Ambiguous("HTTP 402 without a readable declineCode"));
    }
    String message =
        "HTTP "
            + status
            + body.flatMap(HttpPaymentProvider::errorMessage).map(m -> ": " + m).orElse("");
    if (status == 409) {
      return new InFlight();
    }
    if (status == 422) {
      return new KeyConflict(message);
    }
    if (status == 408 || status == 429 || status >= 500) {
      return new Ambiguous(message);
    }
    return new Rejected(status, message);
  }

  private HttpRequest request(
      String idempotencyKey, String orderId, BigDecimal amount, String currency)
      throws JsonProcessingException {
    ObjectNode body = JSON.createObjectNode();
    body.put("orderId", orderId);
    // A string keeps the exact decimal; a JSON number invites binary floating point downstream.
    body.put("amount", amount.toPlainString());
    body.put("currency", currency);
    return HttpRequest.newBuilder(captures)
        .timeout(requestTimeout)
        .header("Authorization", authorization)
        .header("Idempotency-Key", idempotencyKey)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json")
        .POST(HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body)))
        .build();
  }

  private static Optional<Rejected> checkArguments(
      String idempotencyKey, String orderId, BigDecimal amount, String currency) {
    if (idempotencyKey == null || !KEY.matcher(idempotencyKey).matches()) {
      return Optional.of(
          new Rejected(0, "idempotencyKey must be 1-255 visible ASCII characters, not sent"));
    }
    if (orderId == null || amount == null || currency == null) {
      return Optional.of(new Rejected(0, "orderId, amount and currency are required, not sent"));
    }
    return Optional.empty();
  }

  private static Optional<JsonNode> parse(byte[] body) {
    if (body == null || body.length == 0) {
      return Optional.empty();
    }
    try {
      return Optional.of(JSON.readTree(body));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  private static Optional<String> text(JsonNode node, String field) {
    JsonNode value = node.get(field);
    return value != null && value.isTextual() && !value.asText().isBlank()
        ? Optional.of(value.asText())
        : Optional.empty();
  }

  private static Optional<String> errorMessage(JsonNode body) {
    JsonNode error = body.get("error");
    return error == null ? Optional.empty() : text(error, "message");
  }

  private Ambiguous noAnswer(Throwable e) {
    return new Ambiguous("no answer within " + requestTimeout + ": " + describe(e));
  }

  private static String describe(Throwable e) {
    return e.getClass().getSimpleName() + (e.getMessage() == null ? "" : " " + e.getMessage());
  }

  private static URI captures(URI baseUrl) {
    Objects.requireNonNull(baseUrl, "baseUrl");
    String scheme = baseUrl.getScheme();
    if (!("http".equalsIgnoreCase(scheme) || "https".equalsIgnoreCase(scheme))
        || baseUrl.getHost() == null
        || baseUrl.getRawQuery() != null
        || baseUrl.getRawFragment() != null) {
      throw new IllegalArgumentException(
          "baseUrl must be an http or https URL without query or fragment, got " + baseUrl);
    }
    String root = baseUrl.toString().replaceAll("/+$", "");
    return URI.create(root + "/v1/captures");
  }

  private static Duration requirePositive(Duration timeout) {
    Objects.requireNonNull(timeout, "requestTimeout");
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("requestTimeout must be positive, got " + timeout);
    }
    return timeout;
  }

  private static HttpClient defaultClient(Duration requestTimeout) {
    return HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(requirePositive(requestTimeout))
        .followRedirects(HttpClient.Redirect.NEVER)
        .build();
  }
}
