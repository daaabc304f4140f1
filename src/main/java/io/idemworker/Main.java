package io.idemworker;

import io.idemworker.app.AppCommands;
import io.idemworker.proof.ProofCommands;
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
    })
public final class Main {
  private Main() {}

  /**
   * Runs the command line and exits with the command's exit code.
   *
   * @param args the command-line arguments
   */
  public static void main(String[] args) {
    if (args.length > 0 && LOCAL_COMMANDS.contains(args[0])) {
      useLocalEmulatorSettings();
    }
    System.exit(commandLine().execute(args));
  }

  /** Commands that run the in-process emulators on loopback. */
  private static final java.util.Set<String> LOCAL_COMMANDS =
      java.util.Set.of("demo", "bench", "chaos", "emulators");

  /**
   * Settings the Azure SDKs need to talk to emulators on loopback, set before any SDK class loads:
   * accept the emulator's self-signed certificate (the Cosmos client does so only for localhost and
   * 127.0.0.1), skip the cloud metadata probe that stalls start-up off Azure, and send small HTTP
   * responses at once instead of waiting for delayed ACKs.
   */
  static void useLocalEmulatorSettings() {
    System.setProperty("COSMOS.EMULATOR_SERVER_CERTIFICATE_VALIDATION_DISABLED", "true");
    System.setProperty("COSMOS.DISABLE_IMDS_ACCESS", "true");
    System.setProperty("sun.net.httpserver.nodelay", "true");
  }

  static CommandLine commandLine() {
    CommandLine commandLine = new CommandLine(new Main()).setCaseInsensitiveEnumValuesAllowed(true);
    ProofCommands.mountOn(commandLine);
    AppCommands.mountOn(commandLine);
    commandLine.addSubcommand(new CommandLine.HelpCommand());
    return commandLine;
  }
}
