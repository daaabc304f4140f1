package io.idemworker.proof.bench;

import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import io.idemworker.emulator.cosmos.CosmosEmulator;
import io.idemworker.emulator.servicebus.QueueSettings;
import io.idemworker.emulator.servicebus.ServiceBusEmulator;
import io.idemworker.emulator.servicebus.TopicSettings;
import io.idemworker.proof.CrashFiles;
import io.idemworker.proof.emulators.EventTopic;
import io.idemworker.proof.producer.DemoScenario;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code bench cold}: how fast a fresh replica gets going, the figure that matters when KEDA scales
 * out under a growing backlog.
 *
 * <p>Starts both emulators in this JVM and warms them with one throw-away run, so the figures are
 * the child's own. Then, for each run, fills a fresh queue with new orders, starts the worker jar
 * as the image does ({@link ImageJvm}: the Dockerfile's JVM options, a container's memory) and
 * watches the queue: the time from process start to the first settled message, the rate over the
 * first and the fifth thousand messages, and the rate over the last thousand. Variants (JVM options
 * or environment, e.g. with and without the class-data archive) run interleaved, so a changing
 * machine load spreads over all of them, and their medians are printed side by side.
 *
 * <p>Linux only (it reads {@code /proc} for CPU). Exits 0 when every run drained without a
 * dead-letter, 1 otherwise, 2 for bad options. No figure is enforced: they depend on the machine.
 */
@Command(
    name = "cold",
    mixinStandardHelpOptions = true,
    description = {
      "Measures how fast a fresh 'run' process gets going: time to its first settled message and its rate over the first and fifth thousand messages, per variant, interleaved.",
      "",
      "Variants: NAME=OPTIONS, where OPTIONS are extra JVM options separated by spaces; '@cds' stands for the class-data archive this command trains first (as the image build does) for the variant's jar, '@aot' for an AOT cache (JDK 25: -XX:AOTCacheOutput) trained the same way, 'java:PATH' runs the child on another JVM (e.g. a JDK 25's bin/java), 'env:NAME=VALUE' sets a variable of the child, 'jar:PATH' runs another build's worker jar (side by side with the previous build), and 'signed-jars' keeps the dependencies' jar signatures, which the image build removes."
    })
final class ColdStartBench implements Callable<Integer> {
  private static final String DATABASE = "idemworker-cold";
  private static final int[] MARKS = {1, 1_000, 4_000, 5_000};
  private static final String SIGNED = "signed-jars";

  @Option(
      names = "--orders",
      defaultValue = "6000",
      description =
          "New orders waiting in the queue when each child starts (5000-100000; default"
              + " ${DEFAULT-VALUE}).")
  int orders;

  @Option(
      names = "--runs",
      defaultValue = "3",
      description = "Runs per variant, interleaved (1-20; default ${DEFAULT-VALUE}).")
  int runs;

  @Option(
      names = "--variant",
      description =
          "NAME=OPTIONS (repeatable; default: 'image=' and 'image+cds=@cds', i.e. the image's"
              + " options without and with the class-data archive).")
  Map<String, String> variants = new LinkedHashMap<>();

  @Option(
      names = "--worker-jar",
      defaultValue = "src/worker/target/idemworker-worker.jar",
      description =
          "The worker jar the image runs (default ${DEFAULT-VALUE}; build it with"
              + " mvn package).")
  Path workerJar;

  @Option(
      names = "--dockerfile",
      defaultValue = "Dockerfile",
      description = "Where the image's JVM options are read from (default ${DEFAULT-VALUE}).")
  Path dockerfile;

  @Option(
      names = "--container-memory",
      defaultValue = "1g",
      description =
          "The memory the child believes it has, as in a container (-XX:MaxRAM; default"
              + " ${DEFAULT-VALUE}, the worker app's size in the templates).")
  String containerMemory;

  @Option(
      names = "--write-archive",
      description =
          "Only remove the signatures of the jars in the worker jar's lib/ (in place), train and"
              + " write the class-data archive to this file, then exit (the image build's"
              + " step; nothing is measured).")
  Path writeArchive;

  @Option(
      names = "--write-aot-cache",
      description =
          "Like --write-archive, for a JDK 25 image: remove the signatures of the jars in the"
              + " worker jar's lib/ (in place), train and write an AOT cache (-XX:AOTCacheOutput)"
              + " to this file with this JVM, then exit.")
  Path writeAotCache;

  @Option(
      names = "--training-orders",
      defaultValue = "3000",
      description = "New orders the training run takes (100-100000; default ${DEFAULT-VALUE}).")
  int trainingOrders;

  @Option(
      names = "--timeout",
      defaultValue = "PT300S",
      description = "Longest wait for each run (ISO 8601; default ${DEFAULT-VALUE}).")
  Duration timeout;

  private final PrintStream out;

  ColdStartBench() {
    this(System.out);
  }

  ColdStartBench(PrintStream out) {
    this.out = out;
  }

  @Override
  public Integer call() throws Exception {
    if (orders < MARKS[MARKS.length - 1] || orders > 100_000 || runs < 1 || runs > 20) {
      System.err.println("idemworker bench cold: --orders must be 5000-100000 and --runs 1-20");
      return 2;
    }
    if (writeArchive != null && writeAotCache != null) {
      System.err.println(
          "idemworker bench cold: --write-archive and --write-aot-cache exclude each other");
      return 2;
    }
    if (!Files.isRegularFile(workerJar)) {
      System.err.println(
          "idemworker bench cold: --worker-jar " + workerJar + " not found (run mvn package)");
      return 2;
    }
    if (writeArchive != null || writeAotCache != null) {
      variants.clear();
      runs = 0;
    } else if (variants.isEmpty()) {
      variants.put("image", "");
      variants.put("image+cds", "@cds");
    }
    List<String> imageOptions;
    try {
      imageOptions = ImageJvm.options(Files.readString(dockerfile), containerMemory);
    } catch (IOException | IllegalArgumentException e) {
      System.err.println(
          "idemworker bench cold: --dockerfile " + dockerfile + ": " + e.getMessage());
      return 2;
    }
    out.printf(
        Locale.ROOT,
        "idemworker bench cold: %d runs of each of %s; %d new orders waiting at each start%n"
            + "  image JVM options: %s%n  %s UTC; %d CPUs; load average %s at start%n",
        runs,
        variants.keySet(),
        orders,
        String.join(" ", imageOptions),
        Instant.now().truncatedTo(ChronoUnit.SECONDS),
        Runtime.getRuntime().availableProcessors(),
        BenchSupport.loadAverage());
    DemoScenario scenario =
        DemoScenario.generate(
            orders * (runs * variants.size() + 2), 7, BenchCommand.MAX_BODY_BYTES);
    List<String> problems = new ArrayList<>();
    Map<String, List<ColdRun>> results = new LinkedHashMap<>();
    variants.keySet().forEach(name -> results.put(name, new ArrayList<>()));
    try (ServiceBusEmulator serviceBus = ServiceBusEmulator.builder().port(0).start();
        CosmosEmulator cosmos = CosmosEmulator.builder().port(0).start()) {
      serviceBus.createTopic(
          TopicSettings.defaults(EventTopic.NAME).withRequiresDuplicateDetection(true));
      Runs fixture = new Runs(serviceBus, cosmos, scenario, imageOptions);
      if (writeArchive != null || writeAotCache != null) {
        // The image build's step: the image's own lib/, unsigned in place, then its archive or
        // AOT cache (both leave out the classes of signed jars).
        int unsigned = ImageLayout.unsign(workerJar.toAbsolutePath().getParent().resolve("lib"));
        out.printf(Locale.ROOT, "  signatures removed from %d jars in lib/%n", unsigned);
        // A JVM that crashes here (the training run or the dump) gets one more try, then the step
        // fails with the crash file's first lines: never an image without its archive or cache.
        Path java = Path.of(BenchSupport.javaExecutable());
        CrashFiles.retryOnceOnCrash(
            writeArchive != null ? "the class-data archive" : "the AOT cache",
            out,
            () -> {
              if (writeArchive != null) {
                train(fixture, java, workerJar, writeArchive.toAbsolutePath());
              } else {
                trainAot(fixture, java, workerJar, writeAotCache.toAbsolutePath());
              }
              return null;
            });
        return 0;
      }
      // Each variant runs from a copy of the image's /app: the jars unsigned as the image build
      // leaves them, or signed ('signed-jars'); '@cds' maps an archive trained for that copy.
      Map<String, Layout> layouts = new LinkedHashMap<>();
      // A layout per jar and JVM: an archive or a cache only fits the JVM that made it. Each
      // training (options as the variant, without the variant's own archive or cache) runs once.
      Map<String, Path> trained = new LinkedHashMap<>();
      for (String options : variants.values()) {
        String key = layoutKey(options);
        if (!layouts.containsKey(key)) {
          Path dir = Files.createTempDirectory("idemworker-cold-app-");
          Path jar = ImageLayout.copy(jarOf(options), dir, !options.contains(SIGNED));
          layouts.put(key, new Layout(jar, dir));
        }
        Layout layout = layouts.get(key);
        Path java = javaOf(options);
        for (String kind : List.of("@cds", "@aot")) {
          if (!hasToken(options, kind)) {
            continue;
          }
          List<String> trainingOptions = expand(options.replace(kind, ""), layout);
          // One archive per layout (its training takes the image's options only); a cache per
          // set of options, which it is trained with.
          Path file =
              kind.equals("@cds")
                  ? layout.dir.resolve("idemworker.jsa")
                  : layout.dir.resolve(
                      "idemworker-" + Integer.toHexString(trainingOptions.hashCode()) + ".aot");
          layout.files.put(kind + " " + options, file);
          if (!trained.containsKey(file.toString())) {
            if (kind.equals("@cds")) {
              train(fixture, java, layout.jar, file);
            } else {
              trainAot(fixture, java, layout.jar, file, trainingOptions);
            }
            trained.put(file.toString(), file);
          }
        }
      }
      if (trained.isEmpty()) {
        fixture.run(
            "emulator warm-up",
            Path.of(BenchSupport.javaExecutable()),
            workerJar,
            List.of(),
            trainingOrders);
      }
      out.printf(
          Locale.ROOT,
          "%-12s %4s %10s %11s %11s %11s %9s %9s %9s%n",
          "variant",
          "run",
          "first (s)",
          "1st k msg/s",
          "5th k msg/s",
          "last k msg/s",
          "1st k cpu",
          "last cpu",
          "load avg");
      for (int r = 1; r <= runs; r++) {
        for (Map.Entry<String, String> variant : variants.entrySet()) {
          Layout layout = layouts.get(layoutKey(variant.getValue()));
          ColdRun run =
              fixture.run(
                  variant.getKey(),
                  javaOf(variant.getValue()),
                  layout.jar,
                  expand(variant.getValue(), layout),
                  orders);
          results.get(variant.getKey()).add(run);
          out.printf(
              Locale.ROOT,
              "%-12s %4d %10.2f %11.0f %11.0f %11.0f %6.2f ms %6.2f ms %9s%n",
              variant.getKey(),
              r,
              run.firstSettled(),
              run.rate(1),
              run.rate(5),
              run.lastThousandRate(),
              run.firstThousandCpuMs(),
              run.lastThousandCpuMs(),
              BenchSupport.loadAverage());
        }
      }
      int deadLettered = fixture.deadLettered();
      if (deadLettered > 0) {
        problems.add(deadLettered + " messages dead-lettered");
      }
    } catch (IOException e) {
      problems.add(e.getMessage());
    }
    out.println("medians:");
    results.forEach(
        (name, list) -> {
          if (!list.isEmpty()) {
            out.printf(
                Locale.ROOT,
                "  %-12s first settled %.2f s; first 1,000 at %.0f msg/s, fifth at %.0f,"
                    + " last at %.0f (first/last %.2f); CPU a message %.2f ms over the first"
                    + " 1,000, %.2f ms over the last%n",
                name,
                median(list.stream().mapToDouble(ColdRun::firstSettled).toArray()),
                median(list.stream().mapToDouble(run -> run.rate(1)).toArray()),
                median(list.stream().mapToDouble(run -> run.rate(5)).toArray()),
                median(list.stream().mapToDouble(ColdRun::lastThousandRate).toArray()),
                median(
                    list.stream()
                        .mapToDouble(run -> run.rate(1) / run.lastThousandRate())
                        .toArray()),
                median(list.stream().mapToDouble(ColdRun::firstThousandCpuMs).toArray()),
                median(list.stream().mapToDouble(ColdRun::lastThousandCpuMs).toArray()));
          }
        });
    out.println(
        "where the CPU of the first 1,000 went (medians, ms; from the 1st to the 1,000th):");
    results.forEach(
        (name, list) -> {
          if (!list.isEmpty() && !list.get(0).firstThousandProfile().isEmpty()) {
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "  %-12s", name));
            for (String group : list.get(0).firstThousandProfile().keySet()) {
              double ms =
                  median(
                      list.stream()
                          .mapToDouble(
                              run -> run.firstThousandProfile().getOrDefault(group, 0L) / 1e6)
                          .toArray());
              line.append(String.format(Locale.ROOT, " %s %.0f", group, ms));
            }
            out.println(line);
          }
        });
    out.printf(Locale.ROOT, "  load average %s at the end%n", BenchSupport.loadAverage());
    problems.forEach(p -> out.println("PROBLEM: " + p));
    return problems.isEmpty() ? 0 : 1;
  }

  private void train(Runs fixture, Path java, Path jar, Path archive)
      throws IOException, InterruptedException {
    Path classList = Files.createTempFile("idemworker-cold-", ".classlist");
    ColdRun training =
        fixture.run(
            "training", java, jar, List.of("-XX:DumpLoadedClassList=" + classList), trainingOrders);
    ClassDataArchive.dump(java, fixture.imageOptions, jar, classList, archive);
    out.printf(
        Locale.ROOT,
        "  class-data archive for %s: a training run of %.1f s loaded %d classes; archive %s (%d"
            + " MiB, %s)%n",
        jar,
        training.lastMark() / 1e9,
        Files.readAllLines(classList).size(),
        archive,
        Files.size(archive) / (1024 * 1024),
        "with its lambda proxies");
    Files.deleteIfExists(classList);
  }

  /**
   * Trains an AOT cache (JDK 25, JEP 514): a training run with {@code -XX:AOTCacheOutput}, whose
   * JVM writes the cache when it exits (the bench stops it as the platform stops a replica, with
   * SIGTERM), then a JVM started with {@code -XX:AOTMode=on}, which refuses to start unless the
   * cache maps.
   *
   * @param extraOptions the variant's own options, which the cache is trained with
   */
  private void trainAot(Runs fixture, Path java, Path jar, Path cache, List<String> extraOptions)
      throws IOException, InterruptedException {
    Files.deleteIfExists(cache);
    List<String> options = new ArrayList<>(extraOptions);
    options.add("-XX:AOTCacheOutput=" + cache);
    ColdRun training = fixture.run("training", java, jar, options, trainingOrders);
    if (!Files.isRegularFile(cache) || Files.size(cache) == 0) {
      throw new IOException("the AOT cache training run wrote no cache at " + cache);
    }
    ClassDataArchive.checkAotCache(java, fixture.imageOptions, extraOptions, jar, cache);
    out.printf(
        Locale.ROOT,
        "  AOT cache for %s on %s: a training run of %.1f s; cache %s (%d MiB)%n",
        jar,
        java,
        training.lastMark() / 1e9,
        cache,
        Files.size(cache) / (1024 * 1024));
  }

  private void trainAot(Runs fixture, Path java, Path jar, Path cache)
      throws IOException, InterruptedException {
    trainAot(fixture, java, jar, cache, List.of());
  }

  /** The JVM a variant runs on: its {@code java:PATH}, or this JVM's. */
  private static Path javaOf(String options) {
    for (String option : options.trim().split("\\s+")) {
      if (option.startsWith("java:")) {
        return Path.of(option.substring(5));
      }
    }
    return Path.of(BenchSupport.javaExecutable());
  }

  private static boolean hasToken(String options, String token) {
    return List.of(options.trim().split("\\s+")).contains(token);
  }

  /** The jar a variant runs: its {@code jar:PATH}, or {@code --worker-jar}. */
  private Path jarOf(String options) {
    for (String option : options.trim().split("\\s+")) {
      if (option.startsWith("jar:")) {
        return Path.of(option.substring(4));
      }
    }
    return workerJar;
  }

  private String layoutKey(String options) {
    return jarOf(options).toAbsolutePath()
        + " "
        + javaOf(options)
        + (options.contains(SIGNED) ? " signed" : "");
  }

  /** A copy of the image's {@code /app}: its worker jar and the archives and caches for it. */
  private static final class Layout {
    final Path jar;
    final Path dir;

    /** The archive or cache of each {@code "@cds OPTIONS"} / {@code "@aot OPTIONS"}. */
    final Map<String, Path> files = new LinkedHashMap<>();

    Layout(Path jar, Path dir) {
      this.jar = jar;
      this.dir = dir;
    }
  }

  private static List<String> expand(String options, Layout layout) {
    List<String> expanded = new ArrayList<>();
    for (String option : options.trim().split("\\s+")) {
      if (option.isEmpty()
          || option.equals(SIGNED)
          || option.startsWith("jar:")
          || option.startsWith("java:")) {
        continue;
      }
      if (option.equals("@cds")) {
        expanded.add("-XX:SharedArchiveFile=" + layout.files.get("@cds " + options));
      } else if (option.equals("@aot")) {
        expanded.add("-XX:AOTCache=" + layout.files.get("@aot " + options));
      } else {
        expanded.add(option);
      }
    }
    return expanded;
  }

  static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }

  /**
   * When one child settled its messages, in nanoseconds from the process start, and the CPU time it
   * had used by then.
   *
   * @param marks nanoseconds at which the 1st, 1,000th, 4,000th and 5,000th message had settled
   * @param cpu the child's CPU nanoseconds at each of {@code marks}
   * @param total messages the child settled
   * @param end nanoseconds at which the last one settled
   * @param lastThousandStart nanoseconds at which {@code total - 1000} had settled
   * @param lastThousandCpu the child's CPU nanoseconds at {@code end} minus those at {@code
   *     lastThousandStart}
   * @param firstThousandProfile CPU nanoseconds between the 1st and the 1,000th settled message:
   *     the child's by thread group ({@link BenchSupport#threadCpuNanos}) and the bench's own JVM's
   *     ({@code emulators}: the emulators serve the child in it)
   */
  record ColdRun(
      long[] marks,
      long[] cpu,
      int total,
      long end,
      long lastThousandStart,
      long lastThousandCpu,
      Map<String, Long> firstThousandProfile) {
    ColdRun(
        long[] marks,
        long[] cpu,
        int total,
        long end,
        long lastThousandStart,
        long lastThousandCpu) {
      this(marks, cpu, total, end, lastThousandStart, lastThousandCpu, Map.of());
    }

    double firstSettled() {
      return marks[0] / 1e9;
    }

    /** Messages per second over the {@code k}-th thousand (1 or 5). */
    double rate(int k) {
      long from = k == 1 ? marks[0] : marks[2];
      long to = k == 1 ? marks[1] : marks[3];
      return (k == 1 ? 999 : 1_000) / ((to - from) / 1e9);
    }

    double lastThousandRate() {
      return 1_000 / ((end - lastThousandStart) / 1e9);
    }

    /** The child's CPU milliseconds a message over the first thousand. */
    double firstThousandCpuMs() {
      return (cpu[1] - cpu[0]) / 1e6 / 999;
    }

    /** The child's CPU milliseconds a message over the last thousand. */
    double lastThousandCpuMs() {
      return lastThousandCpu / 1e6 / 1_000;
    }

    long lastMark() {
      return end;
    }
  }

  /** Starts children on prefilled queues and watches them settle. */
  private final class Runs {
    private final ServiceBusEmulator serviceBus;
    private final CosmosEmulator cosmos;
    private final DemoScenario scenario;
    final List<String> imageOptions;
    private final List<String> queues = new ArrayList<>();
    private int next;

    Runs(
        ServiceBusEmulator serviceBus,
        CosmosEmulator cosmos,
        DemoScenario scenario,
        List<String> imageOptions) {
      this.serviceBus = serviceBus;
      this.cosmos = cosmos;
      this.scenario = scenario;
      this.imageOptions = imageOptions;
    }

    ColdRun run(String label, Path java, Path jar, List<String> options, int count)
        throws IOException, InterruptedException {
      int index = queues.size();
      String queue = "orders-" + index;
      serviceBus.createQueue(QueueSettings.defaults(queue));
      queues.add(queue);
      try (ServiceBusSenderClient sender =
          new ServiceBusClientBuilder()
              .connectionString(serviceBus.connectionString())
              .sender()
              .queueName(queue)
              .buildClient()) {
        BenchSupport.sendInBatches(
            sender, scenario, scenario.firstWave.subList(next, next + count));
        next += count;
      }
      List<String> command = new ArrayList<>();
      command.add(java.toString());
      command.addAll(imageOptions);
      command.addAll(CrashFiles.jvmOptions());
      command.addAll(
          List.of(
              "-DCOSMOS.EMULATOR_SERVER_CERTIFICATE_VALIDATION_DISABLED=true",
              "-DCOSMOS.DISABLE_IMDS_ACCESS=true"));
      Map<String, String> env = new LinkedHashMap<>();
      for (String option : options) {
        if (option.startsWith("env:")) {
          String[] pair = option.substring(4).split("=", 2);
          env.put(pair[0], pair.length > 1 ? pair[1] : "");
        } else {
          command.add(option);
        }
      }
      command.addAll(List.of("-jar", jar.toString(), "run"));
      Path log = Files.createTempFile("idemworker-cold-" + index + "-", ".log");
      ProcessBuilder builder = new ProcessBuilder(command);
      builder.environment().clear();
      builder.environment().putAll(childEnv(queue, index));
      builder.environment().putAll(env);
      builder.redirectErrorStream(true).redirectOutput(log.toFile());
      long start = System.nanoTime();
      Process child = builder.start();
      ColdRun run;
      try {
        run = watch(label, queue, count, child, start, log);
      } finally {
        // SIGTERM, as the platform stops a replica; a training run writes its archive or cache
        // as it exits, which takes longer than a plain exit.
        child.toHandle().destroy();
        if (!child.waitFor(label.equals("training") ? 600 : 60, TimeUnit.SECONDS)) {
          child.destroyForcibly();
          child.waitFor();
        }
      }
      if (label.equals("training") && child.exitValue() != 0 && child.exitValue() != 143) {
        throw new IOException(
            "the training run exited with " + child.exitValue() + "; its output: " + log);
      }
      return run;
    }

    private ColdRun watch(
        String label, String queue, int count, Process child, long start, Path log)
        throws IOException, InterruptedException {
      long[] marks = new long[MARKS.length];
      long[] cpu = new long[MARKS.length];
      // Thread groups' and the bench's CPU at the 1st and the 1,000th settled message.
      List<Map<String, Long>> threads = new ArrayList<>();
      long[] benchCpu = new long[2];
      int mark = 0;
      long lastThousandStart = 0;
      long lastThousandCpuStart = 0;
      long deadline = start + timeout.toNanos();
      while (true) {
        int settled = count - serviceBus.unsettledCount(queue);
        long now = System.nanoTime();
        while (mark < MARKS.length && settled >= MARKS[mark]) {
          cpu[mark] = cpuOf(child);
          if (mark < 2) {
            threads.add(threadsOf(child));
            benchCpu[mark] = BenchSupport.processCpuNanos();
          }
          marks[mark++] = now - start;
        }
        if (lastThousandStart == 0 && settled >= count - 1_000) {
          lastThousandCpuStart = cpuOf(child);
          lastThousandStart = now - start;
        }
        if (settled == count) {
          // A run shorter than 1,000 messages (a short training run) has no such profile.
          Map<String, Long> profile = new TreeMap<>();
          if (threads.size() >= 2) {
            threads
                .get(1)
                .forEach(
                    (group, ns) -> profile.put(group, ns - threads.get(0).getOrDefault(group, 0L)));
            profile.put("emulators", benchCpu[1] - benchCpu[0]);
          }
          return new ColdRun(
              marks,
              cpu,
              settled,
              now - start,
              lastThousandStart,
              cpuOf(child) - lastThousandCpuStart,
              profile);
        }
        if (now > deadline || !child.isAlive()) {
          throw new IOException(
              label
                  + ": "
                  + settled
                  + " of "
                  + count
                  + " settled when the child "
                  + (child.isAlive() ? "ran out of time" : "exited")
                  + "; its output: "
                  + log);
        }
        child.waitFor(2, TimeUnit.MILLISECONDS);
      }
    }

    private Map<String, Long> threadsOf(Process child) {
      try {
        return BenchSupport.threadCpuNanos(child.pid());
      } catch (IOException e) {
        return new TreeMap<>(); // the child has just exited: the run fails on that anyway
      }
    }

    private long cpuOf(Process child) {
      try {
        return BenchSupport.processCpuNanos(child.pid());
      } catch (IOException e) {
        return 0; // the child has just exited: the run fails on that anyway
      }
    }

    private Map<String, String> childEnv(String queue, int index) {
      Map<String, String> env = new LinkedHashMap<>();
      env.put("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
      env.put("SERVICEBUS_CONNECTION_STRING", serviceBus.connectionString());
      env.put("SERVICEBUS_QUEUE_NAME", queue);
      env.put("COSMOS_ENDPOINT", cosmos.endpoint());
      env.put("COSMOS_KEY", cosmos.key());
      env.put("COSMOS_DATABASE", DATABASE);
      env.put("COSMOS_CONTAINER", "orders-" + index);
      env.put("COSMOS_CREATE_CONTAINER", "true");
      env.put("HEALTH_PORT", "0");
      env.put("RELAY_ENABLED", "false");
      env.put("WORKER_SHUTDOWN_TIMEOUT", "PT20S");
      return env;
    }

    int deadLettered() {
      return queues.stream()
          .mapToInt(queue -> serviceBus.messageCount(queue + "/$deadletterqueue"))
          .sum();
    }
  }
}
