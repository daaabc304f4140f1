package io.idemworker.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.idemworker.architecture.LibrarySources;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
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
  @Test
  void noLibraryMainFile_namesAWorkerVariable() {
    List<String> leaks = new ArrayList<>();
    for (Path file : LibrarySources.files()) {
      leaks.addAll(found(file));
    }
    assertThat(leaks).as("library texts naming the worker's environment variables").isEmpty();
  }

  @Test
  void theScan_findsTheWorkersOwnVariables() {
    Path config =
        LibrarySources.ROOT.resolve("src/worker/src/main/java/io/idemworker/app/WorkerConfig.java");

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
    List<String> lines = LibrarySources.lines(file);
    for (String name : variables()) {
      Pattern word = Pattern.compile("(?<![A-Za-z0-9_])" + name + "(?![A-Za-z0-9_])");
      for (int i = 0; i < lines.size(); i++) {
        if (word.matcher(lines.get(i)).find()) {
          leaks.add(LibrarySources.ROOT.relativize(file) + ":" + (i + 1) + ": " + name);
        }
      }
    }
    return leaks;
  }
}
