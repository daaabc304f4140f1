package io.idemworker.proof.emulators;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/**
 * The {@code emulators} command run in-process on a background thread, as the tests drive it: its
 * output captured, stopped through its latch. Not thread-safe; one per test. Public for the tests
 * of other packages that need the emulators stand-alone (the chaos run against given endpoints).
 */
public final class EmulatorsRun {
  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
  private final CountDownLatch stop = new CountDownLatch(1);
  private final CompletableFuture<Integer> exit;

  private EmulatorsRun(String... args) {
    EmulatorsCommand command =
        new EmulatorsCommand(new PrintStream(bytes, true, StandardCharsets.UTF_8), stop);
    exit = CompletableFuture.supplyAsync(() -> new CommandLine(command).execute(args));
  }

  /** Starts {@code emulators args} on a background thread. */
  public static EmulatorsRun start(String... args) {
    return new EmulatorsRun(args);
  }

  /** Starts all three emulators on free ports, with {@code more} arguments. */
  public static EmulatorsRun startOnFreePorts(String... more) {
    String[] args = new String[6 + more.length];
    System.arraycopy(
        new String[] {"--servicebus-port", "0", "--cosmos-port", "0", "--payments-port", "0"},
        0,
        args,
        0,
        6);
    System.arraycopy(more, 0, args, 6, more.length);
    return new EmulatorsRun(args);
  }

  /** A command line for arguments that must be refused before anything starts. */
  public static CommandLine cli() {
    return new CommandLine(
        new EmulatorsCommand(
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
            new CountDownLatch(1)));
  }

  /** The output once it contains {@code marker}; fails the test after 60 s. */
  public String awaitOutput(String marker) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      String output = bytes.toString(StandardCharsets.UTF_8);
      if (output.contains(marker)) {
        return output;
      }
      synchronized (bytes) {
        bytes.wait(50);
      }
    }
    throw new AssertionError("no '" + marker + "' in: " + bytes.toString(StandardCharsets.UTF_8));
  }

  /** Asks the command to stop, as Ctrl-C would. */
  public void stop() {
    stop.countDown();
  }

  /** The command's exit code; waits up to 30 s for it after {@link #stop()}. */
  public int exitCode() throws Exception {
    return exit.get(30, TimeUnit.SECONDS);
  }

  /**
   * The settings the command printed for clients; each must be there.
   *
   * @param connectionString the Service Bus emulator's
   * @param cosmosEndpoint the Cosmos DB emulator's endpoint
   * @param cosmosKey its key
   */
  public record Printed(String connectionString, String cosmosEndpoint, String cosmosKey) {
    /** The settings in {@code output}; fails the test when one is missing. */
    public static Printed from(String output) {
      return new Printed(
          group(output, "SERVICEBUS_CONNECTION_STRING=\"([^\"]+)\""),
          group(output, "COSMOS_ENDPOINT=(\\S+)"),
          group(output, "COSMOS_KEY=\"([^\"]+)\""));
    }
  }

  /** The first group of {@code regex}'s first match in {@code text}; fails the test if none. */
  public static String group(String text, String regex) {
    Matcher matcher = Pattern.compile(regex).matcher(text);
    assertThat(matcher.find()).as(regex + " in " + text).isTrue();
    return matcher.group(1);
  }
}
