package io.idemworker.proof;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Where a JVM that a bench, a check or a build step starts writes its crash file ({@code
 * hs_err_pid*.log}) and its compiler replay file: under a {@code target/} directory, never the
 * working directory (the repository's root, where the tests and the benches run). And a step whose
 * JVM crashed is tried once more, then fails with the start of the crash file.
 */
public final class CrashFiles {
  /** How much of a crash file a failure quotes: its header names the signal and the frame. */
  static final int QUOTED_LINES = 20;

  private CrashFiles() {}

  /**
   * The directory crash files go to: the module's build directory under the test build (Surefire
   * sets {@code project.build.directory}), otherwise {@code target/} under the working directory.
   *
   * @return the absolute directory, which exists
   */
  public static Path directory() {
    String build = System.getProperty("project.build.directory");
    Path dir = (build != null ? Path.of(build) : Path.of("target")).toAbsolutePath();
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("could not create " + dir + " for crash files", e);
    }
    return dir;
  }

  /**
   * The options that send a started JVM's crash file ({@code -XX:ErrorFile}) and compiler replay
   * file ({@code -XX:ReplayDataFile}) to {@link #directory()}.
   *
   * @return options for the {@code java} command line
   */
  public static List<String> jvmOptions() {
    Path dir = directory();
    return List.of(
        "-XX:ErrorFile=" + dir.resolve("hs_err_pid%p.log"),
        "-XX:ReplayDataFile=" + dir.resolve("replay_pid%p.log"));
  }

  /**
   * The crash files in {@link #directory()} now.
   *
   * @return the crash files, possibly none
   */
  public static Set<Path> present() {
    try (Stream<Path> files = Files.list(directory())) {
      Set<Path> crashes = new LinkedHashSet<>();
      files
          .filter(file -> file.getFileName().toString().matches("hs_err_pid[0-9]+\\.log"))
          .forEach(crashes::add);
      return crashes;
    } catch (IOException e) {
      return Set.of();
    }
  }

  /** The crash files that are in {@link #directory()} now and were not in {@code before}. */
  private static List<Path> newSince(Set<Path> before) {
    List<Path> crashes = new ArrayList<>(present());
    crashes.removeAll(before);
    crashes.sort(Comparator.comparing(Path::toString));
    return crashes;
  }

  /**
   * The first lines of a crash file, each indented, for a failure message.
   *
   * @param crash the crash file
   * @return up to {@value #QUOTED_LINES} lines, or why they could not be read
   */
  public static String firstLines(Path crash) {
    try (Stream<String> lines = Files.lines(crash, StandardCharsets.ISO_8859_1)) {
      StringBuilder text = new StringBuilder();
      lines.limit(QUOTED_LINES).forEach(line -> text.append("    ").append(line).append('\n'));
      return text.toString();
    } catch (IOException | UncheckedIOException e) {
      return "    (could not read it: " + e.getMessage() + ")\n";
    }
  }

  /** A step that starts one JVM or more, e.g. a training run and an archive's dump. */
  @FunctionalInterface
  public interface Step<T> {
    /**
     * Runs the step once.
     *
     * @return its result
     * @throws IOException when it failed, e.g. a JVM it started exited non-zero
     */
    T run() throws IOException, InterruptedException;
  }

  /**
   * Runs {@code step}; if it fails and a JVM crashed meanwhile (a new crash file in {@link
   * #directory()}), runs it once more. A failure without a crash is not retried.
   *
   * @param what the step's name in messages, e.g. {@code "the class-data archive"}
   * @param out where the retry is announced
   * @param step the step
   * @return the step's result
   * @throws IOException the step's failure; after a second crash, one that names the crash file and
   *     quotes its first lines
   */
  public static <T> T retryOnceOnCrash(String what, PrintStream out, Step<T> step)
      throws IOException, InterruptedException {
    Set<Path> first = present();
    try {
      return step.run();
    } catch (IOException failure) {
      List<Path> crashes = newSince(first);
      if (crashes.isEmpty()) {
        throw failure;
      }
      out.printf(
          "%s: a JVM crashed (%s); trying once more. The crash file begins:%n%s",
          what, crashes.get(0), firstLines(crashes.get(0)));
    }
    Set<Path> second = present();
    try {
      return step.run();
    } catch (IOException failure) {
      List<Path> crashes = newSince(second);
      if (crashes.isEmpty()) {
        throw failure;
      }
      Path crash = crashes.get(0);
      throw new IOException(
          what
              + ": a JVM crashed again on the second try, so the step fails: "
              + failure.getMessage()
              + "\n  the crash file "
              + crash
              + " begins:\n"
              + firstLines(crash),
          failure);
    }
  }
}
