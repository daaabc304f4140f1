package io.idemworker.proof;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CrashFilesTest {
  /** A program that crashes its JVM: a write through Unsafe to address 0 (SIGSEGV). */
  private static final String CRASH =
      """
      public class Crash {
        public static void main(String[] args) throws Exception {
          java.lang.reflect.Field f = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
          f.setAccessible(true);
          ((sun.misc.Unsafe) f.get(null)).putAddress(0L, 1L);
        }
      }
      """;

  @Test
  void theOptions_sendCrashAndReplayFilesUnderTheBuildDirectory() {
    Path dir = CrashFiles.directory();
    assertThat(dir).isDirectory();
    assertThat(dir.getFileName().toString()).isEqualTo("target");
    assertThat(CrashFiles.jvmOptions())
        .containsExactly(
            "-XX:ErrorFile=" + dir.resolve("hs_err_pid%p.log"),
            "-XX:ReplayDataFile=" + dir.resolve("replay_pid%p.log"));
  }

  @Test
  void aStepWhoseJvmCrashesTwice_failsQuotingTheCrashFile(@TempDir Path tmp) throws Exception {
    Path source = Files.writeString(tmp.resolve("Crash.java"), CRASH);
    AtomicInteger tries = new AtomicInteger();
    ByteArrayOutputStream said = new ByteArrayOutputStream();
    List<Long> pids = new ArrayList<>();

    assertThatThrownBy(
            () ->
                CrashFiles.retryOnceOnCrash(
                    "the test step",
                    new PrintStream(said, true, StandardCharsets.UTF_8),
                    () -> {
                      tries.incrementAndGet();
                      pids.add(crash(source));
                      throw new IOException("the JVM exited non-zero");
                    }))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("the test step: a JVM crashed again on the second try")
        .hasMessageContaining("hs_err_pid" + pids.get(1) + ".log")
        .hasMessageContaining("SIGSEGV");
    assertThat(tries).hasValue(2);
    assertThat(said.toString(StandardCharsets.UTF_8))
        .contains("the test step: a JVM crashed", "trying once more", "SIGSEGV");
    for (long pid : pids) {
      Path crash = CrashFiles.directory().resolve("hs_err_pid" + pid + ".log");
      assertThat(crash).isRegularFile();
      Files.delete(crash);
    }
  }

  @Test
  void aStepWhoseJvmCrashedOnce_succeedsOnItsSecondTry(@TempDir Path tmp) throws Exception {
    Path source = Files.writeString(tmp.resolve("Crash.java"), CRASH);
    AtomicInteger tries = new AtomicInteger();
    List<Long> pids = new ArrayList<>();

    String result =
        CrashFiles.retryOnceOnCrash(
            "the test step",
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
            () -> {
              if (tries.incrementAndGet() == 1) {
                pids.add(crash(source));
                throw new IOException("the JVM exited non-zero");
              }
              return "archive";
            });

    assertThat(result).isEqualTo("archive");
    assertThat(tries).hasValue(2);
    Files.delete(CrashFiles.directory().resolve("hs_err_pid" + pids.get(0) + ".log"));
  }

  @Test
  void aFailureWithoutACrash_isNotRetried() {
    AtomicInteger tries = new AtomicInteger();

    assertThatThrownBy(
            () ->
                CrashFiles.retryOnceOnCrash(
                    "the test step",
                    System.out,
                    () -> {
                      tries.incrementAndGet();
                      throw new IOException("no archive written");
                    }))
        .isInstanceOf(IOException.class)
        .hasMessage("no archive written");
    assertThat(tries).hasValue(1);
  }

  /** Runs the crashing program with the crash file options; answers the crashed JVM's pid. */
  private static long crash(Path source) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(CrashFiles.jvmOptions());
    command.addAll(List.of("-XX:-CreateCoredumpOnCrash", "-Xshare:auto", source.toString()));
    Process process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).isNotZero();
    return process.pid();
  }
}
