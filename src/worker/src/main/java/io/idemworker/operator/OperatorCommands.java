package io.idemworker.operator;

import java.util.Map;
import java.util.function.Function;
import picocli.CommandLine;

/**
 * The operator commands that act on a deployment ({@code resubmit}, {@code explain}, and {@code
 * dlq} with its {@code list} and {@code resubmit}), for the composition root to mount.
 */
public final class OperatorCommands {
  private OperatorCommands() {}

  /**
   * Adds the operator commands to a command line, in the order {@code resubmit}, {@code explain},
   * {@code dlq}.
   *
   * @param commandLine the entry point's command line
   * @param worker reads the worker deployment that {@code explain} looks at from the environment;
   *     throws {@link IllegalArgumentException} naming every bad variable when it cannot
   */
  public static void mountOn(
      CommandLine commandLine, Function<Map<String, String>, WorkerTarget> worker) {
    commandLine.addSubcommand(new ResubmitCommand());
    commandLine.addSubcommand(new ExplainCommand(worker));
    commandLine.addSubcommand(new DlqCommand());
  }
}
