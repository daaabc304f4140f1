package io.idemworker.proof.bench;

import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import io.idemworker.Main;
import io.idemworker.proof.CrashFiles;
import io.idemworker.proof.producer.DemoScenario;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * What the benches share: sending a scenario's orders, the command line of a {@code run} child
 * process, and reading CPU time (this JVM's, a child's, the machine's).
 */
final class BenchSupport {
  /** Messages per send call: the preload is not what a bench measures. */
  private static final int SEND_BATCH = 100;

  private BenchSupport() {}

  /**
   * Sends the scenario's message for each id, in order, in batches of {@value #SEND_BATCH}.
   *
   * @throws RuntimeException whatever the sender throws; a partial send is not rolled back
   */
  static void sendInBatches(
      ServiceBusSenderClient sender, DemoScenario scenario, List<String> orderIds) {
    sendInBatches(sender, orderIds, scenario::message);
  }

  /**
   * Sends one message per order, built by {@code message}, in batches of {@value #SEND_BATCH}.
   *
   * @param sender the queue's sender
   * @param orderIds the orders, in sending order
   * @param message the message of an order (a new object each call)
   */
  static void sendInBatches(
      ServiceBusSenderClient sender,
      List<String> orderIds,
      Function<String, ServiceBusMessage> message) {
    List<ServiceBusMessage> batch = new ArrayList<>(SEND_BATCH);
    for (String orderId : orderIds) {
      batch.add(message.apply(orderId));
      if (batch.size() == SEND_BATCH) {
        sender.sendMessages(batch);
        batch.clear();
      }
    }
    if (!batch.isEmpty()) {
      sender.sendMessages(batch);
    }
  }

  /** CPU time this JVM has used so far; 0 on a JVM that does not report it. */
  static long processCpuNanos() {
    if (ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os) {
      return os.getProcessCpuTime();
    }
    return 0;
  }

  /** The {@code java} of this JVM: children run on the same JVM build as the bench. */
  static String javaExecutable() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  /**
   * The command line of a {@code run} child JVM as deployed: the Dockerfile's collector (unless
   * {@code jvmOptions} pick another, see {@link #collector}), the shipped {@code logback.xml} (one
   * outcome line per message) and this JVM's class path.
   *
   * @param heap the child's {@code -Xmx} value, e.g. {@code 512m}
   * @param jvmOptions extra JVM options, after the bench's own
   */
  static List<String> runCommand(String heap, List<String> jvmOptions) {
    List<String> command = new ArrayList<>();
    command.add(javaExecutable());
    command.add("-Xmx" + heap);
    command.addAll(CrashFiles.jvmOptions());
    command.addAll(collector(jvmOptions));
    command.add("-DCOSMOS.EMULATOR_SERVER_CERTIFICATE_VALIDATION_DISABLED=true");
    command.add("-DCOSMOS.DISABLE_IMDS_ACCESS=true");
    // The shipped logging configuration (the worker jar's) even where a logback-test.xml comes
    // first on the class path (the test build): the outcome lines are part of what a run costs.
    URL logback = BenchSupport.class.getResource("/logback.xml");
    if (logback != null) {
      command.add("-Dlogback.configurationFile=" + logback.toExternalForm());
    }
    command.addAll(jvmOptions);
    command.addAll(
        List.of("-cp", System.getProperty("java.class.path"), Main.class.getName(), "run"));
    return command;
  }

  /**
   * The child's garbage collector option: the deployed one (the Dockerfile's parallel collector)
   * unless {@code jvmOptions} pick a collector themselves, as two would stop the JVM from starting.
   */
  static List<String> collector(List<String> jvmOptions) {
    return jvmOptions.stream().anyMatch(o -> o.matches("-XX:\\+Use[A-Za-z0-9]+GC"))
        ? List.of()
        : List.of("-XX:+UseParallelGC");
  }

  /** User plus system CPU time of a process, from {@code /proc/<pid>/stat}. */
  static long processCpuNanos(long pid) throws IOException {
    return cpuNanos(Files.readString(Path.of("/proc", Long.toString(pid), "stat")));
  }

  /**
   * User plus system CPU time of a process's threads by what they do, from {@code
   * /proc/<pid>/task/*\/stat}: {@code compiler} (the JIT's {@code C1/C2 CompilerThread*}), {@code
   * gc} ({@code GC Thread*} and the collectors' other threads), {@code vm} (the {@code VM Thread}
   * and the JVM's periodic and service threads) and {@code application} (every other thread: the
   * SDKs', the worker's, the main thread, class loading and interpretation included). Threads that
   * end while they are read are skipped.
   */
  static Map<String, Long> threadCpuNanos(long pid) throws IOException {
    Map<String, Long> groups = new TreeMap<>();
    for (String group : List.of("application", "compiler", "gc", "vm")) {
      groups.put(group, 0L);
    }
    try (var tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
      for (Path task : (Iterable<Path>) tasks::iterator) {
        String stat;
        try {
          stat = Files.readString(task.resolve("stat"));
        } catch (IOException e) {
          continue;
        }
        String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
        groups.merge(threadGroup(name), cpuNanos(stat), Long::sum);
      }
    }
    return groups;
  }

  /** The group of a JVM thread by its (Linux, 15-character) name; see {@link #threadCpuNanos}. */
  static String threadGroup(String name) {
    if (name.startsWith("C1 CompilerThre") || name.startsWith("C2 CompilerThre")) {
      return "compiler";
    }
    if (name.startsWith("GC Thread")
        || name.startsWith("G1 ")
        || name.startsWith("VM Periodic")
        || name.equals("VM Thread")
        || name.startsWith("Service Thread")
        || name.startsWith("Monitor Deflati")
        || name.startsWith("Sweeper")
        || name.startsWith("Common-Cleaner")) {
      return name.startsWith("GC Thread") || name.startsWith("G1 ") ? "gc" : "vm";
    }
    return "application";
  }

  /**
   * User plus system CPU time of a process's JIT compiler threads ({@code C1 CompilerThread*},
   * {@code C2 CompilerThread*}), from {@code /proc/<pid>/task/*\/stat}; threads that end while they
   * are read are skipped.
   */
  static long compilerCpuNanos(long pid) throws IOException {
    long total = 0;
    try (var tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
      for (Path task : (Iterable<Path>) tasks::iterator) {
        String stat;
        try {
          stat = Files.readString(task.resolve("stat"));
        } catch (IOException e) {
          continue;
        }
        String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
        if (name.startsWith("C1 CompilerThre") || name.startsWith("C2 CompilerThre")) {
          total += cpuNanos(stat);
        }
      }
    }
    return total;
  }

  /**
   * User plus system time from the text of a {@code /proc/<pid>/stat} file, at 100 ticks per second
   * (the Linux USER_HZ on every mainstream architecture).
   *
   * @param stat the file's text
   * @return nanoseconds of CPU
   */
  static long cpuNanos(String stat) {
    // The command name (field 2) may contain spaces and parentheses: fields count from its end.
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).trim().split("\\s+");
    long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
    return ticks * 10_000_000L;
  }

  /**
   * CPU time every process of the machine has used so far (all cores), from the first line of
   * {@code /proc/stat}: everything but idle and I/O wait; 0 where that file cannot be read.
   */
  static long machineBusyNanos() {
    try {
      return machineBusyNanos(Files.readAllLines(Path.of("/proc/stat")).get(0));
    } catch (IOException | RuntimeException e) {
      return 0;
    }
  }

  /**
   * The busy time of a {@code /proc/stat} {@code cpu} line: user, nice, system, irq, softirq and
   * steal, at 100 ticks per second; idle and I/O wait are not busy.
   */
  static long machineBusyNanos(String cpuLine) {
    String[] f = cpuLine.trim().split("\\s+");
    if (!f[0].equals("cpu") || f.length < 9) {
      throw new IllegalArgumentException("not the cpu line of /proc/stat: " + cpuLine);
    }
    long busy = 0;
    for (int i : new int[] {1, 2, 3, 6, 7, 8}) {
      busy += Long.parseLong(f[i]);
    }
    return busy * 10_000_000L;
  }

  /**
   * Runs {@code jcmd <pid> command...} of this JDK and waits for it (at most 60 s).
   *
   * @throws IOException if it could not run, timed out or failed; the message has its output
   */
  static void jcmd(long pid, String... command) throws IOException, InterruptedException {
    List<String> args = new ArrayList<>();
    args.add(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString());
    CrashFiles.jvmOptions().forEach(option -> args.add("-J" + option));
    args.add(Long.toString(pid));
    args.addAll(List.of(command));
    runTool(args.toArray(String[]::new));
  }

  /**
   * Runs a command-line tool and waits for it (at most 60 s).
   *
   * @throws IOException if it could not run, timed out or failed; the message has its output
   */
  static void runTool(String... command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      p.destroyForcibly();
      throw new IOException(String.join(" ", command) + " failed: " + output.strip());
    }
  }

  /** The machine's 1- and 5-minute load averages, e.g. {@code 1.52/0.98}; {@code ?} off Linux. */
  static String loadAverage() {
    try {
      String[] parts = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
      return parts[0] + "/" + parts[1];
    } catch (IOException e) {
      return "?";
    }
  }
}
