package io.idemworker.proof.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.idemworker.proof.ProofMain;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestFactory;

/**
 * The README's first command, {@code idemworker demo} with its defaults, run again and again in
 * fresh JVMs, alone and beside a CPU-bound load: every run must pass. A check that depends on the
 * interleaving (which attempt finished, how long a step took) fails here sooner or later; the
 * demo's checks must state what no interleaving can change.
 *
 * <p>Tagged {@code demo-repeat}: not in the default {@code mvn verify}; run it with {@code mvn -B
 * -Pdemo-repeat -pl src/proof -am test} ({@code -Ddemo.repeat.runs=N} runs of each kind, 5 by
 * default; {@code -Ddemo.repeat.loadThreads=N} busy threads for the load, one per core by default).
 * Each run is a child process bounded by {@value #RUN_LIMIT_MINUTES} minutes.
 */
@Tag("demo-repeat")
class DemoRepeatTest {
  private static final int RUNS = Integer.getInteger("demo.repeat.runs", 5);
  private static final int LOAD_THREADS =
      Integer.getInteger("demo.repeat.loadThreads", Runtime.getRuntime().availableProcessors());
  private static final long RUN_LIMIT_MINUTES = 10;

  @TestFactory
  Stream<DynamicTest> demo_passesRunAfterRun() {
    return IntStream.rangeClosed(1, RUNS)
        .mapToObj(run -> DynamicTest.dynamicTest("run " + run, () -> runDemo("run " + run, 0)));
  }

  @TestFactory
  Stream<DynamicTest> demo_passesBesideACpuBoundLoad() {
    return IntStream.rangeClosed(1, RUNS)
        .mapToObj(
            run ->
                DynamicTest.dynamicTest(
                    "run " + run + " beside " + LOAD_THREADS + " busy threads",
                    () -> runDemo("loaded run " + run, LOAD_THREADS)));
  }

  /** Runs the demo in a child JVM, with {@code busyThreads} spinning beside it, and checks it. */
  private static void runDemo(String name, int busyThreads) throws Exception {
    Path output = Files.createTempFile("idemworker-demo-", ".log");
    AtomicBoolean stop = new AtomicBoolean();
    List<Thread> load = new ArrayList<>();
    for (int i = 0; i < busyThreads; i++) {
      Thread thread = new Thread(() -> spin(stop), "cpu-load-" + i);
      thread.setDaemon(true);
      thread.start();
      load.add(thread);
    }
    long started = System.nanoTime();
    Process demo =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                ProofMain.class.getName(),
                "demo")
            .redirectErrorStream(true)
            .redirectOutput(output.toFile())
            .start();
    try {
      boolean exited = demo.waitFor(RUN_LIMIT_MINUTES, TimeUnit.MINUTES);
      double seconds = (System.nanoTime() - started) / 1e9;
      double loadAverage = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
      String text = Files.readString(output, StandardCharsets.UTF_8);
      System.out.printf(
          Locale.ROOT,
          "%s: exit %s after %.1f s, load average %.2f; %s%n",
          name,
          exited ? Integer.toString(demo.exitValue()) : "none (killed)",
          seconds,
          loadAverage,
          figures(text));
      assertThat(exited)
          .as("%s ended within %d minutes; its output:%n%s", name, RUN_LIMIT_MINUTES, text)
          .isTrue();
      assertThat(demo.exitValue())
          .as("%s exit code; failed checks:%n%s", name, failures(text))
          .isZero();
      assertThat(text)
          .contains("lost = 0, double effects = 0, wrong dead-letters = 0")
          .contains("PASS: every message took effect exactly once")
          .doesNotContain("  FAIL  ");
    } finally {
      stop.set(true);
      demo.destroyForcibly();
      for (Thread thread : load) {
        thread.join();
      }
      Files.deleteIfExists(output);
    }
  }

  /** CPU-bound work until {@code stop}: hashes a buffer over and over. */
  private static void spin(AtomicBoolean stop) {
    MessageDigest sha256;
    try {
      sha256 = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
    byte[] block = new byte[64 * 1024];
    while (!stop.get()) {
      block[0] = sha256.digest(block)[0];
    }
  }

  /** The lines that vary from run to run and are printed, not checked: calls and claims. */
  private static String figures(String text) {
    return text.lines()
        .filter(line -> line.contains("provider calls per request:"))
        .map(line -> line.substring(line.indexOf("(provider calls per request:")).trim())
        .findFirst()
        .orElse("no payments line");
  }

  private static String failures(String text) {
    List<String> lines = text.lines().toList();
    List<String> failed = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).contains("FAIL")) {
        failed.add(lines.get(i));
        if (i + 1 < lines.size()) {
          failed.add(lines.get(i + 1));
        }
      }
    }
    // No FAIL line (a crash, a timeout): the end of the output says what happened.
    return failed.isEmpty()
        ? String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()))
        : String.join("\n", failed);
  }
}
