package io.idemworker.emulator.cosmos;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The JavaScript SDK ({@code @azure/cosmos}, pinned in {@code src/test/js/package-lock.json}) runs
 * its cross-partition query path against an emulator with four partition key ranges: the script
 * {@code src/test/js/cross-partition.mjs} writes its own documents and checks each query's answer
 * against what it wrote. Behind the {@code js-sdk} profile ({@code mvn -B -pl src/emulators -am
 * test -Pjs-sdk}) because it needs Node 20+ and, on the first run, the npm registry for {@code npm
 * ci}; the default build does not run it.
 */
@Tag("js-sdk")
class JavaScriptSdkCrossPartitionTest {
  /** Surefire runs from the reactor's root; the script lives in this module. */
  private static final Path SCRIPT_DIR = Path.of("src", "emulators", "src", "test", "js");

  private static final int CHECKS = 13;

  @Test
  void crossPartitionQueriesOfTheJavaScriptSdk_allPass_withTlsVerified(@TempDir Path tmp)
      throws Exception {
    installPinnedSdk();
    Path pem = tmp.resolve("emulator.pem");
    try (CosmosEmulator emulator = CosmosEmulator.builder().partitionKeyRanges(4).start()) {
      Files.writeString(pem, pem(emulator));
      ProcessBuilder node =
          new ProcessBuilder("node", "cross-partition.mjs")
              .directory(SCRIPT_DIR.toFile())
              .redirectErrorStream(true)
              .redirectOutput(tmp.resolve("out.txt").toFile());
      node.environment().put("ENDPOINT", emulator.endpoint());
      node.environment().put("KEY", emulator.key());
      node.environment().put("NODE_EXTRA_CA_CERTS", pem.toAbsolutePath().toString());
      node.environment().remove("NODE_TLS_REJECT_UNAUTHORIZED");
      int exit = run(node);
      String out = Files.readString(tmp.resolve("out.txt"));
      assertThat(exit).as(out).isZero();
      assertThat(out).contains("checks: " + CHECKS + " passed, 0 failed").doesNotContain("not ok");
      assertThat(emulator.stats().count(Operation.QUERY))
          .as("plans and range pages reached the emulator")
          .isGreaterThan(CHECKS * 4L);
    }
  }

  private static void installPinnedSdk() throws IOException, InterruptedException {
    if (Files.isDirectory(SCRIPT_DIR.resolve("node_modules/@azure/cosmos"))) {
      return;
    }
    ProcessBuilder npm =
        new ProcessBuilder(List.of("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"))
            .directory(SCRIPT_DIR.toFile())
            // Output to the build's; not stdin: npm makes an inherited stdin non-blocking, which
            // breaks the test JVM's channel to Maven ("std/in stream corrupted").
            .redirectOutput(ProcessBuilder.Redirect.INHERIT)
            .redirectError(ProcessBuilder.Redirect.INHERIT);
    assertThat(run(npm)).as("npm ci in %s", SCRIPT_DIR).isZero();
  }

  private static int run(ProcessBuilder builder) throws IOException, InterruptedException {
    Process process = builder.start();
    if (!process.waitFor(5, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      throw new AssertionError(builder.command() + " did not finish within 5 minutes");
    }
    return process.exitValue();
  }

  private static String pem(CosmosEmulator emulator) throws Exception {
    String body =
        Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
            .encodeToString(emulator.certificate().getEncoded());
    return "-----BEGIN CERTIFICATE-----\n" + body + "\n-----END CERTIFICATE-----\n";
  }
}
