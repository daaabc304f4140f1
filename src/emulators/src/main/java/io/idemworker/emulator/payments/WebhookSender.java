package io.idemworker.emulator.payments;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The double's webhook sender: after every executed capture it delivers a signed event ({@code
 * capture.succeeded} or {@code capture.declined}; a {@code capture.settled} follows a successful
 * capture after {@link WebhookSettings#settleAfter()}) at least once.
 *
 * <p>Each attempt is a {@code POST} of the same JSON body with {@code Content-Type:
 * application/json} and {@code Webhook-Signature: t=<unix seconds>,v1=<hex>}, the HMAC-SHA256 of
 * {@code t + "." + body} keyed with the shared secret, signed afresh per attempt with the double's
 * clock. A 2xx answer ends the copy; a 408, 429, 5xx, a timeout or a failed connection is retried
 * after a back-off that doubles from {@link WebhookSettings#firstBackoff()} up to {@link
 * WebhookSettings#maxBackoff()} (a longer {@code Retry-After} is honoured up to that cap), until
 * {@link WebhookSettings#maxAttempts()}; any other answer (400, 401, 404, …) is final: resending
 * the same bytes cannot change it. Every attempt is in the {@linkplain #deliveries() delivery log}.
 *
 * <p>Delivery runs on the sender's own scheduler, never on the thread that answers the capture.
 * Thread-safe. Closing the emulator stops the scheduler; events not yet delivered stay unfinished
 * in the log.
 */
public final class WebhookSender {
  private static final Logger LOG = LoggerFactory.getLogger(WebhookSender.class);
  private static final int LOGGED_BODY_CHARS = 512;

  private final Optional<WebhookSettings> settings;
  private final Clock clock;
  private final WebhookFaults faults = new WebhookFaults();
  private final ObjectMapper mapper =
      new ObjectMapper().enable(JsonGenerator.Feature.WRITE_BIGDECIMAL_AS_PLAIN);
  private final Map<String, Log> log = Collections.synchronizedMap(new LinkedHashMap<>());
  private final List<Event> held = new ArrayList<>();
  private final Object idle = new Object();
  private final AtomicInteger pending = new AtomicInteger();
  private final HttpClient client;
  private volatile ScheduledExecutorService scheduler;

  WebhookSender(Optional<WebhookSettings> settings, Clock clock) {
    this.settings = settings;
    this.clock = clock;
    this.client =
        HttpClient.newBuilder()
            .connectTimeout(
                settings.map(WebhookSettings::requestTimeout).orElse(Duration.ofSeconds(10)))
            .build();
    faults.onClear(this::releaseHeld);
  }

  /** The event the sender builds for one executed capture, or a settlement. */
  private record Event(String id, String type, String orderId, byte[] body) {}

  /** Per event: what the log shows, updated under its own lock. */
  private static final class Log {
    final String type;
    final String orderId;
    int copies;
    int delivered;
    int rejected;
    int failed;
    final List<WebhookDelivery.Attempt> attempts = new ArrayList<>();

    Log(String type, String orderId) {
      this.type = type;
      this.orderId = orderId;
    }
  }

  /**
   * The fault switchboard of the sender (live).
   *
   * @return the faults
   */
  public WebhookFaults faults() {
    return faults;
  }

  /**
   * Whether webhooks are configured at all.
   *
   * @return true when the emulator was built with {@link WebhookSettings}
   */
  public boolean enabled() {
    return settings.isPresent();
  }

  /**
   * The delivery log now, one entry per event in publication order; each call is a new snapshot.
   *
   * @return the deliveries
   */
  public List<WebhookDelivery> deliveries() {
    List<WebhookDelivery> snapshot = new ArrayList<>();
    synchronized (log) {
      log.forEach(
          (id, entry) -> {
            synchronized (entry) {
              snapshot.add(
                  new WebhookDelivery(
                      id,
                      entry.type,
                      entry.orderId,
                      entry.copies,
                      entry.attempts,
                      entry.delivered,
                      entry.rejected,
                      entry.failed));
            }
          });
    }
    return snapshot;
  }

  /**
   * Waits until nothing is being delivered, held or waiting to be settled.
   *
   * @param timeout the longest wait
   * @return true when idle, false on timeout
   * @throws InterruptedException if interrupted while waiting
   */
  public boolean awaitIdle(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (idle) {
      while (pending.get() > 0) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        TimeUnit.NANOSECONDS.timedWait(idle, left);
      }
      return true;
    }
  }

  void start() {
    ScheduledThreadPoolExecutor created =
        new ScheduledThreadPoolExecutor(
            8,
            runnable -> {
              Thread thread = new Thread(runnable, "payments-webhooks");
              thread.setDaemon(true);
              return thread;
            });
    created.setRemoveOnCancelPolicy(true);
    scheduler = created;
  }

  void stop() {
    ScheduledExecutorService running = scheduler;
    if (running != null) {
      running.shutdownNow();
    }
  }

  /** Publishes the events of an executed capture; returns at once. */
  void captured(Ledger.Capture capture) {
    if (settings.isEmpty()) {
      return;
    }
    boolean declined = capture.declineCode().isPresent();
    publish(event(capture, declined ? "capture.declined" : "capture.succeeded"));
    if (!declined) {
      begin();
      try {
        scheduler.schedule(
            () -> {
              try {
                publish(event(capture, "capture.settled"));
              } finally {
                end();
              }
            },
            settings.get().settleAfter().toNanos(),
            TimeUnit.NANOSECONDS);
      } catch (RejectedExecutionException e) {
        end();
      }
    }
  }

  private Event event(Ledger.Capture capture, String type) {
    String id = "evt_" + UUID.randomUUID().toString().replace("-", "").substring(0, 24);
    ObjectNode body = mapper.createObjectNode();
    body.put("id", id);
    body.put("type", type);
    body.put("created", clock.instant().toString());
    ObjectNode data = body.putObject("data");
    data.put("captureId", capture.id());
    data.put("orderId", capture.request().orderId());
    data.put("idempotencyKey", capture.idempotencyKey());
    data.put("amount", capture.request().amount());
    data.put("currency", capture.request().currency());
    try {
      return new Event(id, type, capture.request().orderId(), mapper.writeValueAsBytes(body));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("an object node always serialises", e);
    }
  }

  private void publish(Event event) {
    log.put(event.id(), new Log(event.type(), event.orderId()));
    List<Event> release = List.of();
    synchronized (held) {
      int batch = faults.reverseBatch();
      if (batch > 0) {
        begin();
        held.add(event);
        if (held.size() < batch) {
          return;
        }
        release = new ArrayList<>(held);
        Collections.reverse(release);
        held.clear();
        faults.reverseDone();
      }
    }
    if (release.isEmpty()) {
      dispatch(event);
      return;
    }
    inSequence(release);
  }

  /** Delivers the events one after another: each starts once the one before has finished. */
  private void inSequence(List<Event> events) {
    CompletableFuture<Void> previous = CompletableFuture.completedFuture(null);
    for (Event event : events) {
      previous = previous.handle((ok, failure) -> null).thenCompose(ignored -> dispatch(event));
      previous.whenComplete((ok, failure) -> end());
    }
  }

  private void releaseHeld() {
    List<Event> release;
    synchronized (held) {
      release = new ArrayList<>(held);
      held.clear();
    }
    inSequence(release);
  }

  private CompletableFuture<Void> dispatch(Event event) {
    int copies = faults.copiesOf();
    Log entry = log.get(event.id());
    synchronized (entry) {
      entry.copies = copies;
    }
    List<CompletableFuture<Void>> chains = new ArrayList<>();
    for (int copy = 1; copy <= copies; copy++) {
      CompletableFuture<Void> done = new CompletableFuture<>();
      chains.add(done);
      begin();
      done.whenComplete((ok, failure) -> end());
      int thisCopy = copy;
      schedule(() -> attempt(event, entry, thisCopy, 1, done), Duration.ZERO, done);
    }
    return CompletableFuture.allOf(chains.toArray(CompletableFuture[]::new));
  }

  private void schedule(Runnable task, Duration delay, CompletableFuture<Void> done) {
    try {
      scheduler.schedule(task, delay.toNanos(), TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      done.complete(null);
    }
  }

  private void attempt(Event event, Log entry, int copy, int number, CompletableFuture<Void> done) {
    WebhookSettings s = settings.orElseThrow();
    Optional<Integer> status = Optional.empty();
    Optional<String> problem = Optional.empty();
    String answer = "";
    Optional<Duration> retryAfter = Optional.empty();
    try {
      long timestamp = clock.instant().getEpochSecond();
      HttpRequest request =
          HttpRequest.newBuilder(s.url())
              .timeout(s.requestTimeout())
              .header("Content-Type", "application/json")
              .header("User-Agent", "idemworker-payments-double")
              .header("Webhook-Signature", signature(s.secret(), timestamp, event.body()))
              .POST(HttpRequest.BodyPublishers.ofByteArray(event.body()))
              .build();
      HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
      status = Optional.of(response.statusCode());
      answer = response.body();
      retryAfter =
          response
              .headers()
              .firstValue("Retry-After")
              .filter(v -> v.matches("[0-9]{1,6}"))
              .map(v -> Duration.ofSeconds(Long.parseLong(v)));
    } catch (HttpTimeoutException e) {
      problem = Optional.of("timeout");
    } catch (IOException e) {
      problem = Optional.of("connection failed");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      done.complete(null);
      return;
    }
    boolean retryable = status.map(c -> c == 408 || c == 429 || c >= 500).orElse(true);
    boolean succeeded = status.filter(c -> c >= 200 && c < 300).isPresent();
    synchronized (entry) {
      entry.attempts.add(
          new WebhookDelivery.Attempt(
              copy,
              number,
              clock.instant(),
              status,
              problem,
              answer.length() > LOGGED_BODY_CHARS
                  ? answer.substring(0, LOGGED_BODY_CHARS)
                  : answer));
      if (succeeded) {
        entry.delivered++;
      } else if (!retryable) {
        entry.rejected++;
      } else if (number >= s.maxAttempts()) {
        entry.failed++;
      }
    }
    if (succeeded || !retryable || number >= s.maxAttempts()) {
      if (!succeeded) {
        LOG.warn(
            "webhook {} {} for order {} given up after attempt {}: {}",
            event.id(),
            event.type(),
            event.orderId(),
            number,
            status.map(String::valueOf).orElse(problem.orElse("")));
      }
      done.complete(null);
      return;
    }
    Duration backoff = s.firstBackoff().multipliedBy(1L << Math.min(number - 1, 20));
    if (retryAfter.isPresent() && retryAfter.get().compareTo(backoff) > 0) {
      backoff = retryAfter.get();
    }
    if (backoff.compareTo(s.maxBackoff()) > 0) {
      backoff = s.maxBackoff();
    }
    schedule(() -> attempt(event, entry, copy, number + 1, done), backoff, done);
  }

  /**
   * The {@code Webhook-Signature} header the provider puts on a delivery: {@code
   * t=<timestamp>,v1=<hex HMAC-SHA256 of timestamp + "." + body>}. Public so that clients that
   * forge or replay a delivery (the demo, tests) sign exactly as the provider does.
   */
  public static String signature(String secret, long timestamp, byte[] body) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.US_ASCII), "HmacSHA256"));
      mac.update((timestamp + ".").getBytes(StandardCharsets.US_ASCII));
      return "t=" + timestamp + ",v1=" + HexFormat.of().formatHex(mac.doFinal(body));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("every JDK has HmacSHA256", e);
    }
  }

  private void begin() {
    pending.incrementAndGet();
  }

  private void end() {
    if (pending.decrementAndGet() == 0) {
      synchronized (idle) {
        idle.notifyAll();
      }
    }
  }
}
