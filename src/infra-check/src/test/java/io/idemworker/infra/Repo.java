package io.idemworker.infra;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Files of the repository, found from the Maven base directory. */
final class Repo {
  static final Path ROOT = findRoot();

  private Repo() {}

  static String read(String relative) {
    try {
      return Files.readString(ROOT.resolve(relative));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static Bicep.Template bicep(String relative) {
    return Bicep.parse(read(relative));
  }

  private static Path findRoot() {
    Path dir = Path.of("").toAbsolutePath();
    for (Path p = dir; p != null; p = p.getParent()) {
      if (Files.isRegularFile(p.resolve("pom.xml")) && Files.isDirectory(p.resolve("infra"))) {
        return p;
      }
    }
    throw new IllegalStateException("no repository root (pom.xml next to infra/) above " + dir);
  }
}
