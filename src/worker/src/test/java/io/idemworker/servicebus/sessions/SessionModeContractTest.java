package io.idemworker.servicebus.sessions;

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
 * {@link WorkerModeContract} for session mode: one session at a time, each message in its order's
 * session, the session lock renewed by the worker itself (the emulator refuses that renewal) and a
 * lost one counted.
 */
class SessionModeContractTest extends WorkerModeContract {
  private final SessionEvents events = new SessionEvents();

  @Override
  protected QueueSettings queue(String name) {
    return QueueSettings.defaults(name).withRequiresSession(true);
  }

  @Override
  protected Running start(
      ServiceBusConnection connection,
      String queue,
      MessageDecoder decoder,
      EffectStore store,
      CosmosEffectStore cosmos,
      RecordingObserver observer) {
    SessionWorker worker =
        new SessionWorker(
            connection,
            ProcessorSettings.defaults(queue)
                .withMaxRetryBackoff(Duration.ofMillis(50))
                .withProbeInterval(Duration.ofMillis(200)),
            SessionSettings.defaults().withMaxConcurrentSessions(1),
            TestFlow.of(decoder, store).build(),
            decoder,
            cosmos,
            cosmos,
            observer,
            events,
            Clock.systemUTC());
    worker.start();
    return worker::shutdown;
  }

  @Override
  protected ServiceBusMessage address(ServiceBusMessage message, String orderId) {
    return message.setSessionId(orderId);
  }

  @Override
  protected void refuseNextRenewal(ServiceBusEmulator serviceBus, String queue) {
    serviceBus.faults().refuseSessionLockRenewals(queue, 1);
  }

  @Override
  protected long refusedRenewals(ServiceBusEmulator serviceBus) {
    return serviceBus.faults().refusedSessionLockRenewals();
  }

  @Override
  protected OptionalLong locksLostCounted() {
    return OptionalLong.of(events.locksLostCount());
  }
}
