package io.idemworker.proof.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The image's copy of the worker's jars: the Azure SDK's signed jars lose their signature files and
 * nothing else, so the class-data archive can hold their classes. Needs the worker jar and its
 * lib/, so it runs after {@code package} (as in {@code mvn verify}).
 */
class ImageLayoutTest {
  private static final Path WORKER_JAR = Path.of("src/worker/target/idemworker-worker.jar");

  @Test
  void copy_unsignsEverySignedJarAndKeepsEveryOtherEntryByteForByte(@TempDir Path dir)
      throws IOException {
    Path lib = WORKER_JAR.toAbsolutePath().getParent().resolve("lib");
    Path signed = signedJar(lib);

    Path jar = ImageLayout.copy(WORKER_JAR, dir, true);

    assertThat(jar).isRegularFile().hasSameBinaryContentAs(WORKER_JAR);
    Path copy = dir.resolve("lib").resolve(signed.getFileName());
    assertThat(ImageLayout.isSigned(copy)).isFalse();
    Map<String, byte[]> before = entries(signed);
    Map<String, byte[]> after = entries(copy);
    assertThat(before.keySet())
        .filteredOn(name -> !after.containsKey(name))
        .isNotEmpty()
        .allMatch(name -> name.matches("META-INF/[^/]+\\.(SF|RSA|DSA|EC)"));
    assertThat(after.keySet()).allMatch(before::containsKey);
    after.forEach((name, bytes) -> assertThat(bytes).as(name).isEqualTo(before.get(name)));
    try (var copies = Files.list(dir.resolve("lib"))) {
      assertThat(copies.toList()).hasSameSizeAs(Files.list(lib).toList());
    }
  }

  @Test
  void copy_withoutUnsigning_keepsTheSignatures(@TempDir Path dir) throws IOException {
    Path signed = signedJar(WORKER_JAR.toAbsolutePath().getParent().resolve("lib"));

    ImageLayout.copy(WORKER_JAR, dir, false);

    assertThat(ImageLayout.isSigned(dir.resolve("lib").resolve(signed.getFileName()))).isTrue();
  }

  @Test
  void unsign_answersHowManyJarsItChangedAndIsANoOpTheSecondTime(@TempDir Path dir)
      throws IOException {
    ImageLayout.copy(WORKER_JAR, dir, false);
    Path lib = dir.resolve("lib");

    int first = ImageLayout.unsign(lib);
    int second = ImageLayout.unsign(lib);

    assertThat(first).isPositive();
    assertThat(second).isZero();
  }

  /** The SDK's jars are signed; if none were, this test would say nothing. */
  private static Path signedJar(Path lib) throws IOException {
    try (var jars = Files.list(lib)) {
      List<Path> all = jars.filter(p -> p.toString().endsWith(".jar")).sorted().toList();
      for (Path jar : all) {
        if (jar.getFileName().toString().startsWith("azure-cosmos-")) {
          assertThat(ImageLayout.isSigned(jar)).as(jar + " is signed as published").isTrue();
          return jar;
        }
      }
    }
    throw new AssertionError("no azure-cosmos jar in " + lib);
  }

  private static Map<String, byte[]> entries(Path jar) throws IOException {
    Map<String, byte[]> entries = new HashMap<>();
    try (ZipFile zip = new ZipFile(jar.toFile())) {
      for (ZipEntry entry : zip.stream().toList()) {
        try (InputStream in = zip.getInputStream(entry)) {
          entries.put(entry.getName(), in.readAllBytes());
        }
      }
    }
    return entries;
  }
}
