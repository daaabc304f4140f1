package io.idemworker.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The starter depends on the library, never the reverse: no library module's POM names Spring, and
 * none names the starter.
 */
class LibraryWithoutSpringTest {

  @Test
  void noLibraryModule_dependsOnSpringOrTheStarter() throws IOException {
    List<Path> poms;
    try (Stream<Path> modules = Files.list(Path.of("src"))) {
      poms =
          modules
              .filter(module -> !module.getFileName().toString().equals("spring-boot-starter"))
              .map(module -> module.resolve("pom.xml"))
              .filter(Files::exists)
              .toList();
    }

    assertThat(poms).hasSizeGreaterThan(5);
    for (Path pom : poms) {
      String text = Files.readString(pom);
      assertThat(text).as(pom.toString()).doesNotContain("org.springframework");
      // The BOM pins every module's version, the starter's too, and depends on none of them.
      if (!pom.getParent().getFileName().toString().equals("bom")) {
        assertThat(text).as(pom.toString()).doesNotContain("idemworker-spring-boot-starter");
      }
    }
  }
}
