package io.idemworker.proof.chaos;

import io.idemworker.Main;
import io.idemworker.proof.CrashFiles;
import io.idemworker.proof.faults.RestartableProcesses;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The chaos run's worker processes: real {@code java ... Main run} children on this JVM's class
 * path, each with its own environment, that can be killed (SIGKILL or SIGTERM) and are then
 * restarted with the same environment. Their output goes to one log file per process.
 *
 * <p>Thread-safe: kills and restarts of one process are serialised on it.
 */
final class WorkerFleet implements AutoCloseable, RestartableProcesses {

  /** One process slot: its name, environment and current process. */
  static final class Slot {
    final String name;
    private final Map<String, String> env;
    private Process process;
    private int generation;

    Slot(String name, Map<String, String> env) {
      this.name = name;
      this.env = Map.copyOf(env);
    }
  }

  private final List<Slot> slots = new ArrayList<>();
  private final Path logDir;
  private final Duration gracePeriod;
  private final List<String> trustOptions;
  private final AtomicInteger sigkills = new AtomicInteger();
  private final AtomicInteger sigterms = new AtomicInteger();
  private final AtomicInteger restarts = new AtomicInteger();
  private final AtomicInteger abnormalExits = new AtomicInteger();

  /**
   * @param logDir where each process writes {@code <name>-<generation>.log}
   * @param gracePeriod how long a SIGTERMed process may take to drain before it is killed
   * @param trustOptions JVM options each process gets for TLS trust (an emulator's self-signed
   *     certificate); empty when its endpoints have certificates the JVM trusts
   */
  WorkerFleet(Path logDir, Duration gracePeriod, List<String> trustOptions) {
    this.logDir = logDir;
    this.gracePeriod = gracePeriod;
    this.trustOptions = List.copyOf(trustOptions);
  }

  /** Adds and starts a process. */
  synchronized void start(String name, Map<String, String> env) {
    Slot slot = new Slot(name, env);
    slots.add(slot);
    launch(slot);
  }

  List<String> names() {
    synchronized (this) {
      return slots.stream().map(s -> s.name).toList();
    }
  }

  /**
   * Kills process {@code index} with SIGKILL (or SIGTERM, waiting for its graceful exit up to the
   * grace period) and starts it again. Blocks until the new process is started.
   */
  @Override
  public void kill(int index, boolean graceful) throws InterruptedException {
    Slot slot;
    synchronized (this) {
      slot = slots.get(index);
    }
    synchronized (slot) {
      Process process = slot.process;
      if (graceful) {
        sigterms.incrementAndGet();
        // Through the handle: Process.destroy() would also close the pipes, and SIGTERM it is.
        process.toHandle().destroy();
        if (!process.waitFor(gracePeriod.toMillis(), TimeUnit.MILLISECONDS)) {
          process.destroyForcibly();
          process.waitFor();
        }
        if (process.exitValue() != 0) {
          // A drained worker exits 0; one still starting (no shutdown hook yet) exits 143.
          abnormalExits.incrementAndGet();
        }
      } else {
        sigkills.incrementAndGet();
        process.destroyForcibly();
        process.waitFor();
      }
      launch(slot);
      restarts.incrementAndGet();
    }
  }

  private void launch(Slot slot) {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command =
        new ArrayList<>(List.of(java, "-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
    command.addAll(CrashFiles.jvmOptions());
    command.addAll(trustOptions);
    command.addAll(
        List.of(
            "-DCOSMOS.DISABLE_IMDS_ACCESS=true",
            "-Dsun.net.httpserver.nodelay=true",
            "-cp",
            System.getProperty("java.class.path"),
            Main.class.getName(),
            "run"));
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().clear();
    builder.environment().putAll(slot.env);
    File log = logDir.resolve(slot.name + "-" + (++slot.generation) + ".log").toFile();
    builder.redirectErrorStream(true).redirectOutput(log);
    try {
      slot.process = builder.start();
    } catch (IOException e) {
      throw new UncheckedIOException("could not start worker process " + slot.name, e);
    }
  }

  /**
   * How many processes exited by themselves (not by a kill of ours) so far.
   *
   * @return the names of processes not alive now
   */
  synchronized List<String> dead() {
    List<String> dead = new ArrayList<>();
    for (Slot slot : slots) {
      synchronized (slot) {
        if (!slot.process.isAlive()) {
          dead.add(slot.name + " (exit " + slot.process.exitValue() + ")");
        }
      }
    }
    return dead;
  }

  Map<String, Integer> counts() {
    Map<String, Integer> counts = new LinkedHashMap<>();
    counts.put("sigkill", sigkills.get());
    counts.put("sigterm", sigterms.get());
    counts.put("restarts", restarts.get());
    counts.put("sigtermExitNot0", abnormalExits.get());
    return counts;
  }

  int kills() {
    return sigkills.get() + sigterms.get();
  }

  Path logDir() {
    return logDir;
  }

  /** Stops every process: SIGTERM, then SIGKILL after the grace period (at once if interrupted). */
  @Override
  public synchronized void close() {
    for (Slot slot : slots) {
      slot.process.toHandle().destroy();
    }
    try {
      for (Slot slot : slots) {
        if (!slot.process.waitFor(gracePeriod.toMillis(), TimeUnit.MILLISECONDS)) {
          slot.process.destroyForcibly();
          slot.process.waitFor();
        }
      }
    } catch (InterruptedException e) {
      slots.forEach(slot -> slot.process.destroyForcibly());
      Thread.currentThread().interrupt();
    }
  }
}
