package io.idemworker.app;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Entry point of the {@code idemworker} command line. */
@Command(
    name = "idemworker",
    mixinStandardHelpOptions = true,
    version = "idemworker 0.1.0",
    description = {
      "Effectively-once order processing from Azure Service Bus to Azure Cosmos DB.",
      "",
      "Start with 'demo': it runs the whole pattern on in-process emulators, no Azure needed."
    },
    subcommands = {RunCommand.class, CommandLine.HelpCommand.class})
public final class Main {
  private Main() {}

  /**
   * Runs the command line and exits with the command's exit code.
   *
   * @param args the command-line arguments
   */
  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  static CommandLine commandLine() {
    return new CommandLine(new Main()).setCaseInsensitiveEnumValuesAllowed(true);
  }
}
