package io.idemworker.spring.boot;

import io.idemworker.core.DeliveryObserver;
import io.idemworker.core.IncomingMessage;
import io.idemworker.core.Outcome;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/**
 * Counts the worker's outcomes through Micrometer, so they reach Prometheus or Azure Monitor as the
 * application's other metrics do: {@code idemworker.outcomes} by outcome and settled, {@code
 * idemworker.duplicates} by source (redelivery, resend, concurrent, resubmit, republish, unknown),
 * {@code idemworker.dead.letters} by reason, and {@code idemworker.delivery.duration} by outcome.
 */
public class MicrometerDeliveryObserver implements DeliveryObserver {
  private final MeterRegistry registry;

  /**
   * Counts into a registry.
   *
   * @param registry the application's registry
   */
  public MicrometerDeliveryObserver(MeterRegistry registry) {
    this.registry = registry;
  }

  @Override
  public Observation start(IncomingMessage message) {
    return (outcome, elapsed, settled) -> {
      String label = outcome.label();
      Counter.builder("idemworker.outcomes")
          .description("Deliveries finished, by outcome")
          .tag("outcome", label)
          .tag("settled", Boolean.toString(settled))
          .register(registry)
          .increment();
      Timer.builder("idemworker.delivery.duration")
          .description("Time from receipt to settlement, by outcome")
          .tag("outcome", label)
          .register(registry)
          .record(elapsed);
      if (outcome instanceof Outcome.Duplicate duplicate) {
        Counter.builder("idemworker.duplicates")
            .description("Copies found done already, by where they came from")
            .tag("source", duplicate.source().label())
            .register(registry)
            .increment();
      } else if (outcome instanceof Outcome.DeadLettered dead) {
        Counter.builder("idemworker.dead.letters")
            .description("Messages dead-lettered, by reason")
            .tag("reason", dead.reason().code())
            .register(registry)
            .increment();
      }
    };
  }
}
