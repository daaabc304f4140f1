package io.idemworker.proof;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.idemworker.Main;
import io.idemworker.emulator.cosmos.CosmosEmulator;
import io.idemworker.emulator.servicebus.ServiceBusEmulator;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * One cell of {@link BoundBench}: a {@code run} child process on a preloaded queue, its settled
 * messages counted from its outcome lines. Not thread-safe; run once.
 */
final class BoundCell {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String DATABASE = "idemworker-bound";

  private final ServiceBusEmulator serviceBus;
  private final CosmosEmulator cosmos;
  private final BoundBench.Cell cell;
  private final int warmUp;
  private final int measured;
  private final int total;
  private final Duration timeout;
  private final Optional<Path> jfrDirectory;
  private final PrintStream out;
  private final String queue;

  // Written by the reader thread, read after it ended or after done fired (happens-before both).
  private final CountDownLatch done = new CountDownLatch(1);
  private final Set<String> processed = new HashSet<>();
  private final Map<String, Integer> otherOutcomes = new TreeMap<>();
  private final List<String> problems = new ArrayList<>();
  private volatile Mark start;
  private volatile Mark end;
  private volatile int windowMessages;

  /** A point of the measured window. */
  record Mark(long nanos, long childCpuNanos, long selfCpuNanos) {}

  /** The measured window of a cell. */
  record Window(int messages, Mark start, Mark end, int cpus) {
    double seconds() {
      return (end.nanos() - start.nanos()) / 1e9;
    }

    double perSecond() {
      return messages / seconds();
    }

    double childCpuMillisPerMessage() {
      return (end.childCpuNanos() - start.childCpuNanos()) / 1e6 / messages;
    }

    double childCores() {
      return (end.childCpuNanos() - start.childCpuNanos()) / 1e9 / seconds();
    }

    double emulatorCores() {
      return (end.selfCpuNanos() - start.selfCpuNanos()) / 1e9 / seconds();
    }
  }

  /** What a cell measured; no window when it did not get through it. */
  record Result(BoundBench.Cell cell, Optional<Window> window, List<String> problems) {
    Result {
      problems = List.copyOf(problems);
    }
  }

  BoundCell(
      ServiceBusEmulator serviceBus,
      CosmosEmulator cosmos,
      BoundBench.Cell cell,
      int warmUp,
      int measured,
      int tail,
      Duration timeout,
      Path jfrDirectory,
      PrintStream out) {
    this.serviceBus = serviceBus;
    this.cosmos = cosmos;
    this.cell = cell;
    this.warmUp = warmUp;
    this.measured = measured;
    this.total = warmUp + measured + tail;
    this.timeout = timeout;
    this.jfrDirectory = Optional.ofNullable(jfrDirectory);
    this.out = out;
    this.queue = "bound-c" + cell.concurrency() + "-p" + cell.prefetch();
    this.windowMessages = measured;
  }

  String queue() {
    return queue;
  }

  /**
   * Runs the child on {@code queue}, preloaded with {@code warmUp + measured + tail} new orders,
   * until it settled them all or the timeout passed, then stops it with SIGTERM.
   */
  Result run(String preloadedQueue) throws IOException, InterruptedException {
    if (!preloadedQueue.equals(queue)) {
      throw new IllegalArgumentException("the queue of this cell is " + queue);
    }
    Path stderr = Files.createTempFile("idemworker-bound-", ".log");
    Process child = command().redirectError(ProcessBuilder.Redirect.to(stderr.toFile())).start();
    // A bench stopped with Ctrl+C must not leave its child running against vanished emulators.
    Thread stopChild = new Thread(child::destroyForcibly, "bound-stop-" + queue);
    Runtime.getRuntime().addShutdownHook(stopChild);
    Thread reader = new Thread(() -> read(child), "bound-" + queue);
    reader.setDaemon(true);
    reader.start();
    child.onExit().thenRun(done::countDown);
    try {
      boolean finished = done.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
      synchronized (problems) {
        if (!child.isAlive()) {
          problems.add(
              "the run process exited with "
                  + child.exitValue()
                  + " after "
                  + processed.size()
                  + " of "
                  + total
                  + " settled");
        } else if (!finished) {
          problems.add(
              "timed out after " + timeout + ": " + processed.size() + " of " + total + " settled");
          if (start != null && end == null) {
            // Report what the window saw so far rather than nothing.
            windowMessages = processed.size() - warmUp;
            end = mark(child);
          }
        }
      }
    } finally {
      Runtime.getRuntime().removeShutdownHook(stopChild);
      child.toHandle().destroy();
      if (!child.waitFor(30, TimeUnit.SECONDS)) {
        child.destroyForcibly();
        child.waitFor(30, TimeUnit.SECONDS);
      }
      reader.join(TimeUnit.SECONDS.toMillis(30));
    }
    List<String> found;
    synchronized (problems) {
      found = new ArrayList<>(problems);
      if (!otherOutcomes.isEmpty()) {
        found.add("outcomes other than processed: " + otherOutcomes);
      }
    }
    if (!found.isEmpty()) {
      List<String> log = Files.readAllLines(stderr, StandardCharsets.UTF_8);
      log.subList(Math.max(0, log.size() - 15), log.size())
          .forEach(line -> found.add("child stderr: " + line));
    }
    Files.deleteIfExists(stderr);
    Mark s = start;
    Mark e = end;
    Optional<Window> window =
        s != null && e != null
            ? Optional.of(new Window(measured, s, e, Runtime.getRuntime().availableProcessors()))
            : Optional.empty();
    return new Result(cell, window, found);
  }

  private ProcessBuilder command() {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> args = new ArrayList<>();
    args.add(java);
    args.add("-Xmx512m");
    // The shipped configuration (outcome lines on stdout), even where a test one is on the path.
    args.add("-Dlogback.configurationFile=logback.xml");
    args.add("-DCOSMOS.EMULATOR_SERVER_CERTIFICATE_VALIDATION_DISABLED=true");
    args.add("-DCOSMOS.DISABLE_IMDS_ACCESS=true");
    jfrDirectory.ifPresent(
        dir ->
            args.add(
                "-XX:StartFlightRecording=settings=profile,filename="
                    + dir.resolve(queue + ".jfr").toAbsolutePath()));
    args.add("-cp");
    args.add(System.getProperty("java.class.path"));
    args.add(Main.class.getName());
    args.add("run");
    ProcessBuilder builder = new ProcessBuilder(args);
    Map<String, String> env = builder.environment();
    env.clear();
    env.put("SERVICEBUS_CONNECTION_STRING", serviceBus.connectionString());
    env.put("SERVICEBUS_QUEUE_NAME", queue);
    env.put("COSMOS_ENDPOINT", cosmos.endpoint());
    env.put("COSMOS_KEY", cosmos.key());
    env.put("COSMOS_DATABASE", DATABASE);
    env.put("COSMOS_CONTAINER", queue);
    env.put("COSMOS_CREATE_CONTAINER", "true");
    env.put("WORKER_MAX_CONCURRENT_CALLS", Integer.toString(cell.concurrency()));
    env.put("WORKER_PREFETCH_COUNT", Integer.toString(cell.prefetch()));
    env.put("WORKER_SHUTDOWN_TIMEOUT", "PT10S");
    env.put("RELAY_ENABLED", "false");
    env.put("HEALTH_PORT", "0");
    return builder;
  }

  /** Counts the child's outcome lines and marks the window's ends as they pass. */
  private void read(Process child) {
    try (BufferedReader lines =
        new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = lines.readLine()) != null) {
        if (line.startsWith("{") && line.contains("\"outcome\"")) {
          count(JSON.readTree(line), child);
        }
      }
    } catch (IOException e) {
      // the child ended
    }
  }

  private void count(JsonNode line, Process child) {
    String outcome = line.path("outcome").asText();
    int n;
    synchronized (problems) {
      if (!outcome.equals("processed")) {
        otherOutcomes.merge(outcome, 1, Integer::sum);
        return;
      }
      String orderId = line.path("orderId").asText();
      if (!processed.add(orderId)) {
        problems.add("processed twice: " + orderId);
      }
      n = processed.size();
    }
    if (n == warmUp) {
      start = mark(child);
    } else if (n == warmUp + measured) {
      end = mark(child);
    }
    if (n == total) {
      done.countDown();
    }
  }

  private static Mark mark(Process child) {
    long now = System.nanoTime();
    long childCpu = child.toHandle().info().totalCpuDuration().map(Duration::toNanos).orElse(0L);
    long selfCpu =
        ManagementFactory.getOperatingSystemMXBean()
                instanceof com.sun.management.OperatingSystemMXBean os
            ? os.getProcessCpuTime()
            : 0L;
    return new Mark(now, childCpu, selfCpu);
  }
}
