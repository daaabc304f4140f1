package io.idemworker.proof.bench;

import io.idemworker.proof.CrashFiles;
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
 * <p>The static dump, not {@code -XX:ArchiveClassesAtExit}. The list's lambda proxies ({@code
 * @lambda-proxy} lines) go into the archive too, so a replica does not spin its lambdas' classes at
 * run time. With the Azure SDK's jars signed (their classes left out of the archive, see {@link
 * ImageLayout}) the dump of those lines crashed JDK 17.0.15 in {@code
 * SystemDictionaryShared::adjust_lambda_proxy_class_dictionary}; with them unsigned it does not. A
 * dump that fails is not retried without them: the whole step is tried once more if a JVM crashed
 * ({@link io.idemworker.proof.CrashFiles#retryOnceOnCrash}), and otherwise fails, so that an image
 * is never built without the archive it was meant to have. Every JVM started here writes its crash
 * file under {@code target/} ({@link io.idemworker.proof.CrashFiles#jvmOptions()}).
 */
final class ClassDataArchive {
  private ClassDataArchive() {}

  /**
   * Dumps the archive.
   *
   * @param java the JVM's {@code java} executable, which the archive will fit
   * @param jvmOptions the options the archive will be used with (the collector must match)
   * @param jar the jar the archive is for, started with {@code -jar}
   * @param classList the training run's class list
   * @param archive where the archive goes
   * @throws IOException when the dump fails, or a JVM started with {@code -Xshare:on} and the
   *     archive does not start; the message holds the end of its output
   */
  static void dump(Path java, List<String> jvmOptions, Path jar, Path classList, Path archive)
      throws IOException, InterruptedException {
    dumpList(java, jvmOptions, jar, Files.readAllLines(classList, StandardCharsets.UTF_8), archive);
  }

  /**
   * Checks that an AOT cache (JDK 25) maps: a JVM started with {@code -XX:AOTMode=on} refuses to
   * start unless it can use the cache.
   *
   * @param java the JVM the cache was made with
   * @param jvmOptions the image's options
   * @param extraOptions further options the cache was trained with
   * @param jar the jar the cache is for
   * @param cache the cache
   * @throws IOException when that JVM does not start; the message holds the end of its output
   */
  static void checkAotCache(
      Path java, List<String> jvmOptions, List<String> extraOptions, Path jar, Path cache)
      throws IOException, InterruptedException {
    List<String> check = new ArrayList<>();
    check.add(java.toString());
    check.addAll(jvmOptions);
    check.addAll(extraOptions);
    check.addAll(CrashFiles.jvmOptions());
    check.addAll(
        List.of("-XX:AOTMode=on", "-XX:AOTCache=" + cache, "-jar", jar.toString(), "--help"));
    run(check, "a JVM started with the AOT cache (-XX:AOTMode=on)");
  }

  private static void dumpList(
      Path java, List<String> jvmOptions, Path jar, List<String> lines, Path archive)
      throws IOException, InterruptedException {
    Path classes = Files.createTempFile("idemworker-cds-", ".classlist");
    Files.write(classes, lines);
    Files.deleteIfExists(archive);
    List<String> command = new ArrayList<>();
    command.add(java.toString());
    command.addAll(jvmOptions);
    command.addAll(CrashFiles.jvmOptions());
    command.addAll(
        List.of(
            "-Xshare:dump",
            "-XX:SharedClassListFile=" + classes,
            "-XX:SharedArchiveFile=" + archive,
            "-jar",
            jar.toString()));
    try {
      run(command, "the class-data dump");
    } finally {
      Files.deleteIfExists(classes);
    }
    if (!Files.isRegularFile(archive) || Files.size(archive) == 0) {
      throw new IOException("the class-data dump wrote no archive at " + archive);
    }
    // -Xshare:on refuses to start unless the archive maps: it fits this JVM and this jar.
    List<String> check = new ArrayList<>(command.subList(0, 1 + jvmOptions.size()));
    check.addAll(CrashFiles.jvmOptions());
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
