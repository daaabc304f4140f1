package io.idemworker.proof.demo;

import com.azure.cosmos.CosmosContainer;
import io.idemworker.http.ApiServer;
import io.idemworker.http.IntakeFaults;
import io.idemworker.http.OrderApi;
import io.idemworker.proof.audit.Check;
import io.idemworker.proof.audit.StateAudit;
import io.idemworker.proof.emulators.AdjustableClock;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * The demo's HTTP phase: the {@code api} intake on the same Cosmos DB emulator, and a client that
 * retries POSTs under one {@code Idempotency-Key} when an answer is late or lost. Answers are made
 * late (held after they are stored, past the client's timeout) and lost (the connection dropped
 * between the order's write and the stored answer, as a crash would), identical requests race, keys
 * are reused with another body, and orders the queue already created are posted again. The audit of
 * what they made is {@link StateAudit}'s. Used once, from the demo's thread.
 */
final class DemoHttpPhase {
  private static final Duration CLIENT_TIMEOUT = Duration.ofMillis(700);
  private static final Duration LEASE = Duration.ofSeconds(30);
  private static final int NEW_ORDERS = 20;
  private static final int SLOW = 3;
  private static final int CRASHED = 2;
  private static final int RACED = 3;
  private static final int RACERS = 6;
  private static final int REUSED = 3;
  private static final int FROM_QUEUE = 3;

  private final PrintStream out;
  private final Duration timeout;

  /**
   * @param out where the phase prints
   * @param timeout how long a client keeps retrying one request before the phase fails
   */
  DemoHttpPhase(PrintStream out, Duration timeout) {
    this.out = out;
    this.timeout = timeout;
  }

  /**
   * What the phase did, for the audit.
   *
   * @param orders HTTP order id → the body posted
   * @param firstAnswers key → the first answer the client received
   * @param replays key → the answer to a repeat of the key
   * @param retried the keys whose first try timed out or was dropped, with their final status
   * @param raced order id → every status the racing clients got
   * @param reused the statuses of the reused keys, and the order ids their bodies named
   * @param fromQueue order id (created by the queue) → the HTTP status and replay header
   */
  record Result(
      Map<String, String> orders,
      Map<String, HttpResponse<String>> firstAnswers,
      Map<String, HttpResponse<String>> replays,
      Map<String, Integer> retried,
      Map<String, List<Integer>> raced,
      Map<String, Integer> reused,
      Map<String, String> fromQueue) {}

  Result run(CosmosContainer container, Map<String, String> queueOrders, String prefix, long seed)
      throws Exception {
    out.println(
        "phase 5: HTTP intake (POST /orders + Idempotency-Key): late and lost answers retried, identical requests racing, keys reused, orders the queue already took");
    AdjustableClock apiClock = new AdjustableClock();
    Set<String> slow = ConcurrentHashMap.newKeySet();
    Set<String> crash = ConcurrentHashMap.newKeySet();
    CountDownLatch phaseOver = new CountDownLatch(1);
    IntakeFaults faults =
        new IntakeFaults() {
          @Override
          public void afterCommit(String orderId) {
            if (crash.remove(orderId)) {
              throw new Crash("after the order's write, before its answer was stored");
            }
          }

          @Override
          public void beforeReply(String orderId) {
            if (slow.remove(orderId)) {
              try {
                // A slow network: the answer is stored but reaches the client after its timeout.
                phaseOver.await(CLIENT_TIMEOUT.multipliedBy(4).toMillis(), TimeUnit.MILLISECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            }
          }
        };
    ExecutorService clients = Executors.newFixedThreadPool(RACERS);
    ApiServer server =
        OrderApi.local(
            container,
            LEASE,
            Duration.ofDays(1),
            apiClock,
            faults,
            16,
            OrderApi.Webhooks.unconfigured());
    server.start();
    try {
      RetryingClient client = new RetryingClient(server.port(), apiClock, timeout);
      Map<String, String> orders = new java.util.LinkedHashMap<>();
      Map<String, String> keys = new java.util.LinkedHashMap<>();
      for (int i = 0; i < NEW_ORDERS + RACED; i++) {
        String orderId = prefix + "http-" + i;
        orders.put(orderId, body(orderId, "cust-http-" + (i % 5), i));
        keys.put(orderId, "key-" + seed + "-" + i);
      }
      List<String> ids = new ArrayList<>(orders.keySet());
      slow.addAll(ids.subList(0, SLOW));
      crash.addAll(ids.subList(SLOW, SLOW + CRASHED));
      Set<String> faulted = Set.copyOf(ids.subList(0, SLOW + CRASHED));
      Map<String, HttpResponse<String>> first = new java.util.LinkedHashMap<>();
      Map<String, Integer> retried = new java.util.LinkedHashMap<>();
      for (String orderId : ids.subList(0, NEW_ORDERS)) {
        RetryingClient.Sent sent = client.post(keys.get(orderId), orders.get(orderId));
        first.put(keys.get(orderId), sent.response());
        if (faulted.contains(orderId)) {
          retried.put(keys.get(orderId), sent.response().statusCode());
        }
      }
      Map<String, HttpResponse<String>> replays = new java.util.LinkedHashMap<>();
      for (String orderId : ids.subList(0, NEW_ORDERS)) {
        replays.put(
            keys.get(orderId), client.post(keys.get(orderId), orders.get(orderId)).response());
      }
      Map<String, List<Integer>> raced = new java.util.LinkedHashMap<>();
      for (String orderId : ids.subList(NEW_ORDERS, NEW_ORDERS + RACED)) {
        CountDownLatch go = new CountDownLatch(1);
        List<Future<Integer>> answers = new ArrayList<>();
        for (int r = 0; r < RACERS; r++) {
          answers.add(
              clients.submit(
                  () -> {
                    go.await();
                    return client.once(keys.get(orderId), orders.get(orderId)).statusCode();
                  }));
        }
        go.countDown();
        List<Integer> statuses = new ArrayList<>();
        for (Future<Integer> answer : answers) {
          statuses.add(answer.get(30, TimeUnit.SECONDS));
        }
        raced.put(orderId, statuses);
      }
      Map<String, Integer> reused = new java.util.LinkedHashMap<>();
      for (int i = 0; i < REUSED; i++) {
        String otherId = prefix + "http-reuse-" + i;
        String orderId = ids.get(SLOW + CRASHED + i);
        reused.put(
            otherId, client.once(keys.get(orderId), body(otherId, "cust-other", i)).statusCode());
      }
      Map<String, String> fromQueue = new java.util.LinkedHashMap<>();
      for (Map.Entry<String, String> queued :
          queueOrders.entrySet().stream().limit(FROM_QUEUE).toList()) {
        HttpResponse<String> answer =
            client.once("queue-" + seed + "-" + queued.getKey(), queued.getValue());
        fromQueue.put(
            queued.getKey(),
            answer.statusCode()
                + " "
                + answer.headers().firstValue("Idempotent-Replayed").orElse("false"));
      }
      out.printf(
          "  %d orders posted (%d answers late, %d lost to a crash after the write: retried under the same key), %d x %d identical requests raced, %d keys reused, %d queue orders posted again%n",
          NEW_ORDERS, SLOW, CRASHED, RACED, RACERS, REUSED, FROM_QUEUE);
      return new Result(orders, first, replays, retried, raced, reused, fromQueue);
    } finally {
      phaseOver.countDown();
      server.close();
      clients.shutdownNow();
    }
  }

  /**
   * What the HTTP clients observed: the answers. The orders they made (once each, with their exact
   * body and OrderAccepted event; nothing under a refused key) are {@link StateAudit}'s to check,
   * as {@link StateAudit.Intake}.
   */
  static List<Check> observed(Result result) {
    List<Check> checks = new ArrayList<>();
    List<String> differing = new ArrayList<>();
    result
        .replays()
        .forEach(
            (key, replay) -> {
              HttpResponse<String> first = result.firstAnswers().get(key);
              if (first.statusCode() != 201
                  || replay.statusCode() != 201
                  || !replay.body().equals(first.body())
                  || !"true"
                      .equals(replay.headers().firstValue("Idempotent-Replayed").orElse(""))) {
                differing.add(key);
              }
            });
    checks.add(
        new Check(
            "HTTP: replays identical: every repeat of a key ("
                + result.replays().size()
                + ") got the first answer back byte for byte, marked Idempotent-Replayed",
            differing.isEmpty(),
            "differing: " + String.join(", ", differing)));
    boolean retriedOk =
        result.retried().size() == SLOW + CRASHED
            && result.retried().values().stream().allMatch(status -> status == 201);
    checks.add(
        new Check(
            "HTTP: a client whose answer was late ("
                + SLOW
                + ") or lost to a crash after the write ("
                + CRASHED
                + ") retried under the same key and got its one order",
            retriedOk,
            "final statuses " + result.retried()));
    boolean racedOk =
        result.raced().values().stream()
            .allMatch(
                statuses ->
                    statuses.stream().allMatch(s -> s == 201 || s == 409)
                        && statuses.contains(201));
    checks.add(
        new Check(
            "HTTP: concurrent identical requests ("
                + RACED
                + " x "
                + RACERS
                + ") made one order each; every answer 201 or 409 (in flight)",
            racedOk,
            "statuses " + result.raced()));
    checks.add(
        new Check(
            "HTTP: every key reused with another body (" + REUSED + ") refused with 422",
            result.reused().values().stream().allMatch(s -> s == 422),
            "statuses " + result.reused()));
    checks.add(
        new Check(
            "HTTP: orders the queue had taken, posted again over HTTP ("
                + result.fromQueue().size()
                + "), answered 201 with the existing order: one order whichever way it came",
            !result.fromQueue().isEmpty()
                && result.fromQueue().values().stream().allMatch("201 true"::equals),
            "answers " + result.fromQueue()));
    return checks;
  }

  private static String body(String orderId, String customerId, int n) {
    return "{\"orderId\":\""
        + orderId
        + "\",\"customerId\":\""
        + customerId
        + "\",\"currency\":\"EUR\",\"placedAt\":\"2026-11-30T10:00:00Z\",\"lines\":[{\"sku\":\"SKU-"
        + (n % 7)
        + "\",\"quantity\":"
        + (1 + n % 3)
        + ",\"unitPrice\":"
        + (5 + n)
        + ".25}]}";
  }

  /**
   * A client that retries a POST under the same key: on a timeout or a dropped connection at once,
   * on 409 and 503 after {@code Retry-After} (the demo moves the api's clock instead of waiting).
   * Each attempt waits twice as long as the one before, up to 11.2 s (0.7, 1.4, 2.8, 5.6, 11.2,
   * 11.2 s ...), as a client backing off would: the first timeout is short enough for the demo's
   * slow answers to miss it, and a machine too busy to answer in 0.7 s still gets its answer. It
   * gives up only when the phase's timeout has passed, not after a count of attempts, so how busy
   * the machine is changes how often it asks, not whether it is answered.
   */
  private static final class RetryingClient {
    private static final int LONGEST_WAIT_DOUBLINGS = 4;
    private final HttpClient http =
        HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final int port;
    private final AdjustableClock apiClock;
    private final Duration giveUpAfter;

    record Sent(HttpResponse<String> response, int attempts) {}

    RetryingClient(int port, AdjustableClock apiClock, Duration giveUpAfter) {
      this.port = port;
      this.apiClock = apiClock;
      this.giveUpAfter = giveUpAfter;
    }

    Sent post(String key, String body) throws IOException, InterruptedException {
      IOException last = null;
      long deadline = System.nanoTime() + giveUpAfter.toNanos();
      int attempt = 0;
      while (attempt == 0 || System.nanoTime() - deadline < 0) {
        attempt++;
        HttpResponse<String> response;
        try {
          response =
              send(
                  key,
                  body,
                  CLIENT_TIMEOUT.multipliedBy(1L << Math.min(attempt - 1, LONGEST_WAIT_DOUBLINGS)));
        } catch (HttpTimeoutException e) {
          last = e;
          continue;
        } catch (IOException e) {
          last = e;
          continue;
        }
        if (response.statusCode() == 409 || response.statusCode() == 503) {
          long seconds = Long.parseLong(response.headers().firstValue("Retry-After").orElse("1"));
          apiClock.advance(Duration.ofSeconds(seconds));
          continue;
        }
        return new Sent(response, attempt);
      }
      throw new IOException("no answer after " + attempt + " attempts in " + giveUpAfter, last);
    }

    HttpResponse<String> once(String key, String body) throws IOException, InterruptedException {
      return send(key, body, Duration.ofSeconds(30));
    }

    private HttpResponse<String> send(String key, String body, Duration timeout)
        throws IOException, InterruptedException {
      HttpRequest request =
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/orders"))
              .timeout(timeout)
              .header("Content-Type", "application/json")
              .header("Idempotency-Key", key)
              .POST(HttpRequest.BodyPublishers.ofString(body))
              .build();
      return http.send(request, HttpResponse.BodyHandlers.ofString());
    }
  }
}
