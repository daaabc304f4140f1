package io.idemworker.app;

import io.idemworker.Main;
import java.io.File;
import java.nio.file.Path;
import java.util.Map;

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
}
