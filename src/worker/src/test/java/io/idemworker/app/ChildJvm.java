package io.idemworker.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.idemworker.Main;
import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Starts {@link Main} as a real child process, as a deployment would, for the process tests. */
final class ChildJvm {
  private ChildJvm() {}

  /**
   * A process builder for {@code java ... Main <command>} on the test class path, with the test
   * logback configuration, the emulator certificate accepted, and exactly {@code env} as its
   * environment.
   *
   * @param command the subcommand, e.g. {@code run} or {@code relay}
   * @param env the child's whole environment
   * @return the builder; the caller chooses the output redirection
   */
  static ProcessBuilder command(String command, Map<String, String> env) {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String logback =
        Path.of(new File(ChildJvm.class.getResource("/logback.xml").getPath()).getPath())
            .toString();
    ProcessBuilder builder =
        new ProcessBuilder(
            java,
            "-Xmx512m",
            // Its crash file under the module's target/, not the working directory (the root).
            "-XX:ErrorFile=" + buildDirectory().resolve("hs_err_pid%p.log"),
            "-XX:ReplayDataFile=" + buildDirectory().resolve("replay_pid%p.log"),
            "-Dlogback.configurationFile=" + logback,
            "-DCOSMOS.EMULATOR_SERVER_CERTIFICATE_VALIDATION_DISABLED=true",
            "-DCOSMOS.DISABLE_IMDS_ACCESS=true",
            "-cp",
            System.getProperty("java.class.path"),
            Main.class.getName(),
            command);
    builder.environment().clear();
    builder.environment().putAll(env);
    return builder;
  }

  /** The module's build directory (Surefire passes it), where a child's crash file goes. */
  static Path buildDirectory() {
    return Path.of(System.getProperty("project.build.directory", "target")).toAbsolutePath();
  }

  /**
   * Waits for a started child to exit, at most {@code limit}, and answers everything it wrote. The
   * output goes to a file, so a child that never exits fails the test at the limit (killed) instead
   * of blocking a read for ever.
   *
   * @param builder the child's builder; its output is redirected here (stderr with stdout)
   * @param limit the longest wait
   * @return the started, now ended process and its output
   */
  static Exited runToExit(ProcessBuilder builder, Duration limit)
      throws IOException, InterruptedException {
    Path output = Files.createTempFile("idemworker-child-", ".log");
    Process process = builder.redirectErrorStream(true).redirectOutput(output.toFile()).start();
    try {
      boolean exited = process.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS);
      String text = Files.readString(output, StandardCharsets.UTF_8);
      assertThat(exited).as("the child exited within %s; its output:%n%s", limit, text).isTrue();
      return new Exited(process, text);
    } finally {
      process.destroyForcibly();
      Files.deleteIfExists(output);
    }
  }

  /**
   * A child that has exited.
   *
   * @param process the process (for its exit value)
   * @param output what it wrote to stdout and stderr
   */
  record Exited(Process process, String output) {
    int exitValue() {
      return process.exitValue();
    }
  }

  /** A port free at the time of the call, for a child's health or api port. */
  static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  /**
   * Polls {@code GET /health/ready} on {@code port} until it answers {@code status}, failing the
   * test if the process exits first or {@code wait} passes.
   *
   * @param process the child whose readiness is awaited
   * @param what the child's name in assertion messages, e.g. {@code "api process"}
   * @return the response with {@code status}
   */
  static HttpResponse<String> awaitReadiness(
      Process process, String what, int port, int status, Duration wait) throws Exception {
    HttpClient client = HttpClient.newHttpClient();
    HttpRequest ready =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health/ready"))
            .timeout(Duration.ofSeconds(2))
            .build();
    long deadline = System.nanoTime() + wait.toNanos();
    while (true) {
      assertThat(process.isAlive()).as(what + " alive").isTrue();
      try {
        HttpResponse<String> response = client.send(ready, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() == status) {
          return response;
        }
      } catch (IOException e) {
        // not listening yet
      }
      assertThat(System.nanoTime())
          .as("readiness " + status + " within " + wait)
          .isLessThan(deadline);
      // a bounded pause that ends early if the child exits
      process.waitFor(100, TimeUnit.MILLISECONDS);
    }
  }
}
