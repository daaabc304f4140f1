package io.idemworker.proof.chaos;

import com.azure.cosmos.CosmosContainer;
import io.idemworker.http.ApiServer;
import io.idemworker.http.IntakeFaults;
import io.idemworker.http.OrderApi;
import io.idemworker.proof.emulators.AdjustableClock;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The chaos run's HTTP source: the {@code api} intake ({@link OrderApi#local}) on the run's orders
 * container, in the chaos process, and clients that POST orders of the scenario under an {@code
 * Idempotency-Key} and retry under the same key on a timeout, a dropped connection, 409 (in flight)
 * and 503 (the store failing: the fault plan's Cosmos DB faults reach the api too). Some answers
 * are made late (held past the client's timeout after they are stored) or lost (the connection
 * dropped between the order's write and its stored answer, as a crash would), and some orders are
 * posted by several clients at once.
 *
 * <p>Every order posted is an order of the scenario with its exact body, so the audit's
 * expectations cover it unchanged. Thread-safe: {@link #post} may be called from any thread; the
 * requests run on the source's own threads.
 */
final class ChaosHttp implements AutoCloseable {
  private static final Duration CLIENT_TIMEOUT = Duration.ofSeconds(3);
  private static final Duration LEASE = Duration.ofSeconds(30);

  /** What a POST of an order is made to go through. */
  enum Hazard {
    NONE,
    /** The answer is stored, then held past the client's timeout. */
    LATE,
    /** The connection is dropped after the order's write, before its answer is stored. */
    LOST,
    /** Several clients post it at the same instant. */
    RACED
  }

  /** An order to post: one of the scenario's, with its exact body. */
  record Order(String orderId, String body, Hazard hazard) {}

  /** Counted requests, for the report. */
  enum Count {
    ORDERS("orders posted over HTTP"),
    REQUESTS("POST requests sent (first tries, retries and racers)"),
    LATE("answers held past the client's timeout (counted when it happened)"),
    LOST("answers lost: connection dropped after the write (counted when it happened)"),
    RACED("orders posted by several clients at once"),
    RETRY_TIMEOUT("retries after a timeout"),
    RETRY_DROPPED("retries after a dropped connection"),
    RETRY_IN_FLIGHT("retries after 409 (key in flight)"),
    RETRY_UNAVAILABLE("retries after 503 (store failing, after its Retry-After)"),
    REPLAYED("answers marked Idempotent-Replayed"),
    PRODUCER_WAITS("times the producer waited for HTTP answers before sending their dependents"),
    PRODUCER_WAIT_MS("milliseconds the producer waited for them in all");

    final String label;

    Count(String label) {
      this.label = label;
    }
  }

  private static final int RACERS = 3;

  private final String keyPrefix;
  private final Duration retryFor;
  private final AdjustableClock apiClock = new AdjustableClock();
  private final Set<String> late = ConcurrentHashMap.newKeySet();
  private final Set<String> lost = ConcurrentHashMap.newKeySet();
  private final CountDownLatch closing = new CountDownLatch(1);
  private final ExecutorService clients;
  private final ApiServer server;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final Map<Count, AtomicLong> counts = new LinkedHashMap<>();
  private final List<Future<?>> pending = new CopyOnWriteArrayList<>();
  private final List<String> failures = new CopyOnWriteArrayList<>();

  /** Per order posted: done when a client of it has its final answer (201 or a failure). */
  private final Map<String, CompletableFuture<Void>> answered = new ConcurrentHashMap<>();

  /**
   * Starts the api server on a free loopback port.
   *
   * @param orders the run's orders container
   * @param keyPrefix prefix of every Idempotency-Key (the seed, so a replay uses the same keys)
   * @param retryFor how long one order's client keeps retrying before it gives up (a failure)
   * @param expectedOrders about how many orders the run posts, to size the client and server
   *     threads: they mostly wait (a late answer holds a server thread {@code 2 x} the client's
   *     timeout, a timed-out client a client thread), so at scale 8 threads fall minutes behind
   * @throws IOException when the server cannot bind
   */
  ChaosHttp(CosmosContainer orders, String keyPrefix, Duration retryFor, int expectedOrders)
      throws IOException {
    this.keyPrefix = keyPrefix;
    this.retryFor = retryFor;
    int threads = threadsFor(expectedOrders);
    this.clients = Executors.newFixedThreadPool(threads);
    // Racers and held late answers take more server threads than clients at once.
    for (Count c : Count.values()) {
      counts.put(c, new AtomicLong());
    }
    IntakeFaults faults =
        new IntakeFaults() {
          @Override
          public void afterCommit(String orderId) {
            if (lost.remove(orderId)) {
              counts.get(Count.LOST).incrementAndGet();
              throw new Crash("after the order's write, before its answer was stored");
            }
          }

          @Override
          public void beforeReply(String orderId) {
            if (late.remove(orderId)) {
              counts.get(Count.LATE).incrementAndGet();
              try {
                // A slow network: the answer is stored but reaches the client after its timeout.
                closing.await(CLIENT_TIMEOUT.multipliedBy(2).toMillis(), TimeUnit.MILLISECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            }
          }
        };
    // The run's webhooks go to ChaosWebhooks' own receiver, not through this server.
    server =
        OrderApi.local(
            orders,
            LEASE,
            Duration.ofDays(1),
            apiClock,
            faults,
            2 * threads,
            OrderApi.Webhooks.unconfigured());
    server.start();
  }

  /**
   * Client threads for a run that posts about {@code orders} orders: one per 40 orders, 8 to 64.
   * Each order holds a client thread for about a second on average (3 s when its answer is late),
   * and the producer posts a wave's orders at once, so the pool must absorb a wave's posts while
   * the queue's messages of the wave are sent.
   */
  static int threadsFor(int orders) {
    return Math.max(8, Math.min(64, orders / 40));
  }

  /** Posts an order in the background, with its hazard; {@link #await} waits for it. */
  void post(Order order) {
    counts.get(Count.ORDERS).incrementAndGet();
    CompletableFuture<Void> done = new CompletableFuture<>();
    if (answered.putIfAbsent(order.orderId(), done) != null) {
      throw new IllegalArgumentException(order.orderId() + " is posted once per run");
    }
    String key = keyPrefix + order.orderId();
    switch (order.hazard()) {
      case LATE -> late.add(order.orderId());
      case LOST -> lost.add(order.orderId());
      case RACED -> counts.get(Count.RACED).incrementAndGet();
      case NONE -> {}
    }
    int clientsOfOrder = order.hazard() == Hazard.RACED ? RACERS : 1;
    CountDownLatch go = new CountDownLatch(clientsOfOrder);
    for (int i = 0; i < clientsOfOrder; i++) {
      pending.add(
          clients.submit(
              () -> {
                go.countDown();
                go.await();
                try {
                  retrying(order.orderId(), key, order.body());
                } finally {
                  done.complete(null);
                }
                return null;
              }));
    }
  }

  /**
   * Waits until every order posted so far has its answer.
   *
   * @return the orders whose client gave up or got an answer other than 201, with why
   */
  List<String> await(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    for (Future<?> f : pending) {
      try {
        f.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (java.util.concurrent.ExecutionException e) {
        failures.add(String.valueOf(e.getCause()));
      } catch (java.util.concurrent.TimeoutException e) {
        failures.add("a client had no answer within " + timeout);
        f.cancel(true);
      }
    }
    return new ArrayList<>(failures);
  }

  /**
   * Waits until every one of {@code orderIds} posted has its answer (201, or the failure its client
   * ended with), so that the producer sends an order's dependents (credits, statuses, payments, a
   * reused id) only after the order exists: sent earlier they would spend their deliveries as
   * {@code NOT_YET} and be dead-lettered, or a reused id would become the order.
   *
   * @param orderIds orders posted earlier by {@link #post}; ids never posted are ignored
   * @param timeout the longest wait for all of them
   * @return the orders still without an answer when the wait ended (their dependents will be sent
   *     before them: a failure of the run's pacing, which the caller reports)
   */
  List<String> awaitAnswered(List<String> orderIds, Duration timeout) throws InterruptedException {
    long start = System.nanoTime();
    long deadline = start + timeout.toNanos();
    List<String> unanswered = new ArrayList<>();
    boolean waited = false;
    for (String orderId : orderIds) {
      CompletableFuture<Void> done = answered.get(orderId);
      if (done == null || done.isDone()) {
        continue;
      }
      waited = true;
      try {
        done.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (java.util.concurrent.TimeoutException e) {
        unanswered.add(orderId);
      } catch (java.util.concurrent.ExecutionException e) {
        throw new IllegalStateException("an answer future never fails", e);
      }
    }
    if (waited) {
      counts.get(Count.PRODUCER_WAITS).incrementAndGet();
      counts.get(Count.PRODUCER_WAIT_MS).addAndGet((System.nanoTime() - start) / 1_000_000);
    }
    return unanswered;
  }

  Map<String, Long> counts() {
    Map<String, Long> out = new LinkedHashMap<>();
    counts.forEach((k, v) -> out.put(k.name(), v.get()));
    return out;
  }

  private void retrying(String orderId, String key, String body) throws InterruptedException {
    long deadline = System.nanoTime() + retryFor.toNanos();
    while (System.nanoTime() < deadline) {
      HttpResponse<String> response;
      counts.get(Count.REQUESTS).incrementAndGet();
      try {
        response = send(key, body);
      } catch (java.net.http.HttpTimeoutException e) {
        counts.get(Count.RETRY_TIMEOUT).incrementAndGet();
        continue;
      } catch (IOException e) {
        counts.get(Count.RETRY_DROPPED).incrementAndGet();
        continue;
      }
      int status = response.statusCode();
      if (status == 409 || status == 503) {
        counts
            .get(status == 409 ? Count.RETRY_IN_FLIGHT : Count.RETRY_UNAVAILABLE)
            .incrementAndGet();
        long seconds = Long.parseLong(response.headers().firstValue("Retry-After").orElse("1"));
        if (status == 409) {
          // The run moves the api's clock (leases) instead of waiting out a crashed request's
          // lease.
          apiClock.advance(Duration.ofSeconds(seconds));
        } else if (closing.await(Math.min(seconds, 5), TimeUnit.SECONDS)) {
          // A store failing: come back when the api says (capped: its clock is real here).
          break;
        }
        continue;
      }
      if (response.headers().firstValue("Idempotent-Replayed").orElse("").equals("true")) {
        counts.get(Count.REPLAYED).incrementAndGet();
      }
      if (status != 201) {
        failures.add(orderId + ": " + status + " " + response.body());
      }
      return;
    }
    failures.add(orderId + ": no answer within " + retryFor);
  }

  private HttpResponse<String> send(String key, String body)
      throws IOException, InterruptedException {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/orders"))
            .timeout(CLIENT_TIMEOUT)
            .header("Content-Type", "application/json")
            .header("Idempotency-Key", key)
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build();
    return http.send(request, HttpResponse.BodyHandlers.ofString());
  }

  @Override
  public void close() {
    closing.countDown();
    clients.shutdownNow();
    server.close();
  }
}
