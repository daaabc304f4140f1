package io.idemworker.emulator.servicebus;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Microsoft's Python SDK (azure-servicebus 7.8 on uamqp, Debian's {@code python3-azure}) as
 * shipped, against the TLS port: {@code src/test/python/servicebus_sdk_checks.py} runs once with
 * the emulator's TLS connection string and certificate, and each check it reports is one test here.
 * That SDK dials port 5671 of the endpoint's host whatever else the connection string says, so the
 * emulator listens on 5671 of a loopback address of its own (127.x.y.z), which another build's 5671
 * does not clash with.
 *
 * <p>Runs only with {@code -Ppython} (tag {@code python}, excluded from the default build); there
 * it fails, naming the package, when {@code /usr/bin/python3} cannot import the SDK.
 */
@Tag("python")
class ServiceBusEmulatorPythonSdkTest {
  private static final Path SCRIPT =
      Path.of("src/emulators/src/test/python/servicebus_sdk_checks.py");
  private static final String PYTHON = System.getProperty("python.executable", "/usr/bin/python3");

  private static ServiceBusEmulator emulator;
  private static String output;
  private static int exitCode;

  @BeforeAll
  @Timeout(value = 10, unit = TimeUnit.MINUTES)
  static void runTheChecks(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
    Run importCheck = python(List.of("-c", "import azure.servicebus, uamqp"), dir, null);
    assertThat(importCheck.exit())
        .as(
            PYTHON
                + " cannot import azure.servicebus and uamqp; install Debian's python3-azure"
                + " (apt-get install python3-azure): "
                + importCheck.output())
        .isZero();
    emulator = startOnPort5671();
    Path ca = Files.writeString(dir.resolve("emulator.pem"), emulator.tls().certificatePem());
    Run checks = python(List.of(SCRIPT.toString()), dir, ca);
    output = checks.output();
    exitCode = checks.exit();
    System.out.println(output); // the per-check lines and times, also when everything passed
  }

  @AfterAll
  static void stop() {
    if (emulator != null) {
      emulator.close();
    }
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {
        "send_receive_complete",
        "abandon",
        "dead_letter",
        "defer",
        "peek",
        "schedule_cancel",
        "lock_renewal",
        "lock_outlives_link",
        "sessions",
        "multi_section_bodies",
        "topic_subscriptions"
      })
  void pythonSdkCheck_passesOverTls(String check) {
    assertThat(output).as(output).containsPattern("(?m)^PASS " + check + " ");
  }

  @Test
  void pythonSdkChecks_allPass_andTheScriptExitsZero() {
    assertThat(output).as(output).doesNotContain("FAIL ");
    assertThat(exitCode).as(output).isZero();
  }

  /** The emulator with the script's entities, TLS on 5671 of a free 127.x.y.z address. */
  private static ServiceBusEmulator startOnPort5671() {
    UncheckedIOException last = null;
    for (int attempt = 0; attempt < 20; attempt++) {
      ThreadLocalRandom r = ThreadLocalRandom.current();
      String host = "127." + r.nextInt(1, 255) + "." + r.nextInt(0, 256) + "." + r.nextInt(1, 255);
      ServiceBusEmulator.Builder b = ServiceBusEmulator.builder().host(host).tlsPort(5671);
      for (String q :
          List.of(
              "py-basic",
              "py-abandon",
              "py-deadletter",
              "py-defer",
              "py-peek",
              "py-schedule",
              "py-bodies",
              "py-lock")) {
        b.queue(QueueSettings.defaults(q));
      }
      b.queue(QueueSettings.defaults("py-link-lock").withLockDuration(Duration.ofSeconds(10)));
      b.queue(QueueSettings.defaults("py-sessions").withRequiresSession(true));
      b.topic(
          TopicSettings.defaults("py-topic")
              .withSubscription(SubscriptionSettings.defaults("py-sub")));
      b.topic(
          TopicSettings.defaults("py-rules")
              .withSubscription(
                  SubscriptionSettings.defaults("eu")
                      .withRule(SubscriptionRule.sql("eu", "region = 'eu'")))
              .withSubscription(
                  SubscriptionSettings.defaults("accepted")
                      .withRule(
                          SubscriptionRule.correlation(
                              "accepted", CorrelationFilter.subject("OrderAccepted")))));
      b.topic(
          TopicSettings.defaults("py-session-topic")
              .withSubscription(SubscriptionSettings.defaults("orders").withRequiresSession(true)));
      try {
        return b.start();
      } catch (UncheckedIOException e) {
        last = e; // that address's 5671 is taken; try another
      }
    }
    throw last;
  }

  private record Run(int exit, String output) {}

  private static Run python(List<String> args, Path dir, Path ca) throws Exception {
    List<String> command = new java.util.ArrayList<>(List.of(PYTHON));
    command.addAll(args);
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    Path log = dir.resolve("python-" + System.nanoTime() + ".log");
    pb.redirectOutput(log.toFile());
    if (ca != null) {
      pb.environment().put("SB_CONNECTION_STRING", emulator.tls().connectionString());
      pb.environment().put("SB_CA_FILE", ca.toString());
    }
    Process p = pb.start();
    if (!p.waitFor(8, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new AssertionError("python did not finish in 8 minutes: " + read(log));
    }
    return new Run(p.exitValue(), read(log));
  }

  private static String read(Path log) {
    try {
      return Files.readString(log, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
