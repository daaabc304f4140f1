package io.idemworker.proof.bench;

import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import io.idemworker.emulator.cosmos.CosmosEmulator;
import io.idemworker.emulator.servicebus.QueueSettings;
import io.idemworker.emulator.servicebus.ServiceBusEmulator;
import io.idemworker.emulator.servicebus.TopicSettings;
import io.idemworker.proof.emulators.EventTopic;
import io.idemworker.proof.producer.DemoLifecycle;
import io.idemworker.proof.producer.DemoScenario;
import java.io.IOException;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code bench process}: the throughput of one separate {@code run} process, as deployed, against
 * the emulators, measured from outside.
 *
 * <p>Starts both emulators in this JVM, then {@code java ... Main run} as a child process with the
 * emulators' settings in its environment (its production {@code logback.xml}, its outcome lines
 * going to a log file). A warm-up batch is sent and drained first, so the child's JIT has compiled
 * the hot path. Each measured round then freezes the child (SIGSTOP), sends the whole batch so that
 * the queue is full, thaws it (SIGCONT) and times how long the queue takes to go to zero, as the
 * Service Bus emulator counts it. Then, unless {@code --no-per-type}, one round of each other kind
 * of message ({@link Kind}) on orders the rounds placed, each after a warm-up of its own on the
 * warm-up's orders, so the CPU a message is reported for each type. CPU time comes from {@code
 * /proc/<pid>/stat} for the child and from the JVM for this process (both emulators and the
 * polling).
 *
 * <p>Linux only (signals and {@code /proc}). Exits 0 when every round drained, no message was
 * dead-lettered and the child logged exactly one {@code processed} line per order and change (one
 * {@code duplicate} line per copy); 1 otherwise; 2 for bad options. No throughput is enforced: it
 * depends on the machine.
 */
@Command(
    name = "process",
    mixinStandardHelpOptions = true,
    description = {
      "Measures one separate 'run' process against the emulators.",
      "",
      "Starts the emulators in this JVM and 'run' as a child JVM, sends and drains a warm-up batch, then for each round freezes the child, fills the queue with new orders, thaws it and times the drain. Prints messages/s and the CPU per message of the child and of the emulators."
    })
final class ProcessBench implements Callable<Integer> {
  private static final String QUEUE = "orders";
  private static final String DATABASE = "idemworker-bench";

  @Option(
      names = "--orders",
      defaultValue = "20000",
      description = "New orders per measured round (10-200000; default ${DEFAULT-VALUE}).")
  int orders;

  @Option(
      names = "--warm-up-orders",
      defaultValue = "40000",
      description =
          "New orders sent and drained before measuring (0-200000; default ${DEFAULT-VALUE}: on two"
              + " busy cores the JIT needs tens of thousands of messages to finish).")
  int warmUpOrders;

  @Option(
      names = "--rounds",
      defaultValue = "2",
      description = "Measured rounds (1-10; default ${DEFAULT-VALUE}).")
  int rounds;

  @Option(
      names = "--env",
      description =
          "NAME=VALUE added to the child's environment, e.g. WORKER_PREFETCH_COUNT=0 (repeatable;"
              + " overrides the bench's own values).")
  Map<String, String> extraEnv = new HashMap<>();

  @Option(
      names = "--per-type",
      negatable = true,
      defaultValue = "true",
      fallbackValue = "true",
      description =
          "After the rounds, one round of each other type of message on orders already placed (a"
              + " copy of OrderPlaced, OrderStatusChanged, OrderCredited), each after a warm-up of"
              + " its own (default on; --no-per-type leaves them out).")
  boolean perType;

  @Option(
      names = "--relay",
      description = "Run the outbox relay in the child too (RELAY_ENABLED=true); off by default.")
  boolean relay;

  @Option(
      names = "--jfr",
      description =
          "Record the measured rounds of the child with Java Flight Recorder (default settings, low overhead)"
              + " into this file.")
  Path jfr;

  @Option(
      names = "--jvm-option",
      description = "An extra option of the child JVM, e.g. -XX:TieredStopAtLevel=1 (repeatable).")
  List<String> jvmOptions = new ArrayList<>();

  @Option(
      names = "--heap",
      defaultValue = "512m",
      description = "The child's -Xmx (default ${DEFAULT-VALUE}).")
  String heap;

  @Option(
      names = "--timeout",
      defaultValue = "PT600S",
      description =
          "Longest wait for start-up and for each drain (ISO 8601; default ${DEFAULT-VALUE}).")
  Duration timeout;

  @Option(
      names = "--seed",
      defaultValue = "42",
      description = "Seed of the orders (default ${DEFAULT-VALUE}).")
  long seed;

  private final PrintStream out;

  ProcessBench() {
    this(System.out);
  }

  ProcessBench(PrintStream out) {
    this.out = out;
  }

  /**
   * The kinds of message measured after the new orders' rounds, each on an order already placed:
   * what the worker does for them differs (an anchor create that conflicts, a conditional patch, a
   * patch with an inbox marker in one batch).
   */
  enum Kind {
    /** The same {@code OrderPlaced} again: its create conflicts, the outcome is a duplicate. */
    COPY("OrderPlaced, a copy", "duplicate"),
    /** Version 2 of the order's status: a patch conditional on the stored version. */
    STATUS("OrderStatusChanged", "processed"),
    /** One credit in the order's currency: a patch and its inbox marker in one batch. */
    CREDIT("OrderCredited", "processed");

    final String label;
    final String outcome;

    Kind(String label, String outcome) {
      this.label = label;
      this.outcome = outcome;
    }

    ServiceBusMessage message(DemoScenario scenario, String orderId) {
      return switch (this) {
        case COPY -> scenario.message(orderId);
        case STATUS -> DemoLifecycle.status(orderId, 2, "Packed");
        case CREDIT ->
            DemoLifecycle.credit(
                new DemoLifecycle.Credit(
                    "bench-cr-" + orderId,
                    orderId,
                    new BigDecimal("1.25"),
                    DemoLifecycle.currency(scenario.orders.get(orderId)),
                    DemoLifecycle.Source.ONCE));
      };
    }
  }

  /**
   * The figures of one measured round.
   *
   * @param childGroupCpuMillis the child's CPU by thread group ({@link
   *     BenchSupport#threadCpuNanos})
   */
  record Round(
      int orders,
      double seconds,
      double childCpuMillis,
      double emulatorCpuMillis,
      Map<String, Double> childGroupCpuMillis) {
    double perSecond() {
      return orders / seconds;
    }

    double childCpuPerMessage() {
      return childCpuMillis / orders;
    }

    double emulatorCpuPerMessage() {
      return emulatorCpuMillis / orders;
    }
  }

  @Override
  public Integer call() throws Exception {
    if (orders < 10
        || orders > 200_000
        || warmUpOrders < 0
        || warmUpOrders > 200_000
        || rounds < 1
        || rounds > 10
        || timeout.isNegative()
        || timeout.isZero()) {
      System.err.println(
          "idemworker bench process: --orders must be 10-200000, --warm-up-orders 0-200000,"
              + " --rounds 1-10, --timeout positive");
      return 2;
    }
    if (!Files.isReadable(Path.of("/proc/self/stat"))) {
      System.err.println("idemworker bench process: needs Linux (/proc and signals)");
      return 2;
    }
    int total = warmUpOrders + orders * rounds;
    DemoScenario scenario = DemoScenario.generate(total, seed, BenchCommand.MAX_BODY_BYTES);
    List<String> ids = scenario.firstWave;
    out.printf(
        Locale.ROOT,
        "idemworker bench process: one 'run' child JVM (-Xmx%s), %d warm-up orders, then %d"
            + " round(s) of %d new orders sent ahead; relay %s; child env %s%n",
        heap,
        warmUpOrders,
        rounds,
        orders,
        relay ? "on" : "off",
        extraEnv.isEmpty() ? "(defaults)" : extraEnv);
    out.printf(
        Locale.ROOT,
        "  %s UTC; %d CPUs, %s %s; load average %s at start%n",
        Instant.now().truncatedTo(ChronoUnit.SECONDS),
        Runtime.getRuntime().availableProcessors(),
        System.getProperty("java.vm.name"),
        System.getProperty("java.runtime.version"),
        BenchSupport.loadAverage());
    Path log = Files.createTempFile("idemworker-bench-run-", ".log");
    out.println("  child output: " + log);
    List<Round> measured = new ArrayList<>();
    Map<Kind, Round> byKind = new EnumMap<>(Kind.class);
    Map<String, Long> expectedOutcomes = new TreeMap<>();
    List<String> problems = new ArrayList<>();
    Process child = null;
    try (ServiceBusEmulator serviceBus = ServiceBusEmulator.builder().port(0).start();
        CosmosEmulator cosmos = CosmosEmulator.builder().port(0).start()) {
      serviceBus.createQueue(QueueSettings.defaults(QUEUE));
      serviceBus.createTopic(
          TopicSettings.defaults(EventTopic.NAME).withRequiresDuplicateDetection(true));
      int healthPort = freePort();
      child = start(childEnv(serviceBus, cosmos, healthPort), log);
      long started = System.nanoTime();
      awaitReady(child, healthPort);
      out.printf(
          Locale.ROOT,
          "  child pid %d ready in %.1f s%n",
          child.pid(),
          (System.nanoTime() - started) / 1e9);
      try (ServiceBusSenderClient sender =
          new ServiceBusClientBuilder()
              .connectionString(serviceBus.connectionString())
              .sender()
              .queueName(QUEUE)
              .buildClient()) {
        if (warmUpOrders > 0) {
          long warmStart = System.nanoTime();
          BenchSupport.sendInBatches(sender, scenario, ids.subList(0, warmUpOrders));
          if (!awaitDrained(serviceBus, child)) {
            problems.add("the warm-up batch did not drain within " + timeout);
          }
          out.printf(
              Locale.ROOT,
              "  warm-up: %d orders sent and drained in %.1f s%n",
              warmUpOrders,
              (System.nanoTime() - warmStart) / 1e9);
        }
        if (jfr != null) {
          BenchSupport.jcmd(child.pid(), "JFR.start", "name=bench", "settings=default");
        }
        out.printf(
            Locale.ROOT,
            "%-6s %7s %8s %8s %15s %17s %9s%n",
            "round",
            "orders",
            "seconds",
            "msg/s",
            "child CPU ms/msg",
            "emulators CPU ms/msg",
            "load avg");
        for (int r = 0; r < rounds && problems.isEmpty(); r++) {
          List<String> batch =
              ids.subList(warmUpOrders + r * orders, warmUpOrders + (r + 1) * orders);
          Optional<Round> round =
              measure(
                  serviceBus,
                  child,
                  orders,
                  () -> BenchSupport.sendInBatches(sender, scenario, batch));
          if (round.isEmpty()) {
            problems.add("round " + (r + 1) + " did not drain within " + timeout);
            break;
          }
          measured.add(round.get());
          out.printf(
              Locale.ROOT,
              "%-6d %7d %8.2f %8.0f %15.3f %20.3f %9s%n",
              r + 1,
              round.get().orders(),
              round.get().seconds(),
              round.get().perSecond(),
              round.get().childCpuPerMessage(),
              round.get().emulatorCpuPerMessage(),
              BenchSupport.loadAverage());
        }
        expectedOutcomes.put("processed", (long) warmUpOrders + (long) orders * measured.size());
        if (perType && problems.isEmpty()) {
          measureKinds(serviceBus, sender, child, scenario, byKind, expectedOutcomes, problems);
        }
        if (jfr != null) {
          BenchSupport.jcmd(
              child.pid(), "JFR.stop", "name=bench", "filename=" + jfr.toAbsolutePath());
          out.println("  flight recording of the measured rounds: " + jfr.toAbsolutePath());
        }
      }
      int deadLettered = serviceBus.messageCount(QUEUE + "/$deadletterqueue");
      if (deadLettered > 0) {
        problems.add(deadLettered + " messages dead-lettered");
      }
      stop(child);
    } finally {
      if (child != null) {
        child.destroyForcibly();
      }
    }
    for (Map.Entry<String, Long> expected : expectedOutcomes.entrySet()) {
      long logged = countLines(log, "\"outcome\":\"" + expected.getKey() + "\"");
      if (logged != expected.getValue()) {
        problems.add(
            String.format(
                Locale.ROOT,
                "the child logged %d %s outcomes for %d expected",
                logged,
                expected.getKey(),
                expected.getValue()));
      }
    }
    return summary(measured, byKind, problems);
  }

  /**
   * One round of each {@link Kind} on the first round's orders, each after a warm-up of the same
   * kind on the warm-up's orders (at most {@code --orders} of them).
   */
  private void measureKinds(
      ServiceBusEmulator serviceBus,
      ServiceBusSenderClient sender,
      Process child,
      DemoScenario scenario,
      Map<Kind, Round> byKind,
      Map<String, Long> expectedOutcomes,
      List<String> problems)
      throws IOException, InterruptedException {
    List<String> warmIds = scenario.firstWave.subList(0, Math.min(warmUpOrders, orders));
    List<String> roundIds = scenario.firstWave.subList(warmUpOrders, warmUpOrders + orders);
    out.printf(
        Locale.ROOT,
        "by type, on orders already placed (each after a warm-up of %d of its own):%n%-20s %7s %8s"
            + " %8s %15s %20s%n",
        warmIds.size(),
        "type",
        "msgs",
        "seconds",
        "msg/s",
        "child CPU ms/msg",
        "emulators CPU ms/msg");
    for (Kind kind : Kind.values()) {
      if (!warmIds.isEmpty()) {
        BenchSupport.sendInBatches(sender, warmIds, id -> kind.message(scenario, id));
        if (!awaitDrained(serviceBus, child)) {
          problems.add("the warm-up of " + kind.label + " did not drain within " + timeout);
          return;
        }
      }
      Optional<Round> round =
          measure(
              serviceBus,
              child,
              orders,
              () -> BenchSupport.sendInBatches(sender, roundIds, id -> kind.message(scenario, id)));
      if (round.isEmpty()) {
        problems.add("the round of " + kind.label + " did not drain within " + timeout);
        return;
      }
      expectedOutcomes.merge(kind.outcome, (long) warmIds.size() + orders, Long::sum);
      byKind.put(kind, round.get());
      out.printf(
          Locale.ROOT,
          "%-20s %7d %8.2f %8.0f %15.3f %20.3f%n",
          kind.label,
          round.get().orders(),
          round.get().seconds(),
          round.get().perSecond(),
          round.get().childCpuPerMessage(),
          round.get().emulatorCpuPerMessage());
    }
  }

  private int summary(List<Round> measured, Map<Kind, Round> byKind, List<String> problems) {
    out.printf(Locale.ROOT, "  load average %s at the end%n", BenchSupport.loadAverage());
    if (!measured.isEmpty()) {
      int n = measured.stream().mapToInt(Round::orders).sum();
      double seconds = measured.stream().mapToDouble(Round::seconds).sum();
      double childCpu = measured.stream().mapToDouble(Round::childCpuMillis).sum();
      double emulatorCpu = measured.stream().mapToDouble(Round::emulatorCpuMillis).sum();
      out.printf(
          Locale.ROOT,
          "run process: %d orders in %.2f s = %.0f msg/s (CPU %.3f ms/msg; emulators %.3f"
              + " ms/msg)%n",
          n,
          seconds,
          n / seconds,
          childCpu / n,
          emulatorCpu / n);
      Map<String, Double> groups = new TreeMap<>();
      measured.forEach(
          round ->
              round.childGroupCpuMillis().forEach((g, ms) -> groups.merge(g, ms, Double::sum)));
      StringBuilder line = new StringBuilder("  run process CPU by thread group (ms/msg):");
      groups.forEach(
          (group, ms) -> line.append(String.format(Locale.ROOT, " %s %.3f", group, ms / n)));
      out.println(line);
      double newOrder = childCpu / n;
      byKind.forEach(
          (kind, round) ->
              out.printf(
                  Locale.ROOT,
                  "run process CPU by type (ms/msg): %s %.3f (%.2f of a new OrderPlaced)%n",
                  kind.label,
                  round.childCpuPerMessage(),
                  round.childCpuPerMessage() / newOrder));
    }
    problems.forEach(p -> out.println("PROBLEM: " + p));
    return problems.isEmpty() ? 0 : 1;
  }

  /**
   * Freezes the child, sends a round with {@code send}, thaws it and times the drain.
   *
   * @param count the messages {@code send} sends
   */
  private Optional<Round> measure(
      ServiceBusEmulator serviceBus, Process child, int count, Runnable send)
      throws IOException, InterruptedException {
    signal(child, "STOP");
    try {
      send.run();
    } finally {
      signal(child, "CONT");
    }
    long childCpu = childCpuNanos(child);
    Map<String, Long> childGroups = BenchSupport.threadCpuNanos(child.pid());
    long ownCpu = BenchSupport.processCpuNanos();
    long start = System.nanoTime();
    if (!awaitDrained(serviceBus, child)) {
      return Optional.empty();
    }
    long end = System.nanoTime();
    long childCpuAfter = childCpuNanos(child);
    Map<String, Double> groups = new TreeMap<>();
    BenchSupport.threadCpuNanos(child.pid())
        .forEach(
            (group, nanos) ->
                groups.put(group, (nanos - childGroups.getOrDefault(group, 0L)) / 1e6));
    return Optional.of(
        new Round(
            count,
            (end - start) / 1e9,
            (childCpuAfter - childCpu) / 1e6,
            (BenchSupport.processCpuNanos() - ownCpu) / 1e6,
            groups));
  }

  private Map<String, String> childEnv(
      ServiceBusEmulator serviceBus, CosmosEmulator cosmos, int healthPort) {
    Map<String, String> env = new HashMap<>();
    env.put("SERVICEBUS_CONNECTION_STRING", serviceBus.connectionString());
    env.put("SERVICEBUS_QUEUE_NAME", QUEUE);
    env.put("COSMOS_ENDPOINT", cosmos.endpoint());
    env.put("COSMOS_KEY", cosmos.key());
    env.put("COSMOS_DATABASE", DATABASE);
    env.put("COSMOS_CONTAINER", "orders");
    env.put("COSMOS_CREATE_CONTAINER", "true");
    env.put("HEALTH_PORT", Integer.toString(healthPort));
    env.put("RELAY_ENABLED", Boolean.toString(relay));
    env.put("WORKER_SHUTDOWN_TIMEOUT", "PT20S");
    env.putAll(extraEnv);
    return env;
  }

  private Process start(Map<String, String> env, Path log) throws IOException {
    ProcessBuilder builder = new ProcessBuilder(BenchSupport.runCommand(heap, jvmOptions));
    builder.environment().clear();
    builder.environment().putAll(env);
    return builder.redirectErrorStream(true).redirectOutput(log.toFile()).start();
  }

  private void awaitReady(Process child, int port) throws IOException, InterruptedException {
    HttpClient client = HttpClient.newHttpClient();
    HttpRequest ready =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health/ready"))
            .timeout(Duration.ofSeconds(2))
            .build();
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (!child.isAlive()) {
        throw new IOException("the run process exited with " + child.exitValue());
      }
      try {
        if (client.send(ready, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
          return;
        }
      } catch (IOException e) {
        // not listening yet
      }
      child.waitFor(100, TimeUnit.MILLISECONDS);
    }
    throw new IOException("the run process was not ready within " + timeout);
  }

  /** Polls the queue's message count every 10 ms until it is zero; false on timeout or exit. */
  private boolean awaitDrained(ServiceBusEmulator serviceBus, Process child)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (serviceBus.messageCount(QUEUE) > 0) {
      if (System.nanoTime() > deadline || !child.isAlive()) {
        return false;
      }
      child.waitFor(10, TimeUnit.MILLISECONDS);
    }
    return true;
  }

  private static void stop(Process child) throws InterruptedException {
    child.toHandle().destroy();
    child.waitFor(60, TimeUnit.SECONDS);
  }

  private static void signal(Process child, String signal)
      throws IOException, InterruptedException {
    BenchSupport.runTool("kill", "-" + signal, Long.toString(child.pid()));
  }

  /** User plus system CPU time of the child, from {@code /proc/<pid>/stat} (clock ticks). */
  static long childCpuNanos(Process child) throws IOException {
    return BenchSupport.processCpuNanos(child.pid());
  }

  private static long countLines(Path log, String needle) throws IOException {
    try (Stream<String> lines = Files.lines(log, StandardCharsets.UTF_8)) {
      return lines.filter(line -> line.contains(needle)).count();
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
