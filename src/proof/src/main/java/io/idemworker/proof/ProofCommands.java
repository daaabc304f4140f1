package io.idemworker.proof;

import io.idemworker.proof.bench.BenchCommand;
import io.idemworker.proof.chaos.ChaosCommand;
import io.idemworker.proof.demo.DemoCommand;
import io.idemworker.proof.emulators.EmulatorsCommand;
import io.idemworker.proof.producer.SendCommand;
import picocli.CommandLine;

/**
 * The proof tools: {@code demo}, {@code bench}, {@code chaos}, the stand-alone {@code emulators}
 * and the sample producer {@code send}. None of them is part of a deployment.
 */
public final class ProofCommands {
  private ProofCommands() {}

  /**
   * Adds the proof commands to a command line.
   *
   * @param commandLine the entry point's command line
   */
  public static void mountOn(CommandLine commandLine) {
    commandLine.addSubcommand(new DemoCommand());
    commandLine.addSubcommand(new BenchCommand());
    commandLine.addSubcommand(new ChaosCommand());
    commandLine.addSubcommand(new EmulatorsCommand());
    commandLine.addSubcommand(new SendCommand());
  }
}
