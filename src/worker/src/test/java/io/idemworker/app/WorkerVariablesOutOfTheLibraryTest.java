package io.idemworker.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * No library module names an environment variable the worker reads ({@link WorkerConfig#VARIABLES}
 * and {@link ApiConfig#VARIABLES}), in a message, an exception or Javadoc: the library is
 * configured in code and names its builder methods and settings; the worker words the library's
 * findings in its variables' names ({@link StartupRefusals}). By each name the worker reads, so a
 * new variable is covered as soon as the worker reads it; {@code LibraryFreeOfOrderDomainTest}
 * holds their prefixes.
 */
class WorkerVariablesOutOfTheLibraryTest {
  private static final List<String> LIBRARY_MODULES =
      List.of(
          "src/core", "src/servicebus", "src/cosmos", "src/relay", "src/telemetry", "src/azure");

  @Test
  void noLibraryMainFile_namesAWorkerVariable() {
    List<String> leaks = new ArrayList<>();
    for (Path file : files(LIBRARY_MODULES)) {
      leaks.addAll(found(file));
    }
    assertThat(leaks).as("library texts naming the worker's environment variables").isEmpty();
  }

  @Test
  void theScan_findsTheWorkersOwnVariables() {
    Path config = ROOT.resolve("src/worker/src/main/java/io/idemworker/app/WorkerConfig.java");

    assertThat(found(config)).hasSizeGreaterThanOrEqualTo(WorkerConfig.VARIABLES.size());
    assertThat(variables()).contains("SERVICEBUS_SESSIONS", "COSMOS_KEY", "HEALTH_PORT", "API_KEY");
  }

  private static List<String> variables() {
    List<String> names = new ArrayList<>();
    WorkerConfig.VARIABLES.forEach(v -> names.add(v.name()));
    ApiConfig.VARIABLES.forEach(v -> names.add(v.name()));
    return names;
  }

  private static List<String> found(Path file) {
    List<String> leaks = new ArrayList<>();
    List<String> lines;
    try {
      lines = Files.readAllLines(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    for (String name : variables()) {
      Pattern word = Pattern.compile("(?<![A-Za-z0-9_])" + name + "(?![A-Za-z0-9_])");
      for (int i = 0; i < lines.size(); i++) {
        if (word.matcher(lines.get(i)).find()) {
          leaks.add(ROOT.relativize(file) + ":" + (i + 1) + ": " + name);
        }
      }
    }
    return leaks;
  }

  private static final Path ROOT = root();

  private static List<Path> files(List<String> modules) {
    List<Path> files = new ArrayList<>();
    for (String module : modules) {
      Path dir = ROOT.resolve(module);
      assertThat(dir.resolve("pom.xml")).isRegularFile();
      files.add(dir.resolve("pom.xml"));
      try (Stream<Path> walk = Files.walk(dir.resolve("src/main"))) {
        walk.filter(Files::isRegularFile).forEach(files::add);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    assertThat(files).hasSizeGreaterThan(50);
    return files;
  }

  private static Path root() {
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      if (Files.isRegularFile(p.resolve("pom.xml")) && Files.isDirectory(p.resolve("src/core"))) {
        return p;
      }
    }
    throw new IllegalStateException("no repository root (pom.xml next to src/core) above here");
  }
}
