package io.idemworker.core;

import java.util.Optional;

/**
 * Asks a dependency whether the worker's configuration works, without side effects. Used to decide
 * when a worker paused for misconfiguration may resume. Implementations are thread-safe.
 */
public interface ReadinessProbe {

  /**
   * Probes once.
   *
   * @return empty when the dependency accepts our configuration; otherwise what is wrong
   */
  Optional<String> problem();
}
