package io.idemworker.proof.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.offset;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The harness of {@code bench cold} and the image build's class-data step, with small numbers: the
 * archive it writes must be one a JVM maps with {@code -Xshare:on}. Needs the worker jar, so it
 * runs after {@code package} (as in {@code mvn verify}).
 */
class ColdStartBenchTest {
  private static final Path WORKER_JAR = Path.of("src/worker/target/idemworker-worker.jar");

  @Tag("e2e")
  @Test
  @Timeout(value = 300, unit = TimeUnit.SECONDS) // a training run and a dump of ~9,000 classes
  void writeArchive_unsignsTheLibsTrainsAndWritesAnArchiveTheJvmMaps(@TempDir Path dir)
      throws IOException {
    assertThat(WORKER_JAR).as("the worker jar (mvn package builds it)").isRegularFile();
    // The step unsigns the jars beside the worker jar in place, as in the image's /app: a copy.
    Path app = Files.createDirectories(dir.resolve("app"));
    Path jar = ImageLayout.copy(WORKER_JAR, app, false);
    Path archive = dir.resolve("worker.jsa");
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();

    int exit =
        new CommandLine(new ColdStartBench(new PrintStream(bytes, true, StandardCharsets.UTF_8)))
            .execute(
                "--write-archive",
                archive.toString(),
                "--worker-jar",
                jar.toString(),
                "--training-orders",
                "100",
                "--timeout",
                "PT120S");

    String output = bytes.toString(StandardCharsets.UTF_8);
    assertThat(exit).as(output).isZero();
    assertThat(archive).isRegularFile();
    assertThat(output)
        .containsPattern("signatures removed from [1-9]\\d* jars in lib/")
        .containsPattern("a training run of \\d+\\.\\d s loaded \\d{4,} classes")
        .contains("with its lambda proxies")
        .doesNotContain("PROBLEM");
    try (var libs = Files.list(app.resolve("lib"))) {
      for (Path lib : libs.toList()) {
        assertThat(ImageLayout.isSigned(lib)).as(lib.toString()).isFalse();
      }
    }
  }

  @Test
  void anArchiveTheJvmCannotMap_failsTheStep(@TempDir Path dir) throws IOException {
    Path classList = Files.writeString(dir.resolve("empty.classlist"), "");
    Path notAJar = Files.writeString(dir.resolve("not-a.jar"), "plain text");

    assertThatThrownBy(
            () ->
                ClassDataArchive.dump(
                    Path.of(BenchSupport.javaExecutable()),
                    ImageJvm.options(Files.readString(Path.of("Dockerfile")), "1g"),
                    notAJar,
                    classList,
                    dir.resolve("x.jsa")))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("the class-data dump failed");
  }

  @Test
  void imageOptions_areTheWorkerStagesEntrypointWithoutItsArchiveAndWithAContainersMemory() {
    String dockerfile =
        """
        FROM x AS payments-double
        ENTRYPOINT ["java", "-XX:MaxRAMPercentage=75", "-jar", "/app/idemworker.jar"]
        FROM y AS runtime
        ENTRYPOINT ["java", "-XX:MaxRAMPercentage=75", "-XX:+UseParallelGC", \
        "-XX:SharedArchiveFile=/app/idemworker.jsa", "-jar", "/app/idemworker.jar"]
        CMD ["run"]
        """;

    assertThat(ImageJvm.options(dockerfile, "2g"))
        .containsExactly("-XX:MaxRAMPercentage=75", "-XX:+UseParallelGC", "-XX:MaxRAM=2g");
  }

  @Test
  void theRealDockerfile_givesTheWorkersOptions() throws IOException {
    assertThat(ImageJvm.options(Files.readString(Path.of("Dockerfile")), "2g"))
        .contains("-XX:+UseParallelGC", "-XX:MaxRAM=2g")
        .noneMatch(option -> option.startsWith("-XX:SharedArchiveFile"));
  }

  @Test
  void aDockerfileWithoutAJavaEntrypoint_isRefused() {
    assertThatThrownBy(() -> ImageJvm.options("FROM x\nCMD [\"run\"]\n", "2g"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("ENTRYPOINT");
  }

  @Test
  void outOfRangeOptions_areRefused() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();

    int exit =
        new CommandLine(new ColdStartBench(new PrintStream(bytes, true, StandardCharsets.UTF_8)))
            .execute("--orders", "10");

    assertThat(exit).isEqualTo(2);
  }

  @Test
  void anArchiveAndACacheAtOnce_areRefused(@TempDir Path dir) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();

    int exit =
        new CommandLine(new ColdStartBench(new PrintStream(bytes, true, StandardCharsets.UTF_8)))
            .execute(
                "--write-archive",
                dir.resolve("a.jsa").toString(),
                "--write-aot-cache",
                dir.resolve("a.aot").toString());

    assertThat(exit).isEqualTo(2);
  }

  @Test
  void theImagesOptions_leaveOutItsAotCacheToo() {
    String dockerfile =
        """
        FROM eclipse-temurin:25-jre AS runtime
        ENTRYPOINT ["java", "-XX:+UseParallelGC", "-XX:AOTCache=/app/idemworker.aot", \
        "-jar", "/app/idemworker.jar"]
        """;

    assertThat(ImageJvm.options(dockerfile, "1g"))
        .containsExactly("-XX:+UseParallelGC", "-XX:MaxRAM=1g");
  }

  @Test
  void threadNames_fallInTheirGroups() {
    assertThat(BenchSupport.threadGroup("C1 CompilerThre")).isEqualTo("compiler");
    assertThat(BenchSupport.threadGroup("C2 CompilerThre")).isEqualTo("compiler");
    assertThat(BenchSupport.threadGroup("GC Thread#1")).isEqualTo("gc");
    assertThat(BenchSupport.threadGroup("VM Thread")).isEqualTo("vm");
    assertThat(BenchSupport.threadGroup("VM Periodic Tas")).isEqualTo("vm");
    assertThat(BenchSupport.threadGroup("boundedElastic-")).isEqualTo("application");
    assertThat(BenchSupport.threadGroup("java")).isEqualTo("application");
  }

  @Test
  void aRunsThreadProfile_isMeasuredInThisJvm() throws IOException {
    assertThat(BenchSupport.threadCpuNanos(ProcessHandle.current().pid()))
        .containsOnlyKeys("application", "compiler", "gc", "vm")
        .allSatisfy((group, ns) -> assertThat(ns).isNotNegative());
  }

  @Test
  void median_ofOddAndEvenCounts() {
    assertThat(ColdStartBench.median(new double[] {3, 1, 2})).isEqualTo(2);
    assertThat(ColdStartBench.median(new double[] {4, 1, 2, 3})).isEqualTo(2.5);
  }

  @Test
  void aRunsFigures_comeFromItsMarksAndCpuSamples() {
    // 1st, 1,000th, 4,000th, 5,000th message at 2 s, 4 s, 9 s, 9.5 s; CPU 1 s, 6 s, 12 s, 13 s.
    long s = 1_000_000_000L;
    ColdStartBench.ColdRun run =
        new ColdStartBench.ColdRun(
            new long[] {2 * s, 4 * s, 9 * s, 9 * s + s / 2},
            new long[] {s, 6 * s, 12 * s, 13 * s},
            6_000,
            12 * s,
            11 * s,
            s / 2);

    assertThat(run.firstSettled()).isEqualTo(2.0);
    assertThat(run.rate(1)).isEqualTo(499.5);
    assertThat(run.rate(5)).isEqualTo(2_000.0);
    assertThat(run.lastThousandRate()).isEqualTo(1_000.0);
    assertThat(run.firstThousandCpuMs()).isCloseTo(5.005, offset(1e-3));
    assertThat(run.lastThousandCpuMs()).isEqualTo(0.5);
  }
}
