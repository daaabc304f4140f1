package io.idemworker.servicebus.processor;

import com.azure.messaging.servicebus.ServiceBusMessage;
import io.idemworker.core.EffectStore;
import io.idemworker.core.MessageDecoder;
import io.idemworker.core.TestFlow;
import io.idemworker.cosmos.CosmosEffectStore;
import io.idemworker.emulator.servicebus.QueueSettings;
import io.idemworker.emulator.servicebus.ServiceBusEmulator;
import io.idemworker.servicebus.ProcessorSettings;
import io.idemworker.servicebus.ServiceBusConnection;
import io.idemworker.servicebus.WorkerModeContract;
import io.idemworker.testing.RecordingObserver;
import java.time.Clock;
import java.time.Duration;
import java.util.OptionalLong;

/**
 * {@link WorkerModeContract} for the plain worker: the SDK's processor, one call at a time, its
 * message lock renewed by the SDK (the emulator refuses that renewal).
 */
class ProcessorModeContractTest extends WorkerModeContract {

  @Override
  protected QueueSettings queue(String name) {
    return QueueSettings.defaults(name);
  }

  @Override
  protected Running start(
      ServiceBusConnection connection,
      String queue,
      MessageDecoder decoder,
      EffectStore store,
      CosmosEffectStore cosmos,
      RecordingObserver observer) {
    ServiceBusWorker worker =
        new ServiceBusWorker(
            connection,
            ProcessorSettings.defaults(queue)
                .withMaxConcurrentCalls(1)
                .withMaxRetryBackoff(Duration.ofMillis(50))
                .withProbeInterval(Duration.ofMillis(200)),
            TestFlow.of(decoder, store).build(),
            cosmos,
            observer,
            Clock.systemUTC());
    worker.start();
    return worker::shutdown;
  }

  @Override
  protected ServiceBusMessage address(ServiceBusMessage message, String orderId) {
    return message;
  }

  @Override
  protected void refuseNextRenewal(ServiceBusEmulator serviceBus, String queue) {
    serviceBus.faults().refuseLockRenewals(queue, 1);
  }

  @Override
  protected long refusedRenewals(ServiceBusEmulator serviceBus) {
    return serviceBus.faults().refusedLockRenewals();
  }

  @Override
  protected OptionalLong locksLostCounted() {
    return OptionalLong.empty();
  }
}
