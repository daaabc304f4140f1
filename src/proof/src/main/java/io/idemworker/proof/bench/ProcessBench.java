package io.idemworker.proof.bench;

import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import io.idemworker.emulator.cosmos.CosmosEmulator;
import io.idemworker.emulator.servicebus.QueueSettings;
import io.idemworker.emulator.servicebus.ServiceBusEmulator;
import io.idemworker.emulator.servicebus.TopicSettings;
import io.idemworker.proof.emulators.EventTopic;
import io.idemworker.proof.producer.DemoScenario;
import java.io.IOException;
import java.io.PrintStream;
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
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
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
 * Service Bus emulator counts it. CPU time comes from {@code /proc/<pid>/stat} for the child and
 * from the JVM for this process (both emulators and the polling).
 *
 * <p>Linux only (signals and {@code /proc}). Exits 0 when every round drained, no message was
 * dead-lettered and the child logged exactly one {@code processed} line per order; 1 otherwise; 2
 * for bad options. No throughput is enforced: it depends on the machine.
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
          int from = warmUpOrders + r * orders;
          Optional<Round> round = measure(serviceBus, sender, child, scenario, ids, from);
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
    long processed = countLines(log, "\"outcome\":\"processed\"");
    long sent = warmUpOrders + (long) orders * measured.size();
    if (processed != sent) {
      problems.add(
          String.format(
              Locale.ROOT, "the child logged %d processed orders for %d sent", processed, sent));
    }
    return summary(measured, problems);
  }

  private int summary(List<Round> measured, List<String> problems) {
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
      Map<String, Double> groups = new java.util.TreeMap<>();
      measured.forEach(
          round ->
              round.childGroupCpuMillis().forEach((g, ms) -> groups.merge(g, ms, Double::sum)));
      StringBuilder line = new StringBuilder("  run process CPU by thread group (ms/msg):");
      groups.forEach(
          (group, ms) -> line.append(String.format(Locale.ROOT, " %s %.3f", group, ms / n)));
      out.println(line);
    }
    problems.forEach(p -> out.println("PROBLEM: " + p));
    return problems.isEmpty() ? 0 : 1;
  }

  private Optional<Round> measure(
      ServiceBusEmulator serviceBus,
      ServiceBusSenderClient sender,
      Process child,
      DemoScenario scenario,
      List<String> ids,
      int from)
      throws IOException, InterruptedException {
    signal(child, "STOP");
    try {
      BenchSupport.sendInBatches(sender, scenario, ids.subList(from, from + orders));
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
    Map<String, Double> groups = new java.util.TreeMap<>();
    BenchSupport.threadCpuNanos(child.pid())
        .forEach(
            (group, nanos) ->
                groups.put(group, (nanos - childGroups.getOrDefault(group, 0L)) / 1e6));
    return Optional.of(
        new Round(
            orders,
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
