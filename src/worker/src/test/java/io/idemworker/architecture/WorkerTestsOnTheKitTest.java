package io.idemworker.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Keeps this module's tests on the test kit a user gets: they take their emulators from
 * {@code @AzureEmulators} (and SDK clients of them from {@code
 * io.idemworker.testing.EmulatorClients}), not from the JVM-wide static helper {@code
 * io.idemworker.testing.Emulators}, which stays only for {@code src/proof}'s tests.
 */
class WorkerTestsOnTheKitTest {
  private static final Path TESTS = Path.of("src/worker/src/test/java");
  private static final Path HELPER = TESTS.resolve("io/idemworker/testing/Emulators.java");

  /** An import of the static helper, or a call of it from its own package. */
  private static final Pattern STATIC_HELPER =
      Pattern.compile(
          "import io\\.idemworker\\.testing\\.Emulators;"
              + "|(?<![\\w.])Emulators\\.(?:serviceBus|cosmos|cosmosClient|orders|newQueue"
              + "|serviceBusClient|sender|deadLetters)\\(");

  @Test
  void workerTests_takeTheirEmulatorsFromTheKit() {
    assertThat(HELPER).as("run from the repository's root").isRegularFile();
    List<String> users;
    try (Stream<Path> files = Files.walk(TESTS)) {
      users =
          files
              .filter(f -> f.toString().endsWith(".java") && !f.equals(HELPER))
              .filter(f -> STATIC_HELPER.matcher(read(f)).find())
              .map(Path::toString)
              .sorted()
              .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    assertThat(users)
        .as("tests using the static io.idemworker.testing.Emulators; use @AzureEmulators")
        .isEmpty();
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
