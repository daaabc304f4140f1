package io.idemworker;

import io.idemworker.app.AppCommands;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * Entry point of a deployment: the image's {@code idemworker} command line ({@code run}, {@code
 * relay}, {@code api} and the operator commands). The proof module's {@code ProofMain} mounts the
 * same commands beside {@code demo}, {@code chaos}, {@code bench}, {@code emulators} and {@code
 * send}.
 */
@Command(
    name = "idemworker",
    mixinStandardHelpOptions = true,
    version = "idemworker 0.1.0",
    description = {"Effectively-once order processing from Azure Service Bus to Azure Cosmos DB."})
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

  /**
   * The deployment's command line: this class's options and the worker's commands.
   *
   * @return a new command line
   */
  public static CommandLine commandLine() {
    return mount(new CommandLine(new Main()));
  }

  /**
   * Mounts the worker's commands and {@code help} on a command line, for this entry point and for
   * the proof module's.
   *
   * @param commandLine the entry point's command line
   * @return the same command line
   */
  public static CommandLine mount(CommandLine commandLine) {
    commandLine.setCaseInsensitiveEnumValuesAllowed(true);
    AppCommands.mountOn(commandLine);
    commandLine.addSubcommand(new CommandLine.HelpCommand());
    return commandLine;
  }
}
