package io.idemworker.emulator.cosmos;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.cosmos.CosmosAsyncClient;
import com.azure.cosmos.CosmosAsyncContainer;
import com.azure.cosmos.models.CosmosItemRequestOptions;
import com.azure.cosmos.models.PartitionKey;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.IntFunction;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Point creates and reads per second through the real SDK (async, gateway mode, HTTPS) at 32
 * concurrent requests. Run with {@code mvn -B verify -Pbench -Dtest=CosmosEmulatorBenchmark}.
 */
@Tag("benchmark")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CosmosEmulatorBenchmark {
  private static final int CONCURRENCY = 32;
  private static final int WARMUP = 3_000;
  private static final int MEASURED = Integer.getInteger("bench.ops", 20_000);

  /** Creates/s the test demands; {@code -Dbench.floor=0} only reports (e.g. on a busy machine). */
  private static final int FLOOR = Integer.getInteger("bench.floor", 2_000);

  private static final String PADDING = "x".repeat(700);

  private CosmosEmulator emulator;
  private CosmosAsyncClient client;
  private CosmosAsyncContainer container;

  @BeforeAll
  void start() {
    emulator = CosmosEmulator.builder().start();
    client =
        Clients.builder(emulator, emulator.key())
            .contentResponseOnWriteEnabled(false)
            .buildAsyncClient();
    client.createDatabaseIfNotExists("bench").block();
    client
        .getDatabase("bench")
        .createContainerIfNotExists(Clients.containerProps("orders", null))
        .block();
    container = client.getDatabase("bench").getContainer("orders");
  }

  @AfterAll
  void stop() {
    client.close();
    emulator.close();
  }

  @Test
  void pointCreatesAndReadsAt32Concurrent() {
    run("warm-up create", 0, WARMUP, this::create);
    run("warm-up read", 0, WARMUP, this::read);

    Result creates = run("create", WARMUP, MEASURED, this::create);
    Result reads = run("read", WARMUP, MEASURED, this::read);

    System.out.println(creates);
    System.out.println(reads);
    assertThat(creates.opsPerSecond).isGreaterThanOrEqualTo(FLOOR);
  }

  private Mono<?> create(int i) {
    ObjectNode doc =
        JsonNodeFactory.instance
            .objectNode()
            .put("id", "order-" + i)
            .put("orderId", "order-" + i)
            .put("customer", "customer-" + (i % 97))
            .put("amount", i * 1.5)
            .put("padding", PADDING);
    return container.createItem(
        doc, new PartitionKey("order-" + i), new CosmosItemRequestOptions());
  }

  private Mono<?> read(int i) {
    return container.readItem("order-" + i, new PartitionKey("order-" + i), ObjectNode.class);
  }

  private Result run(String name, int from, int count, IntFunction<Mono<?>> op) {
    emulator.stats().reset();
    Map<Boolean, Long> cpuBefore = cpuByServerSide();
    long start = System.nanoTime();
    Flux.range(from, count).flatMap(op::apply, CONCURRENCY).blockLast(Duration.ofMinutes(5));
    double seconds = (System.nanoTime() - start) / 1e9;
    Map<Boolean, Long> cpuAfter = cpuByServerSide();
    long requests = emulator.stats().totalRequests();
    long serverNanos = cpuAfter.get(true) - cpuBefore.getOrDefault(true, 0L);
    long otherNanos = cpuAfter.get(false) - cpuBefore.getOrDefault(false, 0L);
    return new Result(
        name,
        count,
        count / seconds,
        emulator.stats().totalRequestCharge() / count,
        (double) requests / count,
        serverNanos / 1e3 / count,
        otherNanos / 1e3 / count);
  }

  /**
   * CPU time of live threads, split into the emulator's (request threads and the JDK server's
   * dispatcher) and everything else (client, test). Threads that died in between are not counted.
   */
  private static Map<Boolean, Long> cpuByServerSide() {
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    Map<Boolean, Long> cpu = new HashMap<>(Map.of(true, 0L, false, 0L));
    for (ThreadInfo info : mx.getThreadInfo(mx.getAllThreadIds())) {
      if (info == null) {
        continue;
      }
      long nanos = mx.getThreadCpuTime(info.getThreadId());
      if (nanos < 0) {
        continue;
      }
      String threadName = info.getThreadName();
      boolean server =
          threadName.startsWith("cosmos-emulator-") || threadName.startsWith("HTTP-Dispatcher");
      cpu.merge(server, nanos, Long::sum);
    }
    return cpu;
  }

  private record Result(
      String name,
      int ops,
      double opsPerSecond,
      double ruPerOp,
      double requestsPerOp,
      double serverCpuMicrosPerOp,
      double otherCpuMicrosPerOp) {
    @Override
    public String toString() {
      return String.format(
          Locale.ROOT,
          "BENCH %-6s %6d ops at %d concurrent: %8.0f ops/s, %.2f RU/op, %.2f requests/op,"
              + " CPU per op: emulator %.0f us, client+test %.0f us",
          name,
          ops,
          CONCURRENCY,
          opsPerSecond,
          ruPerOp,
          requestsPerOp,
          serverCpuMicrosPerOp,
          otherCpuMicrosPerOp);
    }
  }
}
