package io.idemworker.http.server;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.NetworkConnectionLimit;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An HTTP/1.1 server that a handful of clients cannot stall, on Jetty's core server.
 *
 * <p>Why Jetty: its parser and connection handling are asynchronous, so a connection that has sent
 * part of a request holds a buffer, not a thread; it parses strictly (RFC 9110: a bad request line,
 * a malformed {@code Content-Length}, a control character in a header are refused) and lets every
 * error it generates itself be written in our shape; and it is a blocking-friendly server (the
 * routes call the synchronous Cosmos DB SDK) with no framework around it. Reactor Netty, already on
 * the class path through the Azure SDK, would need its non-blocking model bridged for every route
 * and gives no hook for the answers its decoder writes on a malformed request.
 *
 * <p>What a client can hold, by {@link ServerLimits}:
 *
 * <ul>
 *   <li>connections: {@code maxConnections} in all (more wait in the backlog), {@code
 *       maxConnectionsPerClient} per remote address (more are closed as they open);
 *   <li>time: a connection must send a complete request head within {@code headerTimeout} of
 *       opening or of its previous answer, and an admitted body within {@code bodyTimeout}, or it
 *       is answered 408 {@code RequestTimeout} and closed. Neither wait holds a thread;
 *   <li>work: at most {@code maxInFlight} requests run their route's work at once, on the intake
 *       pool (more: 503 {@code Busy}, {@code Retry-After: 1}); at most {@code maxInFlightPerCaller}
 *       admitted requests per caller (more: 429 {@code TooManyRequests}, {@code Retry-After: 1}).
 * </ul>
 *
 * <p>Decisions on the head ({@link Routes#decide}: probes, refusals) run on the server's own
 * threads, which nothing blocks, so probes answer while the intake pool is full. Every answer
 * carries {@code Cache-Control: no-store}; every error, the server's own included (400 for a
 * malformed request, 408, 413, 431, 500, 501, 505), is {@code application/problem+json} in the
 * {@link Answer#problem} shape without exception text. Thread-safe. Not restartable: after {@link
 * #close()} build a new one.
 */
public final class BoundedServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(BoundedServer.class);

  /**
   * A declared body over a route's limit but at most this long is read and dropped (for at most
   * {@link #DRAIN_WAIT}) before the 413, so that the client reads the answer; a longer one is
   * answered at once and the connection closed.
   */
  static final long DRAINED_BEFORE_REFUSAL = 1024 * 1024;

  /** How long a body over the limit is drained at most before its 413 goes out regardless. */
  static final Duration DRAIN_WAIT = Duration.ofSeconds(1);

  private final String name;
  private final ServerLimits limits;
  private final Routes routes;
  private final Server server;
  private final ServerConnector connector;
  private final ThreadPoolExecutor intake;
  private final ScheduledExecutorService timers;
  private final Semaphore working;
  private final Map<String, AtomicInteger> callers = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> clients = new ConcurrentHashMap<>();
  private final Map<Connection, Activity> activity = new ConcurrentHashMap<>();

  /** Per connection: how many requests it has begun, and whether one is being answered. */
  private static final class Activity {
    final AtomicInteger requests = new AtomicInteger();
    final AtomicBoolean answering = new AtomicBoolean();
    final String client;

    Activity(String client) {
      this.client = client;
    }
  }

  /**
   * Binds the server; it answers once {@link #start()} is called.
   *
   * @param name names its threads, e.g. {@code api} or {@code health}
   * @param address where to listen; port 0 picks a free one
   * @param limits what a client may hold
   * @param routes what it serves
   * @throws UncheckedIOException when the address cannot be bound
   */
  public BoundedServer(String name, InetSocketAddress address, ServerLimits limits, Routes routes) {
    this.name = Objects.requireNonNull(name, "name");
    this.limits = Objects.requireNonNull(limits, "limits");
    this.routes = Objects.requireNonNull(routes, "routes");
    this.working = new Semaphore(limits.maxInFlight());
    AtomicInteger threads = new AtomicInteger();
    this.intake =
        new ThreadPoolExecutor(
            limits.maxInFlight(),
            limits.maxInFlight(),
            60,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            r -> daemon(r, name + "-intake-" + threads.incrementAndGet()));
    this.timers = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, name + "-timeouts"));
    QueuedThreadPool io = new QueuedThreadPool(16, 2);
    io.setName(name + "-io");
    io.setDaemon(true);
    server = new Server(io);
    HttpConfiguration config = new HttpConfiguration();
    config.setRequestHeaderSize(limits.maxHeaderBytes());
    config.setSendServerVersion(false);
    config.setSendXPoweredBy(false);
    connector = new ServerConnector(server, 1, 1, new HttpConnectionFactory(config));
    connector.setHost(address.getHostString());
    connector.setPort(address.getPort());
    // The head and body timeouts below do the bounding; the idle timeout only ends connections
    // that nobody tracks any more (a route's work may take a while with no bytes moving).
    connector.setIdleTimeout(
        Math.max(300_000L, 2 * limits.bodyTimeout().plus(limits.headerTimeout()).toMillis()));
    connector.addBean(new Tracker());
    server.addConnector(connector);
    server.addBean(new NetworkConnectionLimit(limits.maxConnections(), connector));
    server.setErrorHandler(new ProblemErrors(limits.maxHeaderBytes()));
    server.setHandler(new Dispatch());
    try {
      connector.open();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot bind " + name + " to " + address, e);
    }
  }

  /** Starts answering requests. */
  public void start() {
    try {
      server.start();
    } catch (Exception e) {
      throw new IllegalStateException("the " + name + " server did not start", e);
    }
  }

  /**
   * The port the server is bound to; useful after binding port 0.
   *
   * @return the port
   */
  public int port() {
    return connector.getLocalPort();
  }

  /** Stops at once: requests in progress are cut off. Idempotent. */
  @Override
  public void close() {
    try {
      server.stop();
    } catch (Exception e) {
      LOG.debug("{} server stopped with {}", name, e.getClass().getSimpleName());
    }
    intake.shutdownNow();
    timers.shutdownNow();
  }

  /** Counts connections per client, and closes those that are slow to send a request head. */
  private final class Tracker implements Connection.Listener {
    @Override
    public void onOpened(Connection connection) {
      String client = client(connection.getEndPoint().getRemoteSocketAddress());
      Activity a = new Activity(client);
      activity.put(connection, a);
      int open = clients.computeIfAbsent(client, c -> new AtomicInteger()).incrementAndGet();
      if (open > limits.maxConnectionsPerClient()) {
        LOG.debug("{}: connection refused, {} connections from one client", name, open);
        connection.getEndPoint().close();
        return;
      }
      armHeadDeadline(connection, a);
    }

    @Override
    public void onClosed(Connection connection) {
      Activity a = activity.remove(connection);
      if (a != null) {
        release(clients, a.client);
      }
    }
  }

  private void armHeadDeadline(Connection connection, Activity a) {
    int seen = a.requests.get();
    try {
      timers.schedule(
          () -> {
            if (a.requests.get() == seen
                && !a.answering.get()
                && connection.getEndPoint().isOpen()) {
              timeOut(connection.getEndPoint());
            }
          },
          limits.headerTimeout().toMillis(),
          TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException stopped) {
      connection.getEndPoint().close();
    }
  }

  /** A request head that did not arrive in time: 408 written straight to the socket, then close. */
  private void timeOut(EndPoint endPoint) {
    Answer answer =
        Answer.problem(
            408,
            "RequestTimeout",
            "Request timeout",
            "the request head did not arrive within the server's head timeout");
    StringBuilder head =
        new StringBuilder("HTTP/1.1 408 Request Timeout\r\n")
            .append("Content-Type: ")
            .append(answer.contentType())
            .append("\r\nCache-Control: no-store\r\nConnection: close\r\nContent-Length: ")
            .append(answer.body().length)
            .append("\r\n\r\n");
    ByteBuffer bytes =
        ByteBuffer.allocate(head.length() + answer.body().length)
            .put(head.toString().getBytes(java.nio.charset.StandardCharsets.US_ASCII))
            .put(answer.body())
            .flip();
    try {
      endPoint.write(Callback.from(endPoint::close, failure -> endPoint.close()), bytes);
    } catch (RuntimeException e) {
      endPoint.close();
    }
  }

  private final class Dispatch extends Handler.Abstract.NonBlocking {
    @Override
    public boolean handle(Request request, Response response, Callback callback) {
      Connection connection = request.getConnectionMetaData().getConnection();
      Activity a = activity.get(connection);
      Callback done = callback;
      if (a != null) {
        a.requests.incrementAndGet();
        a.answering.set(true);
        done =
            Callback.from(
                callback,
                Callback.from(() -> answered(connection, a), failure -> answered(connection, a)));
      }
      Head head = head(request);
      Routes.Decision decision;
      try {
        decision = routes.decide(head);
      } catch (RuntimeException e) {
        LOG.error("{} {} failed with {}", head.method(), head.path(), e.getClass().getName(), e);
        decision = new Routes.Now(internalError());
      }
      if (decision instanceof Routes.Admit admit) {
        admit(request, response, done, head, admit);
      } else {
        Answer answer = ((Routes.Now) decision).answer();
        write(response, answer, done, mayHaveBody(head));
      }
      return true;
    }
  }

  private void answered(Connection connection, Activity a) {
    a.answering.set(false);
    armHeadDeadline(connection, a);
  }

  private void admit(
      Request request, Response response, Callback done, Head head, Routes.Admit admit) {
    String caller = admit.caller();
    int mine = callers.computeIfAbsent(caller, c -> new AtomicInteger()).incrementAndGet();
    if (mine > limits.maxInFlightPerCaller()) {
      release(callers, caller);
      Answer answer =
          Answer.problem(
                  429,
                  "TooManyRequests",
                  "Too many requests",
                  "this caller already has the most requests in progress that the api allows")
              .with("Retry-After", "1");
      write(response, answer, done, mayHaveBody(head));
      return;
    }
    AtomicBoolean released = new AtomicBoolean();
    Runnable releaseCaller =
        () -> {
          if (released.compareAndSet(false, true)) {
            release(callers, caller);
          }
        };
    Callback releasing =
        Callback.from(done, Callback.from(releaseCaller, failure -> releaseCaller.run()));
    long declared = head.contentLength().orElse(0);
    if (declared > admit.maxBodyBytes()) {
      Answer refusal = tooLarge(admit.maxBodyBytes());
      if (declared > DRAINED_BEFORE_REFUSAL) {
        write(response, refusal, releasing, true);
        return;
      }
      // Read the declared body to its end and drop it before answering: a connection closed with
      // bytes still unread is reset, and the reset can take the answer away from the client. A
      // body that does not arrive within DRAIN_WAIT is answered all the same.
      AtomicBoolean answered = new AtomicBoolean();
      Runnable answer =
          () -> {
            if (answered.compareAndSet(false, true)) {
              write(response, refusal, releasing, true);
            }
          };
      try {
        timers.schedule(answer, DRAIN_WAIT.toMillis(), TimeUnit.MILLISECONDS);
      } catch (RejectedExecutionException stopping) {
        answer.run();
        return;
      }
      Content.Source.consumeAll(request, Callback.from(answer, failure -> answer.run()));
      return;
    }
    readBody(
        request,
        admit.maxBodyBytes(),
        body -> {
          if (body.failure != null) {
            write(response, body.failure, releasing, true);
          } else {
            work(request, response, releasing, head, admit, body.bytes, releaseCaller);
          }
        });
  }

  private void work(
      Request request,
      Response response,
      Callback done,
      Head head,
      Routes.Admit admit,
      byte[] body,
      Runnable releaseCaller) {
    if (!working.tryAcquire()) {
      write(response, busy(), done, false);
      return;
    }
    try {
      intake.execute(
          () -> {
            Optional<Answer> answer;
            try {
              answer = admit.work().apply(body);
            } catch (RuntimeException e) {
              LOG.error(
                  "{} {} failed with {}", head.method(), head.path(), e.getClass().getName(), e);
              answer = Optional.of(internalError());
            } finally {
              // Free the worker before the answer leaves: a client in a closed loop sends its
              // next request as soon as it has the answer, and must find the worker free.
              working.release();
              releaseCaller.run();
            }
            if (answer.isPresent()) {
              write(response, answer.get(), done, false);
            } else {
              // A simulated crash: no status line, the connection just ends.
              request.getConnectionMetaData().getConnection().getEndPoint().close();
              done.failed(new IOException("dropped without an answer"));
            }
          });
    } catch (RejectedExecutionException stopping) {
      working.release();
      write(response, busy(), done, true);
    }
  }

  /** A body, or the answer that refuses it. */
  private record Body(byte[] bytes, Answer failure) {}

  /** Reads the body as it arrives, without a thread waiting for it; calls back exactly once. */
  private void readBody(Request request, int max, Consumer<Body> then) {
    AtomicBoolean finished = new AtomicBoolean();
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    Consumer<Body> once =
        body -> {
          if (finished.compareAndSet(false, true)) {
            then.accept(body);
          }
        };
    ScheduledFuture<?> deadline;
    try {
      deadline =
          timers.schedule(
              () ->
                  once.accept(
                      new Body(
                          null,
                          Answer.problem(
                              408,
                              "RequestTimeout",
                              "Request timeout",
                              "the body did not arrive within the server's body timeout"))),
              limits.bodyTimeout().toMillis(),
              TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException stopping) {
      once.accept(new Body(null, busy()));
      return;
    }
    Runnable reader =
        new Runnable() {
          @Override
          public void run() {
            while (!finished.get()) {
              Content.Chunk chunk = request.read();
              if (chunk == null) {
                request.demand(this);
                return;
              }
              if (Content.Chunk.isFailure(chunk)) {
                deadline.cancel(false);
                once.accept(
                    new Body(
                        null,
                        Answer.problem(
                            400,
                            "UnreadableRequest",
                            "Bad request",
                            "the body could not be read")));
                return;
              }
              ByteBuffer buffer = chunk.getByteBuffer();
              int length = buffer.remaining();
              if (bytes.size() + length > max) {
                chunk.release();
                deadline.cancel(false);
                once.accept(new Body(null, tooLarge(max)));
                return;
              }
              byte[] part = new byte[length];
              buffer.get(part);
              bytes.write(part, 0, length);
              boolean last = chunk.isLast();
              chunk.release();
              if (last) {
                deadline.cancel(false);
                once.accept(new Body(bytes.toByteArray(), null));
                return;
              }
            }
          }
        };
    reader.run();
  }

  private static void write(Response response, Answer answer, Callback done, boolean close) {
    response.setStatus(answer.status());
    var headers = response.getHeaders();
    answer.headers().forEach(headers::put);
    headers.put(HttpHeader.CONTENT_TYPE, answer.contentType());
    headers.put(HttpHeader.CACHE_CONTROL, "no-store");
    headers.put(HttpHeader.CONTENT_LENGTH, answer.body().length);
    if (close) {
      // The body was not read (or not all of it): the connection cannot carry another request.
      headers.put(HttpHeader.CONNECTION, "close");
    }
    response.write(true, ByteBuffer.wrap(answer.body()), done);
  }

  private static boolean mayHaveBody(Head head) {
    return head.contentLength().orElse(0) > 0 || !head.header("Transfer-Encoding").isEmpty();
  }

  private static Head head(Request request) {
    Map<String, List<String>> headers = new LinkedHashMap<>();
    for (HttpField field : request.getHeaders()) {
      headers.computeIfAbsent(field.getName(), n -> new ArrayList<>()).add(field.getValue());
    }
    String path = request.getHttpURI().getDecodedPath();
    return new Head(
        request.getMethod(),
        path == null ? "/" : path,
        headers,
        client(request.getConnectionMetaData().getRemoteSocketAddress()));
  }

  private static String client(SocketAddress address) {
    if (address instanceof InetSocketAddress inet && inet.getAddress() != null) {
      return inet.getAddress().getHostAddress();
    }
    return String.valueOf(address);
  }

  private static void release(Map<String, AtomicInteger> counts, String key) {
    counts.computeIfPresent(key, (k, count) -> count.decrementAndGet() <= 0 ? null : count);
  }

  static Answer tooLarge(int max) {
    return Answer.problem(
        413,
        "BodyTooLarge",
        "Content too large",
        "the body is larger than the limit of " + max + " bytes");
  }

  private static Answer busy() {
    return Answer.problem(
            503,
            "Busy",
            "Service busy",
            "every intake worker is busy; retry after the time in Retry-After")
        .with("Retry-After", "1");
  }

  static Answer internalError() {
    return Answer.problem(
        500, "InternalError", "Internal error", "the request failed; it may be retried");
  }

  private static Thread daemon(Runnable r, String threadName) {
    Thread thread = new Thread(r, threadName);
    thread.setDaemon(true);
    return thread;
  }
}
