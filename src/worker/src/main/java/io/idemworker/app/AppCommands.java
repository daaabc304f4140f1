package io.idemworker.app;

import io.idemworker.operator.OperatorCommands;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;

/**
 * The commands a deployment runs ({@code run}, {@code relay}, {@code api}) and the operator
 * commands that act on a deployment ({@code resubmit}, {@code explain}, {@code dlq}), for the entry
 * point to mount.
 */
public final class AppCommands {
  private AppCommands() {}

  /**
   * Adds the deployment's commands and the operator commands to a command line, with the
   * environment variables in the usage help of the commands that read them.
   *
   * @param commandLine the entry point's command line
   */
  public static void mountOn(CommandLine commandLine) {
    commandLine.addSubcommand(new RunCommand());
    commandLine.addSubcommand(new RelayCommand());
    OperatorCommands.mountOn(commandLine, Wiring::workerTarget);
    commandLine.addSubcommand(new ApiCommand());
    describeEnvironment(commandLine);
    describeApiEnvironment(commandLine);
  }

  private static void describeApiEnvironment(CommandLine commandLine) {
    List<String> footer = new ArrayList<>();
    footer.add("");
    footer.add("Environment variables:");
    for (WorkerConfig.Variable variable : ApiConfig.VARIABLES) {
      footer.add(line(variable));
    }
    commandLine
        .getSubcommands()
        .get("api")
        .getCommandSpec()
        .usageMessage()
        .width(120)
        .footer(footer.toArray(new String[0]));
  }

  private static String line(WorkerConfig.Variable variable) {
    return String.format(
        "  %-38s %s%s",
        variable.name(),
        variable.allowed(),
        variable.defaultValue() == null ? "" : " (default " + variable.defaultValue() + ")");
  }

  private static void describeEnvironment(CommandLine commandLine) {
    List<String> footer = new ArrayList<>();
    footer.add("");
    footer.add("Environment variables:");
    for (WorkerConfig.Variable variable : WorkerConfig.VARIABLES) {
      footer.add(
          String.format(
              "  %-38s %s%s",
              variable.name(),
              variable.allowed(),
              variable.defaultValue() == null ? "" : " (default " + variable.defaultValue() + ")"));
    }
    for (String command : List.of("run", "relay")) {
      commandLine
          .getSubcommands()
          .get(command)
          .getCommandSpec()
          .usageMessage()
          .width(120)
          .footer(footer.toArray(new String[0]));
    }
  }
}
