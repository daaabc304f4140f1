package io.idemworker.proof;

import io.idemworker.Main;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * Entry point of the local jar: the proof commands ({@code demo}, {@code bench}, {@code chaos},
 * {@code emulators}, {@code send}) and every command of the worker's {@link Main}, so one jar runs
 * them all on a laptop. Not part of a deployment's image.
 */
@Command(
    name = "idemworker",
    mixinStandardHelpOptions = true,
    version = "idemworker 0.1.0",
    description = {
      "Effectively-once order processing from Azure Service Bus to Azure Cosmos DB.",
      "",
      "Start with 'demo': it runs the whole pattern on in-process emulators, no Azure needed."
    })
public final class ProofMain {
  /** Commands that run the in-process emulators on loopback. */
  private static final Set<String> LOCAL_COMMANDS = Set.of("demo", "bench", "chaos", "emulators");

  private ProofMain() {}

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
    CommandLine commandLine = new CommandLine(new ProofMain());
    ProofCommands.mountOn(commandLine);
    return Main.mount(commandLine);
  }
}
