package io.idemworker.proof.bench;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code bench http}: new orders per second through a running {@code api}'s {@code POST /orders},
 * each a new order under a new {@code Idempotency-Key}, from a closed loop of clients (each sends
 * its next request when its last is answered), over HTTP/1.1 with kept-alive connections. It
 * measures whatever api it is pointed at, so the same client compares two builds of the server.
 */
@Command(
    name = "http",
    mixinStandardHelpOptions = true,
    description = {
      "Measures POST /orders of a running api: new orders per second and latency.",
      "",
      "Sends --warm-up orders, then --orders orders, each new under a new Idempotency-Key, from --concurrency clients in a closed loop (HTTP/1.1, kept-alive connections). Prints orders/s and latency percentiles of the measured part, and the statuses. Exits 0 when every answer was 201, 1 otherwise, 2 for bad options."
    })
final class HttpBench implements Callable<Integer> {
  @Option(
      names = "--url",
      defaultValue = "http://127.0.0.1:8090",
      description = "The api's base URL (default ${DEFAULT-VALUE}).")
  URI url;

  @Option(
      names = "--orders",
      defaultValue = "2000",
      description = "Measured orders (1-1000000; default ${DEFAULT-VALUE}).")
  int orders;

  @Option(
      names = "--warm-up",
      defaultValue = "500",
      description = "Orders before the clock starts (0-1000000; default ${DEFAULT-VALUE}).")
  int warmUp;

  @Option(
      names = "--concurrency",
      defaultValue = "16",
      description = "Clients in the closed loop (1-256; default ${DEFAULT-VALUE}).")
  int concurrency;

  @Option(
      names = "--api-key",
      description = "The X-Api-Key to send (default: the API_KEY variable, if set).")
  Optional<String> apiKey = Optional.empty();

  private final java.io.PrintStream out;

  HttpBench() {
    this(System.out);
  }

  HttpBench(java.io.PrintStream out) {
    this.out = out;
  }

  @Override
  public Integer call() throws Exception {
    if (orders < 1 || orders > 1_000_000 || warmUp < 0 || warmUp > 1_000_000) {
      System.err.println("idemworker bench http: --orders 1-1000000, --warm-up 0-1000000");
      return 2;
    }
    if (concurrency < 1 || concurrency > 256) {
      System.err.println("idemworker bench http: --concurrency must be 1-256");
      return 2;
    }
    Optional<String> key = apiKey.or(() -> Optional.ofNullable(System.getenv("API_KEY")));
    HttpClient client =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    String run = UUID.randomUUID().toString().substring(0, 8);
    Map<Integer, Integer> statuses = new TreeMap<>();
    send(client, key, "w" + run, warmUp, statuses);
    statuses.clear();
    long start = System.nanoTime();
    long[] latencies = send(client, key, "m" + run, orders, statuses);
    double seconds = (System.nanoTime() - start) / 1e9;
    Arrays.sort(latencies);
    out.printf(
        Locale.ROOT,
        "POST /orders: %d orders in %.2f s = %.0f orders/s with %d clients;"
            + " latency p50 %.1f ms, p90 %.1f ms, p99 %.1f ms, max %.1f ms; statuses %s%n",
        orders,
        seconds,
        orders / seconds,
        concurrency,
        percentile(latencies, 0.50),
        percentile(latencies, 0.90),
        percentile(latencies, 0.99),
        latencies[latencies.length - 1] / 1e6,
        statuses);
    return statuses.keySet().equals(java.util.Set.of(201)) ? 0 : 1;
  }

  private long[] send(
      HttpClient client, Optional<String> key, String prefix, int count, Map<Integer, Integer> out)
      throws Exception {
    long[] latencies = new long[count];
    AtomicInteger next = new AtomicInteger();
    ExecutorService clients = Executors.newFixedThreadPool(concurrency);
    try {
      List<Future<Map<Integer, Integer>>> done = new ArrayList<>();
      for (int c = 0; c < concurrency; c++) {
        done.add(
            clients.submit(
                () -> {
                  Map<Integer, Integer> seen = new TreeMap<>();
                  for (int i = next.getAndIncrement(); i < count; i = next.getAndIncrement()) {
                    String orderId = "bh-" + prefix + "-" + i;
                    HttpRequest.Builder request =
                        HttpRequest.newBuilder(url.resolve("/orders"))
                            .timeout(Duration.ofSeconds(30))
                            .header("Content-Type", "application/json")
                            .header("Idempotency-Key", orderId)
                            .POST(HttpRequest.BodyPublishers.ofString(body(orderId)));
                    key.ifPresent(k -> request.header("X-Api-Key", k));
                    long sent = System.nanoTime();
                    int status;
                    try {
                      status =
                          client
                              .send(request.build(), HttpResponse.BodyHandlers.discarding())
                              .statusCode();
                    } catch (java.io.IOException e) {
                      status = -1;
                    }
                    latencies[i] = System.nanoTime() - sent;
                    seen.merge(status, 1, Integer::sum);
                  }
                  return seen;
                }));
      }
      for (Future<Map<Integer, Integer>> f : done) {
        f.get(10, TimeUnit.MINUTES).forEach((s, n) -> out.merge(s, n, Integer::sum));
      }
    } finally {
      clients.shutdownNow();
    }
    return latencies;
  }

  private static String body(String orderId) {
    return "{\"orderId\":\""
        + orderId
        + "\",\"customerId\":\"cust-bench\",\"currency\":\"EUR\","
        + "\"placedAt\":\"2026-11-30T10:00:00Z\",\"lines\":[{\"sku\":\"SKU-1\",\"quantity\":2,"
        + "\"unitPrice\":9.99},{\"sku\":\"SKU-2\",\"quantity\":1,\"unitPrice\":5}]}";
  }

  private static double percentile(long[] sorted, double p) {
    return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p * sorted.length) - 1)] / 1e6;
  }
}
