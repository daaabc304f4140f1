package io.idemworker.spring.boot;

import io.idemworker.azure.IdempotentWorker;
import io.idemworker.servicebus.WorkerStatus;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

/**
 * The worker's health: UP while it takes messages; OUT_OF_SERVICE with {@code state: PAUSED} and
 * the reason while it pauses for a misconfiguration (a credential the store refuses, a queue that
 * requires sessions) or an outage of the store; DOWN once stopped; UNKNOWN before it starts.
 */
public class IdemworkerHealthIndicator implements HealthIndicator {
  private final IdempotentWorker worker;

  /**
   * The health of one worker.
   *
   * @param worker the worker
   */
  public IdemworkerHealthIndicator(IdempotentWorker worker) {
    this.worker = worker;
  }

  @Override
  public Health health() {
    WorkerStatus status = worker.status();
    Health.Builder health =
        switch (status.state()) {
          case RUNNING -> Health.up();
          case PAUSED -> Health.status(Status.OUT_OF_SERVICE);
          case STOPPED -> Health.down();
          case CREATED -> Health.unknown();
        };
    health.withDetail("state", status.state().name());
    status.reason().ifPresent(reason -> health.withDetail("reason", reason));
    return health.build();
  }
}
