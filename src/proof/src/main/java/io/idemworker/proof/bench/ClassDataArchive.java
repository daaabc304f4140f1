package io.idemworker.proof.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * An application class-data archive, made the way the image build makes it: a training run writes
 * the list of classes it loaded ({@code -XX:DumpLoadedClassList}), then {@code -Xshare:dump} maps
 * them into an archive for exactly that class path. A JVM started with {@code
 * -XX:SharedArchiveFile} maps the classes instead of loading, verifying and linking them.
 *
 * <p>The static dump, not {@code -XX:ArchiveClassesAtExit}, and without the list's lambda proxies
 * ({@code @lambda-proxy} lines): both crashed this machine's JDK 17.0.15 in {@code
 * SystemDictionaryShared::adjust_lambda_proxy_class_dictionary}. Lambdas are then spun at run time
 * as without an archive; every class is still mapped.
 */
final class ClassDataArchive {
  private ClassDataArchive() {}

  /**
   * Dumps the archive.
   *
   * @param jvmOptions the options the archive will be used with (the collector must match)
   * @param jar the jar the archive is for, started with {@code -jar}
   * @param classList the training run's class list
   * @param archive where the archive goes
   * @throws IOException when the dump fails, or a JVM started with {@code -Xshare:on} and the
   *     archive does not start; the message holds the end of its output
   */
  static void dump(List<String> jvmOptions, Path jar, Path classList, Path archive)
      throws IOException, InterruptedException {
    Path classes = Files.createTempFile("idemworker-cds-", ".classlist");
    try (var lines = Files.lines(classList, StandardCharsets.UTF_8)) {
      Files.write(classes, lines.filter(line -> !line.startsWith("@lambda-proxy")).toList());
    }
    List<String> command = new ArrayList<>();
    command.add(BenchSupport.javaExecutable());
    command.addAll(jvmOptions);
    command.addAll(
        List.of(
            "-Xshare:dump",
            "-XX:SharedClassListFile=" + classes,
            "-XX:SharedArchiveFile=" + archive,
            "-jar",
            jar.toString()));
    run(command, "the class-data dump");
    if (!Files.isRegularFile(archive) || Files.size(archive) == 0) {
      throw new IOException("the class-data dump wrote no archive at " + archive);
    }
    // -Xshare:on refuses to start unless the archive maps: it fits this JVM and this jar.
    List<String> check = new ArrayList<>(command.subList(0, 1 + jvmOptions.size()));
    check.addAll(
        List.of(
            "-Xshare:on", "-XX:SharedArchiveFile=" + archive, "-jar", jar.toString(), "--help"));
    run(check, "a JVM started with the archive (-Xshare:on)");
  }

  private static void run(List<String> command, String what)
      throws IOException, InterruptedException {
    Path log = Files.createTempFile("idemworker-cds-", ".log");
    Process process =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    boolean done = process.waitFor(5, TimeUnit.MINUTES);
    if (!done || process.exitValue() != 0) {
      process.destroyForcibly();
      List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
      throw new IOException(
          what
              + " failed: "
              + String.join(" | ", lines.subList(Math.max(0, lines.size() - 5), lines.size())));
    }
  }
}
