package io.idemworker.emulator.servicebus;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTPS listener of the administration API: the JDK's {@code HttpsServer} presenting the
 * emulator's certificate, handing each request to {@link AdminApi} on a daemon thread of its own
 * pool ({@code sb-emulator-admin-N}). The JDK server's dispatcher thread is started from a daemon
 * thread so that it is a daemon too: an emulator nobody closed never keeps a JVM alive.
 *
 * <p>Thread-safe; {@link #close()} is idempotent.
 */
final class AdminServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(AdminServer.class);
  private static final int MAX_BODY = 1 << 20;

  private final HttpsServer server;
  private final ExecutorService workers;

  private AdminServer(HttpsServer server, ExecutorService workers) {
    this.server = server;
    this.workers = workers;
  }

  /**
   * Binds and starts the listener.
   *
   * @throws UncheckedIOException when the port cannot be bound
   */
  static AdminServer start(
      String host, int port, SSLContext tls, AdminApi api, String threadNamePrefix) {
    HttpsServer server;
    try {
      server = HttpsServer.create(new InetSocketAddress(host, port), 64);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot listen on " + host + ":" + port, e);
    }
    server.setHttpsConfigurator(new HttpsConfigurator(tls));
    AtomicInteger ids = new AtomicInteger();
    ExecutorService workers =
        Executors.newCachedThreadPool(
            r -> {
              Thread t = new Thread(r, threadNamePrefix + "admin-" + ids.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    server.setExecutor(workers);
    server.createContext("/", exchange -> serve(exchange, api));
    // The dispatcher thread inherits its daemon status from the thread that starts the server.
    Thread starter = new Thread(server::start, threadNamePrefix + "admin-start");
    starter.setDaemon(true);
    starter.start();
    try {
      starter.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      server.stop(0);
      workers.shutdownNow();
      throw new IllegalStateException("interrupted while starting the administration API", e);
    }
    return new AdminServer(server, workers);
  }

  int port() {
    return server.getAddress().getPort();
  }

  private static void serve(HttpExchange exchange, AdminApi api) throws IOException {
    try (exchange) {
      AdminApi.Response response;
      try {
        byte[] body = readBody(exchange.getRequestBody());
        response =
            api.handle(
                new AdminApi.Request(
                    exchange.getRequestMethod(),
                    exchange.getRequestURI(),
                    exchange.getRequestHeaders(),
                    body));
      } catch (BodyTooLargeException e) {
        response = AdminApi.Response.error(413, "The request body exceeds 1 MiB.");
      } catch (RuntimeException e) {
        LOG.warn("administration request {} {} failed", exchange.getRequestMethod(), exchange, e);
        response = AdminApi.Response.error(500, "The emulator failed: " + e);
      }
      byte[] out = response.body().getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", response.contentType());
      exchange.getResponseHeaders().set("Server", "idemworker-servicebus-emulator");
      boolean noBody = out.length == 0 || "HEAD".equals(exchange.getRequestMethod());
      exchange.sendResponseHeaders(response.status(), noBody ? -1 : out.length);
      if (!noBody) {
        try (OutputStream os = exchange.getResponseBody()) {
          os.write(out);
        }
      }
    }
  }

  private static byte[] readBody(InputStream in) throws IOException {
    byte[] all = in.readNBytes(MAX_BODY + 1);
    if (all.length > MAX_BODY) {
      throw new BodyTooLargeException();
    }
    return all;
  }

  private static final class BodyTooLargeException extends RuntimeException {
    private static final long serialVersionUID = 1L;
  }

  @Override
  public void close() {
    server.stop(0);
    workers.shutdownNow();
    try {
      workers.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
