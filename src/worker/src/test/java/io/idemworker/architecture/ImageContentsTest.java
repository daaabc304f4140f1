package io.idemworker.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * What the deployable image holds: the worker module's classes and its runtime dependencies, the
 * library modules among them (the Dockerfile copies exactly those), and no emulator, proof tool or
 * the emulator's certificate library. The runtime class path is the one Maven resolves for the
 * image's {@code lib/}, written by the build to {@code target/runtime-classpath.txt}.
 */
class ImageContentsTest {
  private static final Path TARGET =
      Path.of(System.getProperty("project.build.directory", "target"));

  @Test
  void runtimeClassPath_holdsCoreButNoEmulatorProofOrBouncyCastle() throws IOException {
    List<String> jars = runtimeJars();

    assertThat(jars).anyMatch(jar -> jar.startsWith("idemworker-core-"));
    for (String library : List.of("servicebus", "cosmos", "relay", "telemetry")) {
      assertThat(jars).anyMatch(jar -> jar.startsWith("idemworker-" + library + "-"));
    }
    assertThat(jars).anyMatch(jar -> jar.startsWith("azure-messaging-servicebus-"));
    assertThat(jars)
        .noneMatch(jar -> jar.startsWith("idemworker-emulators-"))
        .noneMatch(jar -> jar.startsWith("idemworker-proof-"))
        .noneMatch(jar -> jar.startsWith("bcpkix-") || jar.startsWith("bcprov-"))
        .noneMatch(jar -> jar.contains("-tests"));
  }

  @Test
  void workerClasses_holdNoEmulatorOrProofPackage() throws IOException {
    Path classes = TARGET.resolve("classes/io/idemworker");
    try (Stream<Path> files = Files.walk(classes)) {
      List<String> packages =
          files
              .filter(f -> f.toString().endsWith(".class"))
              .map(f -> classes.relativize(f.getParent()).toString())
              .distinct()
              .toList();

      assertThat(packages).contains("app", "orders");
      assertThat(packages).noneMatch(p -> p.startsWith("emulator") || p.startsWith("proof"));
    }
  }

  private static List<String> runtimeJars() throws IOException {
    String classPath = Files.readString(TARGET.resolve("runtime-classpath.txt")).strip();
    return Arrays.stream(classPath.split(java.io.File.pathSeparator))
        .map(entry -> Path.of(entry).getFileName().toString())
        .toList();
  }
}
