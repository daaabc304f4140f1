package io.idemworker.release;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The build as the root POM declares it, read from the repository (Surefire runs with the
 * repository's root as its working directory, the parent POM says so).
 */
final class Reactor {
  static final Path ROOT = Path.of("").toAbsolutePath();
  static final Pom PARENT = Pom.read(ROOT.resolve("pom.xml"));
  static final Pom BOM = Pom.read(ROOT.resolve("src/bom/pom.xml"));

  private Reactor() {}

  /** Every module of the root POM, in its order. */
  static List<Pom> modules() {
    assertThat(ROOT.resolve("src/bom/pom.xml")).as("the repository's root").exists();
    return PARENT.all("modules", "module").stream()
        .map(m -> Pom.read(ROOT.resolve(m.getTextContent().strip()).resolve("pom.xml")))
        .toList();
  }

  /** A module of the idemworker parent, not an application: its artifacts go to Maven Central. */
  static boolean published(Pom module) {
    return module == BOM
        || module.artifactId().equals(BOM.artifactId())
        || (module.text("parent", "artifactId").equals(PARENT.artifactId())
            && !module.property("idemworker.application").equals("true"));
  }

  /** Published modules that make a jar: the library's modules and the test kit. */
  static List<Pom> publishedJars() {
    return modules().stream().filter(Reactor::published).filter(m -> isJar(m)).toList();
  }

  static boolean isJar(Pom module) {
    return module.packaging().equals("jar");
  }

  /** Whether the module attaches a test-jar (the core's store contract and in-memory store). */
  static boolean makesTestJar(Pom module) {
    try {
      return Files.readString(module.file).contains("<goal>test-jar</goal>");
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
