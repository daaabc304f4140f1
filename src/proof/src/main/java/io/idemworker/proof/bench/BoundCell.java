package io.idemworker.proof.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.idemworker.emulator.cosmos.CosmosEmulator;
import io.idemworker.emulator.servicebus.ServiceBusEmulator;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * One cell of {@link BoundBench}: a {@code run} child process on a preloaded queue, its settled
 * messages counted from its outcome lines, which also drive the cell's phases ({@link
 * BoundPhases}): the latencies are armed (the {@code arm} action) when the cold warm-up has been
 * settled, and the window opens and closes at its counts. Not thread-safe; run once. The arm action
 * runs on the thread reading the child's output and must return quickly.
 */
final class BoundCell {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String DATABASE = "idemworker-bound";

  private final ServiceBusEmulator serviceBus;
  private final CosmosEmulator cosmos;
  private final BoundBench.Cell cell;
  private final BoundPhases phases;
  private final Runnable arm;
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
  private volatile long armedNanos;
  // Written by the reader thread only: the handler times of the window's messages.
  private volatile double windowHandlerMillis;
  // --jfr: jcmd runs one call after the other (the stop after the start), off the reader thread;
  // drained before the child is stopped. What it could not do is a problem of the cell.
  private final ExecutorService recorder =
      Executors.newSingleThreadExecutor(r -> new Thread(r, "bound-jcmd"));
  private final List<String> recordingProblems = new ArrayList<>();

  /**
   * A point of the measured window: wall clock, the child's CPU, this JVM's CPU (the emulators),
   * and the whole machine's busy CPU time.
   */
  record Mark(
      long nanos,
      long childCpuNanos,
      long childCompilerCpuNanos,
      long selfCpuNanos,
      long machineCpuNanos) {}

  /**
   * The measured window of a cell.
   *
   * @param handlerMillis the sum of the window's messages' handler times (the outcome lines' {@code
   *     durationMs}: from the handler's start to the end of its settlement)
   */
  record Window(int messages, Mark start, Mark end, double handlerMillis) {
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

    /**
     * Cores the child's JIT compiler threads kept busy over the window (part of {@link
     * #childCores()}): near 0 when the window measures compiled code, not the compiler at work.
     */
    double compilerCores() {
      return (end.childCompilerCpuNanos() - start.childCompilerCpuNanos()) / 1e9 / seconds();
    }

    double emulatorCores() {
      return (end.selfCpuNanos() - start.selfCpuNanos()) / 1e9 / seconds();
    }

    /** Mean handler time of a message: store, settle and the CPU between them. */
    double handlerMillisPerMessage() {
      return handlerMillis / messages;
    }

    /**
     * Mean time a call spends per message outside its handler: concurrency / rate less the handler
     * time. With prefetch 0 that is the receive (credit, delivery) and the hops around it.
     */
    double outsideHandlerMillis(int concurrency) {
      return concurrency * 1000.0 / perSecond() - handlerMillisPerMessage();
    }

    double emulatorCpuMillisPerMessage() {
      return (end.selfCpuNanos() - start.selfCpuNanos()) / 1e6 / messages;
    }

    /**
     * Cores that other processes of the machine kept busy over the window (never below 0: the
     * tick-based figures of /proc may disagree by a tick or two).
     */
    double otherCores() {
      long machine = end.machineCpuNanos() - start.machineCpuNanos();
      long ours =
          end.childCpuNanos() - start.childCpuNanos() + end.selfCpuNanos() - start.selfCpuNanos();
      return machine == 0 ? 0 : Math.max(0, (machine - ours) / 1e9 / seconds());
    }
  }

  /**
   * What a cell measured; no window when it did not get through it.
   *
   * @param coldWarmUp from the child's start until the latencies were armed (empty if never)
   * @param elapsed the whole cell, from the child's start until it was stopped
   */
  record Result(
      BoundBench.Cell cell,
      Optional<Window> window,
      List<String> problems,
      Optional<Duration> coldWarmUp,
      Duration elapsed) {
    Result {
      problems = List.copyOf(problems);
    }
  }

  BoundCell(
      ServiceBusEmulator serviceBus,
      CosmosEmulator cosmos,
      BoundBench.Cell cell,
      BoundPhases phases,
      Runnable arm,
      Duration timeout,
      Path jfrDirectory,
      PrintStream out) {
    this.serviceBus = serviceBus;
    this.cosmos = cosmos;
    this.cell = cell;
    this.phases = phases;
    this.arm = arm;
    this.timeout = timeout;
    this.jfrDirectory = Optional.ofNullable(jfrDirectory);
    this.out = out;
    this.queue = "bound-c" + cell.concurrency() + "-p" + cell.prefetch();
  }

  String queue() {
    return queue;
  }

  BoundPhases phases() {
    return phases;
  }

  /**
   * Runs the child on {@code queue}, preloaded with {@link BoundPhases#total()} new orders, until
   * it settled them all or the timeout passed, then stops it with SIGTERM. The latencies must be
   * off when this is called, unless the phases have no cold warm-up (then this arms them first).
   */
  Result run(String preloadedQueue) throws IOException, InterruptedException {
    if (!preloadedQueue.equals(queue)) {
      throw new IllegalArgumentException("the queue of this cell is " + queue);
    }
    Path stderr = Files.createTempFile("idemworker-bound-", ".log");
    if (phases.armedFromTheStart()) {
      arm.run();
    }
    long started = System.nanoTime();
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
                  + phases.total()
                  + " settled");
        } else if (!finished) {
          problems.add(
              "timed out after "
                  + timeout
                  + ": "
                  + processed.size()
                  + " of "
                  + phases.total()
                  + " settled");
        }
      }
    } finally {
      recorder.shutdown();
      if (!recorder.awaitTermination(3, TimeUnit.MINUTES)) {
        synchronized (problems) {
          recordingProblems.add("jcmd did not finish within 3 minutes");
        }
      }
      Runtime.getRuntime().removeShutdownHook(stopChild);
      child.toHandle().destroy();
      if (!child.waitFor(30, TimeUnit.SECONDS)) {
        child.destroyForcibly();
        child.waitFor(30, TimeUnit.SECONDS);
      }
      reader.join(TimeUnit.SECONDS.toMillis(30));
    }
    Duration elapsed = Duration.ofNanos(System.nanoTime() - started);
    List<String> found;
    synchronized (problems) {
      found = new ArrayList<>(problems);
      if (!otherOutcomes.isEmpty()) {
        found.add("outcomes other than processed: " + otherOutcomes);
      }
      recordingProblems.forEach(p -> found.add("flight recording: " + p));
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
            ? Optional.of(new Window(phases.measured(), s, e, windowHandlerMillis))
            : Optional.empty();
    long armed = armedNanos;
    Optional<Duration> coldWarmUp =
        armed == 0 ? Optional.empty() : Optional.of(Duration.ofNanos(armed - started));
    return new Result(cell, window, found, coldWarmUp, elapsed);
  }

  private ProcessBuilder command() {
    List<String> args = BenchSupport.runCommand("512m", List.of());
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
    if (phases.inWindow(n)) {
      windowHandlerMillis += line.path("durationMs").asDouble();
    }
    switch (phases.at(n)) {
      case ARM -> {
        arm.run();
        armedNanos = System.nanoTime();
        record(child, "JFR.start", "name=bound", "settings=profile");
      }
      case OPEN_WINDOW -> start = mark(child);
      case CLOSE_WINDOW -> {
        end = mark(child);
        recording().ifPresent(file -> record(child, "JFR.stop", "name=bound", "filename=" + file));
      }
      case ALL_SETTLED -> done.countDown();
      case NOTHING -> {}
    }
  }

  /** Where the child's flight recording goes, with {@code --jfr}. */
  Optional<Path> recording() {
    return jfrDirectory.map(dir -> dir.resolve(queue + ".jfr").toAbsolutePath());
  }

  /**
   * With {@code --jfr}, starts or stops the child's flight recording with {@code jcmd} on a thread
   * of its own, one call after the other: the reader must go on draining the child's output
   * meanwhile, or the child would block on a full pipe. The recording thus covers the latency
   * phases only (from the arming to the window's end), not the cold warm-up. (A recording started
   * with the JVM and written on exit stays empty: {@code run}'s shutdown hook halts the JVM before
   * JFR's own hook writes it.)
   */
  private void record(Process child, String... command) {
    if (jfrDirectory.isEmpty()) {
      return;
    }
    recorder.execute(
        () -> {
          try {
            BenchSupport.jcmd(child.pid(), command);
          } catch (IOException e) {
            synchronized (problems) {
              recordingProblems.add(e.getMessage());
            }
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
  }

  private static Mark mark(Process child) {
    long now = System.nanoTime();
    long childCpu;
    long compilerCpu;
    try {
      childCpu = BenchSupport.processCpuNanos(child.pid());
      compilerCpu = BenchSupport.compilerCpuNanos(child.pid());
    } catch (IOException e) {
      childCpu = child.toHandle().info().totalCpuDuration().map(Duration::toNanos).orElse(0L);
      compilerCpu = 0;
    }
    return new Mark(
        now,
        childCpu,
        compilerCpu,
        BenchSupport.processCpuNanos(),
        BenchSupport.machineBusyNanos());
  }
}
