package io.idemworker.telemetry;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.http.server.Answer;
import io.idemworker.http.server.BoundedServer;
import io.idemworker.http.server.Head;
import io.idemworker.http.server.Routes;
import io.idemworker.http.server.ServerLimits;
import io.idemworker.servicebus.WorkerStatus;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The HTTP probes for the container platform, on the api's server stack ({@link BoundedServer}):
 *
 * <ul>
 *   <li>{@code GET /health/live} → 200 {@code {"status":"UP"}} for as long as the server runs;
 *   <li>{@code GET /health/ready} → 200 {@code {"status":"READY"}} when the worker status is
 *       {@linkplain WorkerStatus#ready() ready}, else 503 {@code
 *       {"status":"NOT_READY","state":"PAUSED","reason":"…"}} ({@code reason} only when the status
 *       has one); a status supplier that throws also answers 503;
 *   <li>any other path → 404; any other method on a probe path → 405 with {@code Allow: GET}.
 * </ul>
 *
 * <p>Probes are answered from the request head on the server's own threads; a connection that
 * stalls mid-request holds no thread (it is answered 408 and closed after {@link #HEAD_TIMEOUT}),
 * so one slow client cannot hang the probes. The status supplier must be fast and non-blocking. A
 * request with a body is refused 400 without reading it. Not restartable: after {@link #close()}
 * build a new one.
 */
public final class HealthServer implements AutoCloseable {

  /** The liveness probe's path; the api serves the same path on its own port. */
  public static final String LIVE_PATH = "/health/live";

  /** The readiness probe's path; the api serves the same path on its own port. */
  public static final String READY_PATH = "/health/ready";

  /** How long a connection may take to send a probe's request head. */
  static final Duration HEAD_TIMEOUT = Duration.ofSeconds(5);

  private static final ObjectMapper JSON = new ObjectMapper();

  private final BoundedServer server;
  private final Supplier<WorkerStatus> status;

  /**
   * Binds the server; it answers once {@link #start()} is called.
   *
   * @param bind the address to listen on, e.g. the loopback address, or any address in a container
   * @param port the port, 0-65535; 0 picks a free one (see {@link #port()})
   * @param status the worker status, asked on every readiness request
   * @throws UncheckedIOException when the port cannot be bound
   * @throws IllegalArgumentException when the port is outside 0-65535
   */
  public HealthServer(InetAddress bind, int port, Supplier<WorkerStatus> status) {
    this(new InetSocketAddress(bind, checkPort(port)), status);
  }

  /**
   * Binds the server; it answers once {@link #start()} is called.
   *
   * @param address the address; port 0 picks a free one
   * @param status the worker status, asked on every readiness request
   * @throws UncheckedIOException when the address cannot be bound
   */
  HealthServer(InetSocketAddress address, Supplier<WorkerStatus> status) {
    Objects.requireNonNull(address, "address");
    this.status = Objects.requireNonNull(status, "status");
    server =
        new BoundedServer(
            "health",
            address,
            new ServerLimits(1024, 32, 1, 1, HEAD_TIMEOUT, HEAD_TIMEOUT, 8192),
            this::answer);
  }

  /** Starts answering requests. */
  public void start() {
    server.start();
  }

  /**
   * The port the server is bound to; useful after binding port 0.
   *
   * @return the port
   */
  public int port() {
    return server.port();
  }

  /** Stops at once: requests in progress are cut off. Idempotent. */
  @Override
  public void close() {
    server.close();
  }

  private Routes.Decision answer(Head head) {
    String path = head.path();
    if (!LIVE_PATH.equals(path) && !READY_PATH.equals(path)) {
      return respond(404, body("status", "NOT_FOUND"), Map.of());
    }
    if (!"GET".equals(head.method())) {
      return respond(405, body("status", "METHOD_NOT_ALLOWED"), Map.of("Allow", "GET"));
    }
    if (head.contentLength().orElse(0) > 0 || !head.header("Transfer-Encoding").isEmpty()) {
      return new Routes.Now(
          Answer.problem(400, "BodyNotAllowed", "Bad request", "a probe carries no body"));
    }
    if (LIVE_PATH.equals(path)) {
      return respond(200, body("status", "UP"), Map.of());
    }
    return ready();
  }

  private Routes.Decision ready() {
    WorkerStatus current;
    try {
      current = status.get();
    } catch (RuntimeException e) {
      ObjectNode body = body("status", "NOT_READY");
      body.put("reason", "worker status unavailable: " + e.getClass().getSimpleName());
      return respond(503, body, Map.of());
    }
    if (current.ready()) {
      return respond(200, body("status", "READY"), Map.of());
    }
    ObjectNode body = body("status", "NOT_READY");
    body.put("state", current.state().name());
    current.reason().ifPresent(reason -> body.put("reason", reason));
    return respond(503, body, Map.of());
  }

  private static ObjectNode body(String field, String value) {
    ObjectNode body = JSON.createObjectNode();
    body.put(field, value);
    return body;
  }

  private static Routes.Decision respond(int code, ObjectNode body, Map<String, String> headers) {
    try {
      return new Routes.Now(
          new Answer(code, "application/json", headers, JSON.writeValueAsBytes(body)));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a JSON tree always serialises", e);
    }
  }

  private static int checkPort(int port) {
    if (port < 0 || port > 65_535) {
      throw new IllegalArgumentException("the health port must be 0-65535, was " + port);
    }
    return port;
  }
}
