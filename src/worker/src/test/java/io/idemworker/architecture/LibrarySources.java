package io.idemworker.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** The library modules' main files, as the tests that scan their texts read them. */
public final class LibrarySources {
  /** The library's modules, relative to the repository's root. */
  public static final List<String> MODULES =
      List.of(
          "src/core", "src/servicebus", "src/cosmos", "src/relay", "src/telemetry", "src/azure");

  /** The repository's root: the first directory above this one with a POM beside src/core. */
  public static final Path ROOT = root();

  private LibrarySources() {}

  /** Each library module's POM and every file under its {@code src/main}. */
  public static List<Path> files() {
    List<Path> files = new ArrayList<>();
    for (String module : MODULES) {
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

  /** The lines of {@code file}. */
  public static List<String> lines(Path file) {
    try {
      return Files.readAllLines(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
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
