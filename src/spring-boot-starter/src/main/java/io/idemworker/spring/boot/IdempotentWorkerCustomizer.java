package io.idemworker.spring.boot;

import io.idemworker.azure.IdempotentWorker;

/**
 * Changes the worker's builder after the starter has set it from the properties and the beans, and
 * before it is built: key strategy, retention, session mode, a clock, decoders of one's own.
 */
@FunctionalInterface
public interface IdempotentWorkerCustomizer {

  /**
   * Changes the builder.
   *
   * @param builder the builder
   */
  void customize(IdempotentWorker.Builder builder);
}
