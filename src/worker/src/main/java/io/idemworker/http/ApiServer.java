package io.idemworker.http;

import io.idemworker.http.server.Answer;
import io.idemworker.http.server.BoundedServer;
import io.idemworker.http.server.Head;
import io.idemworker.http.server.Routes;
import io.idemworker.http.server.ServerLimits;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The api's route table on a {@link BoundedServer}: routing, authentication, the body limit, and
 * the writing of {@link HttpAnswer}s. What a route means lives in its handler ({@link OrderIntake}
 * for {@code POST /orders}, the payment webhook receiver for {@code POST /webhooks/payments});
 * adding a route is one {@link Route} in the list given to the constructor.
 *
 * <ul>
 *   <li>no route for the path → 404; a route for the path but not the method → 405 with {@code
 *       Allow};
 *   <li>a {@link Access#CALLER} route without valid credentials → 401 with {@code
 *       WWW-Authenticate}, decided on the head: the body is never read;
 *   <li>a route's {@link Route#beforeBody} refusal (e.g. a wrong media type) → its answer, also
 *       without reading the body;
 *   <li>a body over the route's limit → 413: a chunked one read no further than the limit, one that
 *       declares its length read and dropped first when it is at most 1 MiB (so the client gets the
 *       answer before the connection closes), a longer one not read;
 *   <li>a handler that throws → 500 problem without the exception's text; {@link
 *       IntakeFaults.Crash} → the connection is dropped without an answer.
 * </ul>
 *
 * <p>{@link Access#PROBE} routes are answered on the server's own threads, never behind the intake,
 * so the probes answer while every intake worker is busy; their handlers must be fast and must not
 * block. Every answer carries {@code Cache-Control: no-store}; the server's limits are in {@link
 * BoundedServer}. Not restartable: after {@link #close()} build a new one.
 */
public final class ApiServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ApiServer.class);

  private final BoundedServer server;
  private final List<Route> routes;
  private final ApiAuth auth;
  private final int maxBodyBytes;
  private final CachedReadiness resources;

  /** Who may call a route. */
  enum Access {
    /** Anyone, answered from the head alone on the server's threads: health probes. */
    PROBE,
    /** Callers that pass {@code API_AUTH}; they count against their own in-flight bound. */
    CALLER,
    /** Anyone; the route authenticates for itself (the webhook's signature). */
    OPEN
  }

  /**
   * One entry of the route table.
   *
   * @param method the HTTP method
   * @param path an exact path, or a prefix ending in {@code /*} that matches one more segment
   * @param access who may call it
   * @param maxBodyBytes the route's body limit; 0 = the api's ({@code API_MAX_BODY_BYTES})
   * @param beforeBody a refusal decided on the head alone (must not block), or empty
   * @param handler the route's meaning; may throw {@link IntakeFaults.Crash}
   */
  record Route(
      String method,
      String path,
      Access access,
      int maxBodyBytes,
      Function<ApiRequest, Optional<HttpAnswer>> beforeBody,
      Function<ApiRequest, HttpAnswer> handler) {
    /** Requires every value. */
    Route {
      Objects.requireNonNull(method, "method");
      Objects.requireNonNull(path, "path");
      Objects.requireNonNull(access, "access");
      Objects.requireNonNull(beforeBody, "beforeBody");
      Objects.requireNonNull(handler, "handler");
    }

    /** A route without a refusal on the head, with the api's body limit. */
    Route(String method, String path, Access access, Function<ApiRequest, HttpAnswer> handler) {
      this(method, path, access, 0, r -> Optional.empty(), handler);
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
   * Binds the server; it answers once {@link #start()} is called.
   *
   * @param address the address; port 0 picks a free one
   * @param routes the route table, tried in order
   * @param auth who may call the {@link Access#CALLER} routes
   * @param maxBodyBytes the largest request body, unless a route says otherwise
   * @param limits what one client may hold
   * @param resources closed with the server (e.g. a background readiness check)
   * @throws java.io.UncheckedIOException when the address cannot be bound
   */
  ApiServer(
      InetSocketAddress address,
      List<Route> routes,
      ApiAuth auth,
      int maxBodyBytes,
      ServerLimits limits,
      CachedReadiness resources) {
    this.resources = Objects.requireNonNull(resources, "resources");
    this.routes = List.copyOf(routes);
    this.auth = Objects.requireNonNull(auth, "auth");
    this.maxBodyBytes = maxBodyBytes;
    this.server = new BoundedServer("api", address, limits, this::decide);
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
    resources.close();
  }

  private Routes.Decision decide(Head head) {
    List<Route> forPath = routes.stream().filter(r -> r.matches(head.path())).toList();
    if (forPath.isEmpty()) {
      return now(HttpAnswer.problem(404, "NotFound", "Not found", "no resource at this path"));
    }
    Optional<Route> found =
        forPath.stream().filter(r -> r.method().equals(head.method())).findFirst();
    if (found.isEmpty()) {
      Set<String> allowed = new LinkedHashSet<>();
      forPath.forEach(r -> allowed.add(r.method()));
      return now(
          HttpAnswer.problem(
                  405,
                  "MethodNotAllowed",
                  "Method not allowed",
                  "this resource answers " + String.join(", ", allowed))
              .with("Allow", String.join(", ", allowed)));
    }
    Route route = found.get();
    String principal = "anonymous";
    if (route.access() == Access.CALLER) {
      Optional<String> caller = auth.principal(head::single);
      if (caller.isEmpty()) {
        return now(
            HttpAnswer.problem(
                    401, "Unauthorized", "Unauthorized", "valid credentials are required")
                .with("WWW-Authenticate", auth.challenge()));
      }
      principal = caller.get();
    }
    ApiRequest withoutBody = request(head, new byte[0], principal);
    if (route.access() == Access.PROBE) {
      return now(route.handler().apply(withoutBody));
    }
    Optional<HttpAnswer> refusal = route.beforeBody().apply(withoutBody);
    if (refusal.isPresent()) {
      return now(refusal.get());
    }
    String who = principal;
    String caller = route.access() == Access.CALLER ? principal : "client:" + head.client();
    int limit = route.maxBodyBytes() > 0 ? route.maxBodyBytes() : maxBodyBytes;
    return new Routes.Admit(
        caller,
        limit,
        body -> {
          try {
            return Optional.of(answer(route.handler().apply(request(head, body, who))));
          } catch (IntakeFaults.Crash crash) {
            LOG.warn("{} {}: {}", head.method(), head.path(), crash.getMessage());
            return Optional.empty();
          }
        });
  }

  private static ApiRequest request(Head head, byte[] body, String principal) {
    return new ApiRequest(head.method(), head.path(), head.headers(), body, principal);
  }

  private static Routes.Now now(HttpAnswer answer) {
    return new Routes.Now(answer(answer));
  }

  private static Answer answer(HttpAnswer answer) {
    return new Answer(answer.status(), answer.contentType(), answer.headers(), answer.bodyBytes());
  }

  /**
   * The routes' paths and methods, for logs.
   *
   * @return e.g. {@code POST /orders}
   */
  public List<String> describe() {
    List<String> lines = new ArrayList<>();
    routes.forEach(
        r ->
            lines.add(
                r.method()
                    + " "
                    + r.path()
                    + (r.access() == Access.OPEN ? " (own authentication)" : "")));
    return lines;
  }
}
