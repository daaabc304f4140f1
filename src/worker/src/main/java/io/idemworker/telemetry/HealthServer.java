package io.idemworker.telemetry;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.idemworker.servicebus.WorkerStatus;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The HTTP probes for the container platform, on the JDK's built-in server:
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
 * <p>Requests are answered on the server's dispatcher thread, so the status supplier must be fast
 * and non-blocking. Not restartable: after {@link #close()} build a new one.
 */
public final class HealthServer implements AutoCloseable {

  /** Names the port variable. */
  static final String PORT_VARIABLE = "HEALTH_PORT";

  /** The port when {@value #PORT_VARIABLE} is not set. */
  static final int DEFAULT_PORT = 8080;

  /** The liveness probe's path; the api serves the same path on its own port. */
  public static final String LIVE_PATH = "/health/live";

  /** The readiness probe's path; the api serves the same path on its own port. */
  public static final String READY_PATH = "/health/ready";

  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpServer server;
  private final Supplier<WorkerStatus> status;

  /**
   * Binds the server on all interfaces; it answers once {@link #start()} is called.
   *
   * @param port the port; 0 picks a free one (see {@link #port()})
   * @param status the worker status, asked on every readiness request
   * @throws UncheckedIOException when the port cannot be bound
   */
  public HealthServer(int port, Supplier<WorkerStatus> status) {
    this(new InetSocketAddress(checkPort(port)), status);
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
    try {
      server = HttpServer.create(address, 0);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot bind the health endpoints to " + address, e);
    }
    server.createContext("/", this::handle);
  }

  /**
   * The port from {@value #PORT_VARIABLE}, or {@value #DEFAULT_PORT} when it is unset or blank.
   *
   * @param environment the environment variables
   * @return the port, 0–65535
   * @throws IllegalArgumentException naming the variable when the value is not a port
   */
  static int portFrom(Map<String, String> environment) {
    String value = environment.get(PORT_VARIABLE);
    if (value == null || value.isBlank()) {
      return DEFAULT_PORT;
    }
    try {
      return checkPort(Integer.parseInt(value.strip()));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          PORT_VARIABLE + " must be a port number 0-65535, was '" + value + "'", e);
    }
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
    return server.getAddress().getPort();
  }

  /** Stops at once: requests in progress are cut off. Idempotent. */
  @Override
  public void close() {
    server.stop(0);
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      String path = exchange.getRequestURI().getPath();
      if (!LIVE_PATH.equals(path) && !READY_PATH.equals(path)) {
        respond(exchange, 404, body("status", "NOT_FOUND"));
        return;
      }
      if (!"GET".equals(exchange.getRequestMethod())) {
        exchange.getResponseHeaders().set("Allow", "GET");
        respond(exchange, 405, body("status", "METHOD_NOT_ALLOWED"));
        return;
      }
      if (LIVE_PATH.equals(path)) {
        respond(exchange, 200, body("status", "UP"));
      } else {
        ready(exchange);
      }
    }
  }

  private void ready(HttpExchange exchange) throws IOException {
    WorkerStatus current;
    try {
      current = status.get();
    } catch (RuntimeException e) {
      ObjectNode body = body("status", "NOT_READY");
      body.put("reason", "worker status unavailable: " + e.getClass().getSimpleName());
      respond(exchange, 503, body);
      return;
    }
    if (current.ready()) {
      respond(exchange, 200, body("status", "READY"));
      return;
    }
    ObjectNode body = body("status", "NOT_READY");
    body.put("state", current.state().name());
    current.reason().ifPresent(reason -> body.put("reason", reason));
    respond(exchange, 503, body);
  }

  private static ObjectNode body(String field, String value) {
    ObjectNode body = JSON.createObjectNode();
    body.put(field, value);
    return body;
  }

  private static void respond(HttpExchange exchange, int code, ObjectNode body) throws IOException {
    byte[] bytes;
    try {
      bytes = JSON.writeValueAsBytes(body);
    } catch (JsonProcessingException e) {
      throw new IOException(e);
    }
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.getResponseHeaders().set("Cache-Control", "no-store");
    exchange.sendResponseHeaders(code, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  private static int checkPort(int port) {
    if (port < 0 || port > 65_535) {
      throw new IllegalArgumentException(PORT_VARIABLE + " must be 0-65535, was " + port);
    }
    return port;
  }
}
