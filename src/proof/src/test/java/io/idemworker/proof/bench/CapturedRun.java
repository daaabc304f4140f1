package io.idemworker.proof.bench;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Function;
import picocli.CommandLine;

/**
 * A proof command run in-process to its end, with what it printed.
 *
 * @param exit the command's exit code
 * @param output everything it printed to its output stream
 */
record CapturedRun(int exit, String output) {

  /** Runs the command {@code command} builds around an output stream with {@code args}. */
  static CapturedRun of(Function<PrintStream, Object> command, String... args) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
    int exit = new CommandLine(command.apply(out)).execute(args);
    return new CapturedRun(exit, bytes.toString(StandardCharsets.UTF_8));
  }
}
