package io.idemworker.http;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The api's HTTP server on the JDK's built-in server: a small route table, authentication, the body
 * limit, and the writing of {@link HttpAnswer}s. What a route means lives in its handler ({@link
 * OrderIntake} for {@code POST /orders}); adding a route is one {@link Route} in the list given to
 * the constructor. An intake with its own protocol and status mapping (the payment webhook
 * receiver) is a {@link Mount} instead: a raw {@link HttpHandler} at a path, which the JDK server
 * prefers over the route table because its context is the longer match. A mount does its own
 * authentication (the webhook's is its signature, not {@code API_AUTH}), body limit and answers.
 *
 * <ul>
 *   <li>no route for the path → 404; a route for the path but not the method → 405 with {@code
 *       Allow};
 *   <li>an authenticated route without valid credentials → 401 with {@code WWW-Authenticate};
 *   <li>a body over the limit → 413, read no further than the limit;
 *   <li>a handler that throws → 500 problem without the exception's text; {@link
 *       IntakeFaults.Crash} → the connection is dropped without an answer.
 * </ul>
 *
 * <p>Every answer carries {@code Cache-Control: no-store}. Handlers run on the given executor, so
 * requests are served concurrently. Not restartable: after {@link #close()} build a new one.
 */
public final class ApiServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ApiServer.class);

  private final HttpServer server;
  private final List<Route> routes;
  private final List<Mount> mounts;
  private final ApiAuth auth;
  private final int maxBodyBytes;

  /**
   * One entry of the route table.
   *
   * @param method the HTTP method
   * @param path an exact path, or a prefix ending in {@code /*} that matches one more segment
   * @param authenticated whether the caller must pass {@code API_AUTH} (health probes do not)
   * @param handler the route's meaning; may throw {@link IntakeFaults.Crash}
   */
  record Route(
      String method, String path, boolean authenticated, Function<ApiRequest, HttpAnswer> handler) {
    /** Requires every value. */
    Route {
      Objects.requireNonNull(method, "method");
      Objects.requireNonNull(path, "path");
      Objects.requireNonNull(handler, "handler");
    }

    boolean matches(String requestPath) {
      if (!path.endsWith("/*")) {
        return path.equals(requestPath);
      }
      String prefix = path.substring(0, path.length() - 1);
      String rest = requestPath.startsWith(prefix) ? requestPath.substring(prefix.length()) : "";
      return !rest.isEmpty() && !rest.contains("/");
    }
  }

  /**
   * A raw handler at a path, outside the route table: it sees every request whose path starts with
   * {@code path} and answers all of them itself, without {@code API_AUTH} or the api's body limit.
   *
   * @param path an absolute path other than {@code /}, e.g. {@code /webhooks/payments}
   * @param handler answers every request under the path; must not throw for a request it refuses
   */
  record Mount(String path, HttpHandler handler) {
    /** Requires an absolute path other than the root, which belongs to the route table. */
    Mount {
      Objects.requireNonNull(path, "path");
      Objects.requireNonNull(handler, "handler");
      if (!path.startsWith("/") || path.length() < 2) {
        throw new IllegalArgumentException("a mount needs a path under /, was '" + path + "'");
      }
    }
  }

  /**
   * Binds the server; it answers once {@link #start()} is called.
   *
   * @param address the address; port 0 picks a free one
   * @param routes the route table, tried in order
   * @param mounts raw handlers at their own paths, each answering for itself
   * @param auth who may call the authenticated routes
   * @param maxBodyBytes the largest request body
   * @param executor runs the handlers
   * @throws UncheckedIOException when the address cannot be bound
   */
  ApiServer(
      InetSocketAddress address,
      List<Route> routes,
      List<Mount> mounts,
      ApiAuth auth,
      int maxBodyBytes,
      Executor executor) {
    this.routes = List.copyOf(routes);
    this.mounts = List.copyOf(mounts);
    this.auth = Objects.requireNonNull(auth, "auth");
    this.maxBodyBytes = maxBodyBytes;
    try {
      server = HttpServer.create(address, 64);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot bind the api to " + address, e);
    }
    server.setExecutor(Objects.requireNonNull(executor, "executor"));
    server.createContext("/", this::handle);
    this.mounts.forEach(m -> server.createContext(m.path(), m.handler()));
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
    try {
      Optional<HttpAnswer> answer = answer(exchange);
      if (answer.isEmpty()) {
        // A simulated crash: no status line, the connection just ends.
        exchange.close();
        return;
      }
      write(exchange, answer.get());
    } finally {
      exchange.close();
    }
  }

  private Optional<HttpAnswer> answer(HttpExchange exchange) {
    String path = exchange.getRequestURI().getPath();
    String method = exchange.getRequestMethod();
    List<Route> forPath = routes.stream().filter(r -> r.matches(path)).toList();
    if (forPath.isEmpty()) {
      return Optional.of(
          HttpAnswer.problem(404, "NotFound", "Not found", "no resource at this path"));
    }
    Optional<Route> route = forPath.stream().filter(r -> r.method().equals(method)).findFirst();
    if (route.isEmpty()) {
      Set<String> allowed = new LinkedHashSet<>();
      forPath.forEach(r -> allowed.add(r.method()));
      return Optional.of(
          HttpAnswer.problem(
                  405,
                  "MethodNotAllowed",
                  "Method not allowed",
                  "this resource answers " + String.join(", ", allowed))
              .with("Allow", String.join(", ", allowed)));
    }
    String principal = "anonymous";
    if (route.get().authenticated()) {
      Optional<String> caller =
          auth.principal(
              name -> {
                List<String> values = exchange.getRequestHeaders().get(name);
                return values != null && values.size() == 1
                    ? Optional.of(values.get(0))
                    : Optional.empty();
              });
      if (caller.isEmpty()) {
        return Optional.of(
            HttpAnswer.problem(
                    401, "Unauthorized", "Unauthorized", "valid credentials are required")
                .with("WWW-Authenticate", auth.challenge()));
      }
      principal = caller.get();
    }
    Optional<byte[]> body;
    try {
      body = readBody(exchange);
    } catch (IOException e) {
      return Optional.of(
          HttpAnswer.problem(
              400, "UnreadableRequest", "Bad request", "the body could not be read"));
    }
    if (body.isEmpty()) {
      return Optional.of(
          HttpAnswer.problem(
              413,
              "BodyTooLarge",
              "Content too large",
              "the body is larger than the limit (API_MAX_BODY_BYTES) of "
                  + maxBodyBytes
                  + " bytes"));
    }
    ApiRequest request =
        new ApiRequest(method, path, exchange.getRequestHeaders(), body.get(), principal);
    try {
      return Optional.of(route.get().handler().apply(request));
    } catch (IntakeFaults.Crash crash) {
      LOG.warn("{} {}: {}", method, path, crash.getMessage());
      return Optional.empty();
    } catch (RuntimeException e) {
      LOG.error("{} {} failed with {}", method, path, e.getClass().getName(), e);
      return Optional.of(
          HttpAnswer.problem(
              500, "InternalError", "Internal error", "the request failed; it may be retried"));
    }
  }

  /** The body, or empty when it is larger than the limit; never reads past the limit. */
  private Optional<byte[]> readBody(HttpExchange exchange) throws IOException {
    String length = exchange.getRequestHeaders().getFirst("Content-Length");
    if (length != null) {
      try {
        if (Long.parseLong(length.strip()) > maxBodyBytes) {
          return Optional.empty();
        }
      } catch (NumberFormatException e) {
        throw new IOException("bad Content-Length", e);
      }
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] buffer = new byte[8192];
    try (InputStream in = exchange.getRequestBody()) {
      int read;
      while ((read = in.read(buffer)) >= 0) {
        out.write(buffer, 0, read);
        if (out.size() > maxBodyBytes) {
          return Optional.empty();
        }
      }
    }
    return Optional.of(out.toByteArray());
  }

  private static void write(HttpExchange exchange, HttpAnswer answer) throws IOException {
    byte[] bytes = answer.bodyBytes();
    answer.headers().forEach((name, value) -> exchange.getResponseHeaders().set(name, value));
    exchange.getResponseHeaders().set("Content-Type", answer.contentType());
    exchange.getResponseHeaders().set("Cache-Control", "no-store");
    exchange.sendResponseHeaders(answer.status(), bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  /**
   * The routes' paths and methods, for logs.
   *
   * @return e.g. {@code POST /orders}, and {@code * /webhooks/payments} for a mount
   */
  public List<String> describe() {
    List<String> lines = new ArrayList<>();
    routes.forEach(r -> lines.add(r.method() + " " + r.path()));
    mounts.forEach(m -> lines.add("* " + m.path() + " (own authentication)"));
    return lines;
  }
}
