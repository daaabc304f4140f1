package io.idemworker.app;

import static io.idemworker.app.Wiring.keyStrategy;
import static io.idemworker.app.Wiring.markers;
import static io.idemworker.app.Wiring.partitionKeyPath;
import static io.idemworker.app.Wiring.processorSettings;
import static io.idemworker.app.Wiring.serviceBus;

import com.azure.core.credential.TokenCredential;
import com.azure.cosmos.CosmosContainer;
import io.idemworker.core.DeliveryObserver;
import io.idemworker.core.IdempotentConsumer;
import io.idemworker.core.Outcome;
import io.idemworker.cosmos.CosmosEffectStore;
import io.idemworker.cosmos.StoreCallListener;
import io.idemworker.orders.OrderMessageTypes;
import io.idemworker.servicebus.processor.ServiceBusWorker;
import java.time.Clock;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The README's Java code, compiled against the real API (as the Azure SDK keeps its READMEs' code
 * in samples classes). Each region between {@code // BEGIN: name} and {@code // END: name}, its
 * indentation removed, is one {@code java} block of the README, in order; {@code ReadmeSamplesTest}
 * fails when they differ. Nothing here runs.
 */
final class ReadmeSamples {
  private ReadmeSamples() {}

  /** The wiring of one order worker, as {@link Wiring#worker} does it, condensed. */
  static ServiceBusWorker orderWorker(
      WorkerConfig config,
      CosmosContainer container,
      StoreCallListener storeListener,
      Optional<OrderMessageTypes.Payments> payments,
      Supplier<TokenCredential> credential,
      DeliveryObserver observer,
      Clock clock) {
    // BEGIN: readme-wiring
    CosmosEffectStore store =
        new CosmosEffectStore(container, storeListener, partitionKeyPath(config));
    IdempotentConsumer consumer =
        new IdempotentConsumer(
            keyStrategy(config), // the sender's MessageId (or CloudEvents source + id)
            OrderMessageTypes.decoder( // routes by Subject to each registered type
                config.keyStrategy() == WorkerConfig.KeyStrategyName.MESSAGE_ID,
                markers(config), // inbox markers: consumer name and TTL
                payments), // Optional<Payments>: HttpPaymentProvider + lease
            store,
            clock,
            config.maxBodyBytes(),
            config.retention().maxDeliveryCount());
    ServiceBusWorker worker =
        new ServiceBusWorker(
            serviceBus(config, credential), // connection string, or namespace + Entra ID
            processorSettings(config), // PEEK_LOCK, concurrency, prefetch, lock renewal
            consumer,
            store, // the readiness probe a paused worker waits on
            observer, // metrics, logs and traces per delivery
            clock);
    // END: readme-wiring
    return worker;
  }

  /** How {@code ServiceBusWorker.settle} answers each outcome (there, with the SDK's context). */
  static String settlement(Outcome outcome) {
    // BEGIN: readme-settlement
    String settlement =
        outcome.fold(
            processed -> "complete",
            duplicate -> "complete", // its source: redelivery, resend, concurrent, ...
            stale -> "complete",
            deadLettered -> "dead-letter with " + deadLettered.reason().code(),
            retry -> "abandon after a back-off that ends before the lock does");
    // END: readme-settlement
    return settlement;
  }
}
