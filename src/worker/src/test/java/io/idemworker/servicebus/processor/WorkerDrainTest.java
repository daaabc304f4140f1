package io.idemworker.servicebus.processor;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusReceiverClient;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import com.azure.messaging.servicebus.models.ServiceBusReceiveMode;
import io.idemworker.app.OrderMessages;
import io.idemworker.core.DeliveryObserver;
import io.idemworker.core.TestFlow;
import io.idemworker.cosmos.CosmosEffectStore;
import io.idemworker.emulator.junit.AzureEmulators;
import io.idemworker.emulator.junit.Emulators;
import io.idemworker.orders.OrderDecoder;
import io.idemworker.orders.OrderDocumentIds;
import io.idemworker.orders.Orders;
import io.idemworker.servicebus.ProcessorSettings;
import io.idemworker.servicebus.ServiceBusConnection;
import io.idemworker.servicebus.WorkerStatus;
import io.idemworker.testing.EmulatorClients;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * A graceful stop gives back what it did not handle: deliveries that reach the worker while it
 * drains are abandoned before the processor closes, so they are on the queue again at once rather
 * than locked for a whole lock duration (here 5 minutes) with everything that depends on them.
 */
@AzureEmulators
class WorkerDrainTest {
  private static final long WAIT_SECONDS = 60;
  private static final int SLOTS = 2;
  private static final int MESSAGES = 8;

  @Test
  void deliveriesThatArriveDuringTheDrain_areBackOnTheQueueAtOnce(Emulators azure)
      throws Exception {
    String queue = azure.newQueue("drain", "lockDuration=5m maxDeliveryCount=10");
    CosmosEffectStore store =
        new CosmosEffectStore(
            EmulatorClients.orders(azure),
            (operation, status, charge, latency) -> {},
            OrderDocumentIds.PARTITION_KEY_PATH);
    CountDownLatch bothSlotsBusy = new CountDownLatch(SLOTS);
    CompletableFuture<ServiceBusWorker> stopping = new CompletableFuture<>();
    AtomicInteger started = new AtomicInteger();
    Set<String> handled = ConcurrentHashMap.newKeySet();
    DeliveryObserver observer =
        message -> {
          if (started.incrementAndGet() <= SLOTS) {
            // The first deliveries stay in flight until the worker has begun to stop, so that
            // the next ones reach it while it drains.
            bothSlotsBusy.countDown();
            awaitStopping(stopping);
          }
          return (outcome, elapsed, settled) -> {
            if (settled) {
              handled.add(message.messageId().orElseThrow());
            }
          };
        };
    ServiceBusWorker worker =
        new ServiceBusWorker(
            new ServiceBusConnection.ConnectionString(azure.serviceBusConnectionString()),
            ProcessorSettings.defaults(queue).withMaxConcurrentCalls(SLOTS),
            TestFlow.of(new OrderDecoder(true), store).build(),
            store,
            observer,
            Clock.systemUTC());
    List<String> sent = new ArrayList<>();
    try (ServiceBusSenderClient sender = EmulatorClients.sender(azure, queue)) {
      for (int i = 0; i < MESSAGES; i++) {
        String orderId = azure.uniqueName("ord");
        var message =
            OrderMessages.orderPlaced(orderId, Orders.body(orderId, "cust-1"), "corr-" + i);
        sent.add(message.getMessageId());
        sender.sendMessage(message);
      }
    }
    worker.start();
    assertThat(bothSlotsBusy.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();

    CompletableFuture<Boolean> drained =
        CompletableFuture.supplyAsync(
            () -> {
              stopping.complete(worker);
              return worker.shutdown(Duration.ofSeconds(30));
            });

    assertThat(drained.get(WAIT_SECONDS, TimeUnit.SECONDS)).as("in-flight drained").isTrue();
    assertThat(handled)
        .as("the deliveries in flight were settled")
        .hasSizeGreaterThanOrEqualTo(SLOTS);
    Set<String> unhandled = new HashSet<>(sent);
    unhandled.removeAll(handled);
    assertThat(receiveAll(azure, queue, unhandled.size()))
        .as("every message the worker did not settle is available again, none still locked")
        .containsExactlyInAnyOrderElementsOf(unhandled);
  }

  /** Waits, in the delivery's handler, until the worker's status says it is stopping. */
  private static void awaitStopping(CompletableFuture<ServiceBusWorker> stopping) {
    ServiceBusWorker worker = stopping.join();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
    while (worker.status().state() != WorkerStatus.State.STOPPED) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the worker did not begin to stop");
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
    }
  }

  private static List<String> receiveAll(Emulators azure, String queue, int expected) {
    List<String> ids = new ArrayList<>();
    try (ServiceBusReceiverClient receiver =
        EmulatorClients.serviceBusClient(azure)
            .receiver()
            .queueName(queue)
            .receiveMode(ServiceBusReceiveMode.RECEIVE_AND_DELETE)
            .buildClient()) {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
      while (ids.size() < expected && System.nanoTime() < deadline) {
        for (ServiceBusReceivedMessage m :
            receiver.receiveMessages(expected - ids.size(), Duration.ofSeconds(5))) {
          ids.add(m.getMessageId());
        }
      }
    }
    return ids;
  }
}
