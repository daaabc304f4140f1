package io.idemworker.emulator.payments;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;

/**
 * An in-process payment provider double: plain HTTP (on loopback unless told otherwise), {@code
 * POST /v1/captures} with the idempotency-key semantics of real payment APIs, and {@code GET
 * /v1/captures} listing every capture it executed (the ledger audits count). See the {@link
 * io.idemworker.emulator.payments package documentation} and {@code docs/payments-emulator.md} for
 * the API.
 *
 * <p>Life cycle: {@link #builder()} → {@link Builder#start()} (or {@link Builder#build()} then
 * {@link #start()}) → {@link #close()}. Once started it is safe for use from any thread. Closing
 * stops the listener and cuts in-flight requests (their keys are given up, as if never sent); the
 * ledger and the stored answers stay with the object, and a closed emulator may be started again
 * (on a new port if the port was 0).
 *
 * <p>Starting sets the system property {@code sun.net.httpserver.nodelay=true} unless it is set:
 * without it the JDK's HTTP server delays every answer on a kept-alive connection by about 40 ms.
 * The JDK reads the property when its first HTTP server in the JVM starts, so a program that
 * started one before (a health endpoint, say) should pass {@code -Dsun.net.httpserver.nodelay=true}
 * itself.
 */
public final class PaymentProviderEmulator implements AutoCloseable {
  /** The sandbox API key accepted unless {@link Builder#apiKey(String)} sets another. */
  public static final String DEFAULT_API_KEY = "sk_test_idemworker";

  /** How long an executed key's answer is replayed unless {@link Builder#keyRetention} says. */
  public static final Duration DEFAULT_KEY_RETENTION = Duration.ofHours(24);

  private static final String NODELAY = "sun.net.httpserver.nodelay";
  private static final Pattern API_KEY = Pattern.compile("[\\x21-\\x7E]{1,255}");

  private final int requestedPort;
  private final InetAddress bindAddress;
  private final int threads;
  private final String apiKey;
  private final PaymentFaults faults = new PaymentFaults();
  private final PaymentStats.Counters stats = new PaymentStats.Counters();
  private final CapturesHandler handler;
  private final WebhookSender webhooks;
  private final Object lifecycle = new Object();
  private HttpServer server;
  private ThreadPoolExecutor executor;
  private volatile int port = -1;

  private PaymentProviderEmulator(Builder b) {
    this.requestedPort = b.port;
    this.bindAddress = b.bindAddress;
    this.threads = b.threads;
    this.apiKey = b.apiKey;
    this.webhooks = new WebhookSender(b.webhooks, b.clock);
    this.handler =
        new CapturesHandler(
            apiKey,
            b.clock,
            new IdempotencyKeys(b.keyRetention),
            new Ledger(),
            faults,
            stats,
            webhooks);
  }

  /**
   * A builder with port 0 (free port), {@link #DEFAULT_API_KEY}, the system UTC clock, 24 h key
   * retention and 16 request threads.
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Binds the port and starts serving; idempotent.
   *
   * @throws UncheckedIOException if the port cannot be bound
   */
  public PaymentProviderEmulator start() {
    synchronized (lifecycle) {
      if (server != null) {
        return this;
      }
      // The JDK server flushes headers and body in two writes; without TCP_NODELAY every answer on
      // a
      // kept-alive connection waits ~40 ms for the client's delayed ACK (measured: p50 44 ms vs
      // 0.9 ms). The JDK reads this once, when its first HttpServer starts; an explicit setting
      // wins.
      if (System.getProperty(NODELAY) == null) {
        System.setProperty(NODELAY, "true");
      }
      InetSocketAddress address = new InetSocketAddress(bindAddress, requestedPort);
      HttpServer created;
      try {
        created = HttpServer.create(address, 128);
      } catch (IOException e) {
        throw new UncheckedIOException(
            "cannot start the payments emulator on port " + requestedPort, e);
      }
      // Bounded: past the queue the server closes new exchanges' connections, an honest overload.
      executor =
          new ThreadPoolExecutor(
              threads,
              threads,
              30,
              TimeUnit.SECONDS,
              new ArrayBlockingQueue<>(1024),
              daemonThreads("payments-emulator-"));
      executor.allowCoreThreadTimeOut(true);
      webhooks.start();
      created.createContext("/", handler);
      created.setExecutor(executor);
      created.start();
      server = created;
      port = created.getAddress().getPort();
      return this;
    }
  }

  /**
   * The bound port.
   *
   * @throws IllegalStateException before {@link #start()}
   */
  public int port() {
    if (port < 0) {
      throw new IllegalStateException("the emulator is not started");
    }
    return port;
  }

  /**
   * {@code http://127.0.0.1:PORT} (no trailing slash), the base URL clients on this machine are
   * given; also right when bound to all interfaces, which include loopback.
   */
  public URI baseUrl() {
    InetAddress loopback = InetAddress.getLoopbackAddress();
    String host = loopback.getHostAddress();
    return URI.create(
        "http://" + (loopback instanceof Inet6Address ? "[" + host + "]" : host) + ":" + port());
  }

  /** The API key clients must send as {@code Authorization: Bearer <key>}. */
  public String apiKey() {
    return apiKey;
  }

  /** The fault-injection switchboard (live). */
  public PaymentFaults faults() {
    return faults;
  }

  /** The webhook sender: its delivery log and its faults (disabled without settings). */
  public WebhookSender webhooks() {
    return webhooks;
  }

  /** The counters now; each call is a new snapshot. */
  public PaymentStats stats() {
    return stats.snapshot();
  }

  /**
   * Stops serving at once: in-flight requests are cut and their keys given up, held {@link
   * PaymentFaults.Pause pauses} are released. Idempotent.
   */
  @Override
  public void close() {
    synchronized (lifecycle) {
      if (server == null) {
        return;
      }
      server.stop(0);
      executor.shutdownNow();
      webhooks.stop();
      server = null;
      executor = null;
    }
  }

  private static ThreadFactory daemonThreads(String prefix) {
    AtomicInteger count = new AtomicInteger();
    return runnable -> {
      Thread thread = new Thread(runnable, prefix + count.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }

  /** Configures an emulator. Not thread-safe. */
  public static final class Builder {
    private int port;
    private InetAddress bindAddress = InetAddress.getLoopbackAddress();
    private String apiKey = DEFAULT_API_KEY;
    private Clock clock = Clock.systemUTC();
    private Duration keyRetention = DEFAULT_KEY_RETENTION;
    private int threads = 16;
    private Optional<WebhookSettings> webhooks = Optional.empty();

    private Builder() {}

    /**
     * Delivers signed webhook events for every executed capture (default: none). See {@link
     * WebhookSender}.
     */
    public Builder webhooks(WebhookSettings settings) {
      this.webhooks = Optional.of(Objects.requireNonNull(settings, "settings"));
      return this;
    }

    /** Loopback port to bind, 0 (default) for a free one. */
    public Builder port(int port) {
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("port must be in 0..65535, got " + port);
      }
      this.port = port;
      return this;
    }

    /**
     * Address to listen on (default loopback). The wildcard address (0.0.0.0) serves every
     * interface, as a container behind an ingress needs; a laptop should keep loopback.
     */
    public Builder bindAddress(InetAddress address) {
      this.bindAddress = Objects.requireNonNull(address, "address");
      return this;
    }

    /** The API key clients must send: 1-255 visible ASCII characters. */
    public Builder apiKey(String apiKey) {
      Objects.requireNonNull(apiKey, "apiKey");
      if (!API_KEY.matcher(apiKey).matches()) {
        throw new IllegalArgumentException(
            "apiKey must be 1-255 visible ASCII characters without spaces");
      }
      this.apiKey = apiKey;
      return this;
    }

    /** The clock for {@code createdAt} and key expiry (default: system UTC). */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** How long an executed key's answer is stored and replayed (default 24 h). */
    public Builder keyRetention(Duration retention) {
      Objects.requireNonNull(retention, "retention");
      if (retention.isNegative() || retention.isZero()) {
        throw new IllegalArgumentException("keyRetention must be positive, got " + retention);
      }
      this.keyRetention = retention;
      return this;
    }

    /** Request threads (1-256, default 16); a paused or delayed execution holds one. */
    public Builder threads(int threads) {
      if (threads < 1 || threads > 256) {
        throw new IllegalArgumentException("threads must be in 1..256, got " + threads);
      }
      this.threads = threads;
      return this;
    }

    /** An emulator that is not yet serving. */
    public PaymentProviderEmulator build() {
      return new PaymentProviderEmulator(this);
    }

    /** Builds and starts an emulator. */
    public PaymentProviderEmulator start() {
      return build().start();
    }
  }
}
