package io.idemworker.proof.bench;

import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import io.idemworker.emulator.cosmos.CosmosEmulator;
import io.idemworker.emulator.servicebus.QueueSettings;
import io.idemworker.emulator.servicebus.ServiceBusEmulator;
import io.idemworker.proof.producer.DemoScenario;
import io.idemworker.servicebus.ProcessorSettings;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code bench bound}: one {@code run} process's throughput against its latency bound, with the
 * emulators adding Azure-like latencies, for a grid of concurrency × prefetch.
 *
 * <p>The bound is {@code concurrency / critical path}. For a new order the critical path of one
 * concurrent call is: receive (one Service Bus round trip, from the credit the processor gives when
 * a call is free to the delivery) + store (one Cosmos DB round trip: the transactional batch) +
 * settle (one Service Bus round trip: the handler waits for the broker's answer to its complete).
 * With prefetch the receive is taken ahead, off the critical path, as long as the prefetched
 * messages keep coming ({@code prefetch / receive latency} per second at most), so the bound is
 * {@code min(concurrency / (store + settle), prefetch / receive)}.
 *
 * <p>Each cell gets a fresh queue and container, preloaded with every message, and a fresh child
 * JVM running {@code run} (the relay off: this measures the consumer path) against the emulators of
 * this JVM, started as {@code bench process} starts it. The child first settles a cold warm-up with
 * the latencies off, so that its JIT has compiled the hot path; then the latencies are armed
 * ({@link BoundPhases}). The rate is taken over a window of settled messages (the outcome lines on
 * the child's stdout) that skips both warm-ups and stops before the queue runs dry, so neither the
 * JVM start, nor the cold JIT, nor the tail counts. Beside the bound the table gives the CPU cap
 * (the cores over the CPU per message measured in the window) and the bound with that CPU on each
 * call's path, which say why a cell falls short. Exits 0 when every cell processed every order
 * exactly once, 1 otherwise; the 85 % target is reported, not enforced (it depends on the machine).
 */
@Command(
    name = "bound",
    mixinStandardHelpOptions = true,
    description = {
      "Measures one run process's messages/s against its latency bound.",
      "",
      "With the emulators adding Azure-like latencies, runs a real 'run' child process for each concurrency × prefetch (0 and factor × concurrency): it first settles a warm-up of new orders with no latency (the JIT), then the latencies are armed and a window of new orders is measured. Prints msg/s, the bound concurrency / critical path, the CPU cap (cores / CPU per message), the shares reached, the CPU per message, and what limits each cell. Exits 1 unless every order of every cell was processed exactly once."
    })
final class BoundBench implements Callable<Integer> {
  static final double TARGET = 0.85;
  private static final int MAX_SETTLE_MESSAGES = 30_000;

  @Option(
      names = "--concurrency",
      split = ",",
      defaultValue = "1,4,16,64",
      description = "Concurrent calls to measure (1-256 each; default ${DEFAULT-VALUE}).")
  List<Integer> concurrencies;

  @Option(
      names = "--prefetch-factor",
      defaultValue = "2",
      description =
          "Besides prefetch 0, each concurrency runs with prefetch = factor × concurrency; 0 runs"
              + " prefetch 0 only (0-20; default ${DEFAULT-VALUE}).")
  int prefetchFactor;

  @Option(
      names = "--cosmos-latency",
      defaultValue = "PT0.008S",
      description =
          "Response time of every Cosmos DB request, the emulator's work included (default"
              + " ${DEFAULT-VALUE}: an in-region transactional"
              + " batch; with the Service Bus default a 20 ms path, the planning figure of"
              + " docs/deploy.md).")
  Duration cosmosLatency;

  @Option(
      names = "--servicebus-latency",
      defaultValue = "PT0.006S",
      description =
          "Added to every Service Bus delivery and to every settlement's answer (default"
              + " ${DEFAULT-VALUE}).")
  Duration serviceBusLatency;

  @Option(
      names = "--latency-spread",
      defaultValue = "0.5",
      description =
          "Each request's latency is drawn uniformly between mean × (1 - spread) and mean × (1 +"
              + " spread), so the means (and the bound) stay the given latencies; 0 makes every"
              + " latency constant, which keeps concurrent calls in step (0-1; default"
              + " ${DEFAULT-VALUE}).")
  double latencySpread;

  @Option(
      names = "--warm-up-orders",
      defaultValue = "40000",
      description =
          "New orders each cell's run process settles with no latency armed before the latencies"
              + " are armed, so that its JIT has compiled the hot path (0-200000; default"
              + " ${DEFAULT-VALUE}).")
  int warmUpOrders;

  @Option(
      names = "--settle-seconds",
      defaultValue = "30",
      description =
          "Length of each cell's warm-up under latency, at the bound's rate (at least half the"
              + " measured count, at most 30,000 messages): the latencies make other code hot"
              + " (waits, pools, timers), which the JIT recompiles for 20-30 s on this machine"
              + " after they are armed (0-300; default ${DEFAULT-VALUE}).")
  int settleSeconds;

  @Option(
      names = "--seconds",
      defaultValue = "20",
      description =
          "Aimed length of each cell's measured window at the bound's rate; a CPU-limited cell"
              + " takes longer (1-120; default ${DEFAULT-VALUE}).")
  int seconds;

  @Option(
      names = "--max-messages",
      defaultValue = "16000",
      description = "Most measured messages per cell (20-100000; default ${DEFAULT-VALUE}).")
  int maxMessages;

  @Option(
      names = "--min-messages",
      defaultValue = "200",
      description = "Fewest measured messages per cell (10-100000; default ${DEFAULT-VALUE}).")
  int minMessages;

  @Option(
      names = "--timeout",
      defaultValue = "PT10M",
      description =
          "Longest wait for one cell; a cell cut short reports its window so far (ISO 8601;"
              + " default ${DEFAULT-VALUE}).")
  Duration timeout;

  @Option(
      names = "--jfr",
      description =
          "Directory for a Java Flight Recording (profile settings) of each child, from the"
              + " latencies' arming to the window's end: <dir>/bound-c<C>-p<P>.jfr.")
  Path jfrDirectory;

  private final PrintStream out;

  BoundBench() {
    this(System.out);
  }

  BoundBench(PrintStream out) {
    this.out = out;
  }

  /** One cell of the grid. */
  record Cell(int concurrency, int prefetch) {
    Cell {
      if (concurrency < 1 || prefetch < 0) {
        throw new IllegalArgumentException("concurrency >= 1 and prefetch >= 0");
      }
    }
  }

  @Override
  public Integer call() throws Exception {
    if (concurrencies.isEmpty()
        || concurrencies.stream().anyMatch(c -> c < 1 || c > 256)
        || prefetchFactor < 0
        || prefetchFactor > 20
        || cosmosLatency.isNegative()
        || serviceBusLatency.isNegative()
        || !(latencySpread >= 0 && latencySpread <= 1)
        || warmUpOrders < 0
        || warmUpOrders > 200_000
        || settleSeconds < 0
        || settleSeconds > 300
        || seconds < 1
        || seconds > 120
        || minMessages < 10
        || maxMessages < 20
        || maxMessages > 100_000
        || minMessages > maxMessages
        || timeout.isNegative()
        || timeout.isZero()) {
      System.err.println(
          "idemworker bench bound: --concurrency 1-256 each, --prefetch-factor 0-20, latencies not"
              + " negative, --latency-spread 0-1, --warm-up-orders 0-200000, --settle-seconds 0-300, --seconds 1-120, --min-messages 10 to --max-messages, --max-messages"
              + " 20-100000, --timeout positive");
      return 2;
    }
    if (jfrDirectory != null) {
      Files.createDirectories(jfrDirectory);
    }
    BoundModel model = new BoundModel(serviceBusLatency, cosmosLatency, serviceBusLatency, 1);
    ProcessorSettings defaults = ProcessorSettings.defaults("orders");
    Cell defaultCell = new Cell(defaults.maxConcurrentCalls(), defaults.prefetchCount());
    List<Cell> cells = cells(defaultCell);
    OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
    int cpus = os.getAvailableProcessors();
    long sweepStarted = System.nanoTime();
    out.printf(
        Locale.ROOT,
        "idemworker bench bound: one 'run' process per cell; Cosmos DB %s per request (its"
            + " response time), Service Bus +%s per delivery and per settlement; %s%n",
        millis(cosmosLatency),
        millis(serviceBusLatency),
        latencyShape());
    out.printf(
        Locale.ROOT,
        "  %s UTC; %d CPUs, %s %s; load average %.2f at start%n",
        Instant.now().truncatedTo(ChronoUnit.SECONDS),
        cpus,
        System.getProperty("java.vm.name"),
        System.getProperty("java.runtime.version"),
        os.getSystemLoadAverage());
    out.println("  " + model.describe());
    out.printf(
        Locale.ROOT,
        "  each cell: %d new orders with no latency (JIT warm-up), then the latencies armed, a"
            + " warm-up under latency of about %d s at the bound (the JIT recompiles what the"
            + " latencies make hot), the measured window of settled orders, a tail%n",
        warmUpOrders,
        settleSeconds);
    out.println(
        "  CPU cap: the cores ("
            + cpus
            + ") / (run + emu ms of CPU per message), the most msg/s the machine can give the"
            + " cell; % min: of min(bound, CPU cap); % +CPU: of the bound with each message's"
            + " CPU added to its call's path; hdl ms: mean handler time (store + settle + CPU);"
            + " out ms: concurrency / rate - hdl ms, a call's time per message outside its handler"
            + " (prefetch 0: the receive); run c, emu c: cores busy; jit c: of run c, the run"
            + " process's JIT compiler threads (near 0: the window measured compiled code); others:"
            + " cores other"
            + " processes kept busy over the window; load: the 1-minute load average after the"
            + " cell.");
    out.println();
    out.printf(
        Locale.ROOT,
        "%4s %8s %6s %7s %7s %7s %7s %7s %7s %7s %7s %6s %6s %6s %6s %6s %6s %5s  %s%n",
        "conc",
        "prefetch",
        "msgs",
        "msg/s",
        "bound",
        "CPU cap",
        "% bound",
        "% min",
        "% +CPU",
        "run ms",
        "emu ms",
        "hdl ms",
        "out ms",
        "run c",
        "jit c",
        "emu c",
        "others",
        "load",
        "limited by");
    List<BoundCell.Result> results = new ArrayList<>();
    try (ServiceBusEmulator serviceBus = ServiceBusEmulator.builder().port(0).start();
        CosmosEmulator cosmos = CosmosEmulator.builder().port(0).start()) {
      Runnable arm =
          () -> {
            serviceBus.faults().delayDeliveries(serviceBusLatency, latencySpread);
            serviceBus.faults().delayDispositions(serviceBusLatency, latencySpread);
            cosmos.faults().injectLatency(cosmosLatency, latencySpread);
          };
      for (Cell cell : cells) {
        // Off for the preload and the cold warm-up; the cell arms them when that is settled.
        serviceBus.faults().clear();
        cosmos.faults().clear();
        double bound = model.bound(cell.concurrency(), cell.prefetch());
        BoundCell run =
            new BoundCell(
                serviceBus, cosmos, cell, phases(cell, bound), arm, timeout, jfrDirectory, out);
        BoundCell.Result result = run.run(preload(serviceBus, run.queue(), run.phases().total()));
        results.add(result);
        print(result, model, cell.equals(defaultCell), cpus, os.getSystemLoadAverage());
      }
    }
    out.printf(Locale.ROOT, "  load average %.2f at the end%n", os.getSystemLoadAverage());
    out.println();
    for (BoundCell.Result r : results) {
      out.printf(
          Locale.ROOT,
          "  c%d p%d: cold warm-up %s, cell %.1f s%n",
          r.cell().concurrency(),
          r.cell().prefetch(),
          r.coldWarmUp()
              .map(d -> String.format(Locale.ROOT, "%d orders in %.1f s", warmUpOrders, seconds(d)))
              .orElse(warmUpOrders == 0 ? "none" : "not finished"),
          seconds(r.elapsed()));
    }
    out.printf(
        Locale.ROOT,
        "  sweep: %d cells in %.1f s%n",
        results.size(),
        (System.nanoTime() - sweepStarted) / 1e9);
    return summary(results, model, defaultCell, cpus);
  }

  /**
   * A cell's phases: the cold warm-up of {@code --warm-up-orders}, a warm-up under latency of the
   * bound's rate over {@code --settle-seconds} (at least half the measured count, at most 30,000),
   * the measured count (the bound's rate over {@code --seconds}, within the message limits), and a
   * tail that keeps every call and every prefetched message busy until the window has closed.
   */
  BoundPhases phases(Cell cell, double bound) {
    int measured = (int) Math.max(minMessages, Math.min(maxMessages, bound * seconds));
    int settle = (int) Math.min(MAX_SETTLE_MESSAGES, Math.round(bound * settleSeconds));
    int warm =
        Math.min(
            MAX_SETTLE_MESSAGES,
            Math.max(Math.max(measured / 2, settle), Math.min(100, minMessages)));
    int tail = 2 * (cell.concurrency() + cell.prefetch()) + 20;
    return new BoundPhases(warmUpOrders, warm, measured, tail);
  }

  /** The grid, with the defaults' cell added when the grid lacks it. */
  private List<Cell> cells(Cell defaultCell) {
    List<Cell> cells = new ArrayList<>();
    for (int c : concurrencies) {
      cells.add(new Cell(c, 0));
      if (prefetchFactor > 0) {
        cells.add(new Cell(c, prefetchFactor * c));
      }
    }
    if (!cells.contains(defaultCell)) {
      cells.add(defaultCell);
    }
    return cells;
  }

  private static String preload(ServiceBusEmulator serviceBus, String queue, int count) {
    serviceBus.createQueue(QueueSettings.defaults(queue));
    DemoScenario scenario =
        DemoScenario.generate(count, queue.hashCode(), BenchCommand.MAX_BODY_BYTES);
    try (ServiceBusSenderClient sender =
        new ServiceBusClientBuilder()
            .connectionString(serviceBus.connectionString())
            .sender()
            .queueName(queue)
            .buildClient()) {
      List<ServiceBusMessage> batch = new ArrayList<>(100);
      for (String orderId : scenario.firstWave) {
        batch.add(scenario.message(orderId));
        if (batch.size() == 100) {
          sender.sendMessages(batch);
          batch.clear();
        }
      }
      if (!batch.isEmpty()) {
        sender.sendMessages(batch);
      }
    }
    return queue;
  }

  private void print(
      BoundCell.Result r, BoundModel model, boolean isDefault, int cpus, double loadAverage) {
    Optional<BoundCell.Window> w = r.window();
    double bound = model.bound(r.cell().concurrency(), r.cell().prefetch());
    if (w.isEmpty()) {
      out.printf(
          Locale.ROOT,
          "%4d %8d %6s %7s %7.0f %7s %7s %7s %7s %7s %7s %6s %6s %6s %6s %6s %6s %5.1f  %s%n",
          r.cell().concurrency(),
          r.cell().prefetch(),
          "-",
          "-",
          bound,
          "-",
          "-",
          "-",
          "-",
          "-",
          "-",
          "-",
          "-",
          "-",
          "-",
          "-",
          "-",
          loadAverage,
          "FAILED");
      r.problems().forEach(p -> out.println("    PROBLEM: " + p));
      return;
    }
    BoundCell.Window win = w.get();
    double cpuMillis = win.childCpuMillisPerMessage() + win.emulatorCpuMillisPerMessage();
    double cap = cpuCap(cpus, win.childCpuMillisPerMessage(), win.emulatorCpuMillisPerMessage());
    double withCpu =
        model.bound(
            r.cell().concurrency(),
            r.cell().prefetch(),
            Duration.ofNanos(Math.round(cpuMillis * 1e6)));
    out.printf(
        Locale.ROOT,
        "%4d %8d %6d %7.0f %7.0f %7.0f %6.0f%% %6.0f%% %6.0f%% %7.2f %7.2f %6.1f %6.1f %6.2f %6.2f"
            + " %6.2f %6.2f %5.1f  %s%s%n",
        r.cell().concurrency(),
        r.cell().prefetch(),
        win.messages(),
        win.perSecond(),
        bound,
        cap,
        100 * win.perSecond() / bound,
        100 * win.perSecond() / Math.min(bound, cap),
        100 * win.perSecond() / withCpu,
        win.childCpuMillisPerMessage(),
        win.emulatorCpuMillisPerMessage(),
        win.handlerMillisPerMessage(),
        win.outsideHandlerMillis(r.cell().concurrency()),
        win.childCores(),
        win.compilerCores(),
        win.emulatorCores(),
        win.otherCores(),
        loadAverage,
        limit(bound, cap, win.otherCores(), cpus),
        isDefault ? "  <- defaults" : "");
    r.problems().forEach(p -> out.println("    PROBLEM: " + p));
  }

  /**
   * The most messages a second the machine's cores can give a cell: every message costs the run
   * process's CPU and the emulators' (the same cores serve both); infinite when nothing was spent.
   */
  static double cpuCap(int cpus, double runMillisPerMessage, double emulatorMillisPerMessage) {
    double perMessage = runMillisPerMessage + emulatorMillisPerMessage;
    return perMessage <= 0 ? Double.POSITIVE_INFINITY : cpus * 1000.0 / perMessage;
  }

  /**
   * What limits a cell: the smaller of its latency bound and its CPU cap; "machine shared" when
   * other processes took at least a quarter of the cores over the window (both caps then stand
   * lower than on a quiet machine).
   */
  static String limit(double bound, double cpuCap, double otherCores, int cpus) {
    String by = bound <= cpuCap ? "latency" : "CPU";
    return otherCores >= 0.25 * cpus ? by + " (machine shared)" : by;
  }

  private int summary(
      List<BoundCell.Result> results, BoundModel model, Cell defaultCell, int cpus) {
    boolean allGood = results.stream().allMatch(r -> r.problems().isEmpty());
    Optional<BoundCell.Result> atDefaults =
        results.stream().filter(r -> r.cell().equals(defaultCell)).findFirst();
    out.println();
    atDefaults
        .flatMap(BoundCell.Result::window)
        .ifPresent(
            w -> {
              double bound = model.bound(defaultCell.concurrency(), defaultCell.prefetch());
              double cap =
                  cpuCap(cpus, w.childCpuMillisPerMessage(), w.emulatorCpuMillisPerMessage());
              out.printf(
                  Locale.ROOT,
                  "target: at the defaults (concurrency %d, prefetch %d; %s) %.0f msg/s = %.0f%% of"
                      + " the bound %.0f (%.0f%% of min(bound, CPU cap %.0f)); target %.0f%% of the"
                      + " bound: %s%n",
                  defaultCell.concurrency(),
                  defaultCell.prefetch(),
                  latencyShape(),
                  w.perSecond(),
                  100 * w.perSecond() / bound,
                  bound,
                  100 * w.perSecond() / Math.min(bound, cap),
                  cap,
                  TARGET * 100,
                  verdict(w.perSecond(), bound, cap));
            });
    out.println(allGood ? "every order of every cell processed exactly once" : "FAILED (above)");
    return allGood ? 0 : 1;
  }

  /**
   * The target's verdict: met at 85 % of the bound; otherwise whether the bound could be read here
   * at all (a CPU cap below the bound means this machine cannot give the cell its bound).
   */
  static String verdict(double perSecond, double bound, double cpuCap) {
    if (perSecond >= TARGET * bound) {
      return "met";
    }
    return cpuCap < bound
        ? "NOT met, CPU-limited here (the CPU cap is below the bound: not a test of the bound)"
        : "NOT met";
  }

  private static double seconds(Duration d) {
    return d.toNanos() / 1e9;
  }

  private static String millis(Duration d) {
    return String.format(Locale.ROOT, "%.1f ms", d.toNanos() / 1e6);
  }

  /** How the latencies were drawn, for the header and the verdict. */
  String latencyShape() {
    return latencySpread == 0
        ? "every latency constant"
        : String.format(
            Locale.ROOT,
            "each latency drawn uniformly within ±%.0f %% of its mean",
            latencySpread * 100);
  }
}
