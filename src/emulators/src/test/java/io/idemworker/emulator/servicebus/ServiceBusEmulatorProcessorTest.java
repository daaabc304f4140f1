package io.idemworker.emulator.servicebus;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusMessageBatch;
import com.azure.messaging.servicebus.ServiceBusProcessorClient;
import com.azure.messaging.servicebus.ServiceBusReceivedMessageContext;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Processors (the SDK's push model) against the emulator, on the real clock. */
class ServiceBusEmulatorProcessorTest {
  private ServiceBusEmulator emulator;
  private final List<ServiceBusProcessorClient> processors = new ArrayList<>();

  @AfterEach
  void stop() {
    processors.forEach(ServiceBusProcessorClient::close);
    if (emulator != null) {
      emulator.close();
    }
  }

  private ServiceBusProcessorClient processor(
      String queue,
      int concurrency,
      Duration maxLockRenewal,
      Consumer<ServiceBusReceivedMessageContext> handler) {
    ServiceBusProcessorClient p =
        Clients.builder(emulator)
            .processor()
            .queueName(queue)
            .maxConcurrentCalls(concurrency)
            .maxAutoLockRenewDuration(maxLockRenewal)
            .disableAutoComplete()
            .processMessage(handler)
            .processError(e -> {})
            .buildProcessorClient();
    processors.add(p);
    return p;
  }

  @Test
  void twoCompetingProcessors_neverHoldTheSameMessageAtOnce() throws Exception {
    emulator = ServiceBusEmulator.builder().queue(QueueSettings.defaults("orders")).start();
    int total = 300;
    try (ServiceBusSenderClient sender =
        Clients.builder(emulator).sender().queueName("orders").buildClient()) {
      ServiceBusMessageBatch batch = sender.createMessageBatch();
      for (int i = 0; i < total; i++) {
        batch.tryAddMessage(new ServiceBusMessage("m" + i).setMessageId("m" + i));
      }
      sender.sendMessages(batch);
    }
    Set<String> inFlight = ConcurrentHashMap.newKeySet();
    Map<String, AtomicInteger> completions = new ConcurrentHashMap<>();
    AtomicInteger overlaps = new AtomicInteger();
    CountDownLatch done = new CountDownLatch(total);
    Consumer<ServiceBusReceivedMessageContext> handler =
        ctx -> {
          String id = ctx.getMessage().getMessageId();
          if (!inFlight.add(id)) {
            overlaps.incrementAndGet();
          }
          try {
            ctx.complete();
            completions.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
            done.countDown();
          } finally {
            inFlight.remove(id);
          }
        };

    processor("orders", 4, Duration.ofMinutes(1), handler).start();
    processor("orders", 4, Duration.ofMinutes(1), handler).start();

    assertThat(done.await(90, TimeUnit.SECONDS)).as("all messages processed").isTrue();
    assertThat(overlaps).hasValue(0);
    assertThat(completions).hasSize(total);
    assertThat(completions.values()).allSatisfy(c -> assertThat(c).hasValue(1));
  }

  @Test
  void autoLockRenewal_keepsASlowMessageLockedPastItsLockDuration() throws Exception {
    emulator =
        ServiceBusEmulator.builder()
            .queue(QueueSettings.defaults("slow").withLockDuration(Duration.ofSeconds(2)))
            .start();
    try (ServiceBusSenderClient sender =
        Clients.builder(emulator).sender().queueName("slow").buildClient()) {
      sender.sendMessage(new ServiceBusMessage("slow").setMessageId("slow"));
    }
    AtomicInteger deliveries = new AtomicInteger();
    AtomicInteger maxDeliveryCount = new AtomicInteger(-1);
    CountDownLatch completed = new CountDownLatch(1);
    CountDownLatch neverReleased = new CountDownLatch(1);
    processor(
            "slow",
            2,
            Duration.ofMinutes(1),
            ctx -> {
              deliveries.incrementAndGet();
              maxDeliveryCount.accumulateAndGet(
                  (int) ctx.getMessage().getDeliveryCount(), Math::max);
              try {
                // the work takes 2.5 lock durations; bounded wait standing in for slow work
                assertThat(neverReleased.await(5, TimeUnit.SECONDS)).isFalse();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              ctx.complete();
              completed.countDown();
            })
        .start();

    assertThat(completed.await(60, TimeUnit.SECONDS)).isTrue();
    assertThat(deliveries).hasValue(1);
    assertThat(maxDeliveryCount).hasValue(0);
  }

  @Test
  void connectionsDroppedWhileProcessing_messageIsCompletedExactlyOnce() throws Exception {
    // A short lock: if the completion after the drop cannot reach the broker, the lock (which
    // outlives the link, as on the service) ends soon and the message comes back.
    emulator =
        ServiceBusEmulator.builder()
            .queue(QueueSettings.defaults("orders").withLockDuration(Duration.ofSeconds(5)))
            .start();
    try (ServiceBusSenderClient sender =
        Clients.builder(emulator).sender().queueName("orders").buildClient()) {
      sender.sendMessage(new ServiceBusMessage("m").setMessageId("m"));
    }
    List<Long> deliveryCounts = new java.util.concurrent.CopyOnWriteArrayList<>();
    AtomicInteger completions = new AtomicInteger();
    CountDownLatch completed = new CountDownLatch(1);
    processor(
            "orders",
            4,
            Duration.ZERO,
            ctx -> {
              deliveryCounts.add(ctx.getMessage().getDeliveryCount());
              if (deliveryCounts.size() == 1) {
                emulator.faults().dropConnections();
              }
              try {
                ctx.complete();
                completions.incrementAndGet();
                completed.countDown();
              } catch (RuntimeException linkGone) {
                // not acknowledged: the lock runs out and the message is redelivered
              }
            })
        .start();

    assertThat(completed.await(90, TimeUnit.SECONDS)).as("completed once").isTrue();
    assertThat(deliveryCounts).startsWith(0L);
    assertThat(completions).hasValue(1);
    assertThat(emulator.messageCount("orders")).isZero();
  }
}
