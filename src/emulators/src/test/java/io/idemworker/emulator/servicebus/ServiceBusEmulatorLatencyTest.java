package io.idemworker.emulator.servicebus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusProcessorClient;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusReceiverClient;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Injected receive and settlement latency: applied, and the broker stays correct with it. */
class ServiceBusEmulatorLatencyTest {
  private EmulatorFixture fx;

  @BeforeEach
  void start() {
    fx = new EmulatorFixture(QueueSettings.defaults("orders"));
  }

  @AfterEach
  void stop() {
    fx.close();
  }

  @Test
  void deliveryDelay_holdsEachReceiveBackAtLeastThatLong_andTheMessageArrivesIntact() {
    fx.sender("orders").sendMessage(new ServiceBusMessage("m-1").setMessageId("id-1"));
    ServiceBusReceiverClient receiver = fx.receiver("orders");
    fx.emulator.faults().delayDeliveries(Duration.ofMillis(300));

    long start = System.nanoTime();
    List<ServiceBusReceivedMessage> got = EmulatorFixture.receive(receiver, 1);
    long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

    assertThat(got).hasSize(1);
    assertThat(got.get(0).getMessageId()).isEqualTo("id-1");
    assertThat(got.get(0).getBody().toString()).isEqualTo("m-1");
    assertThat(got.get(0).getDeliveryCount()).isZero();
    assertThat(tookMillis).isGreaterThanOrEqualTo(300);
    receiver.complete(got.get(0));
    assertThat(receiver.peekMessages(10)).isEmpty();
  }

  @Test
  void deliveryAndDispositionDelays_aProcessorWithPrefetchGetsEveryMessageOnceAndCompletesAll()
      throws Exception {
    int count = 60;
    ServiceBusSenderClient sender = fx.sender("orders");
    List<ServiceBusMessage> batch = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      batch.add(new ServiceBusMessage("m-" + i).setMessageId("id-" + i));
    }
    sender.sendMessages(batch);
    fx.emulator.faults().delayDeliveries(Duration.ofMillis(20));
    fx.emulator.faults().delayDispositions(Duration.ofMillis(20));
    Map<String, AtomicInteger> seen = new ConcurrentHashMap<>();
    CountDownLatch done = new CountDownLatch(count);
    AtomicInteger failures = new AtomicInteger();

    ServiceBusProcessorClient processor =
        Clients.builder(fx.emulator)
            .processor()
            .queueName("orders")
            .maxConcurrentCalls(4)
            .prefetchCount(8)
            .disableAutoComplete()
            .processMessage(
                context -> {
                  context.complete();
                  seen.computeIfAbsent(
                          context.getMessage().getMessageId(), k -> new AtomicInteger())
                      .incrementAndGet();
                  done.countDown();
                })
            .processError(error -> failures.incrementAndGet())
            .buildProcessorClient();
    processor.start();
    try {
      assertThat(done.await(60, TimeUnit.SECONDS)).as("all messages processed").isTrue();
    } finally {
      processor.close();
    }

    assertThat(seen).hasSize(count);
    assertThat(seen.values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
    assertThat(failures.get()).isZero();
    fx.emulator.faults().clear();
    assertThat(fx.receiver("orders").peekMessages(count)).isEmpty();
  }

  @Test
  void receiveThatGivesUpWhileMessagesAreInTransit_losesNone() {
    ServiceBusSenderClient sender = fx.sender("orders");
    for (int i = 0; i < 3; i++) {
      sender.sendMessage(new ServiceBusMessage("m-" + i).setMessageId("id-" + i));
    }
    ServiceBusReceiverClient impatient = fx.receiver("orders");
    fx.emulator.faults().delayDeliveries(Duration.ofMillis(500));

    List<ServiceBusReceivedMessage> early = new ArrayList<>();
    impatient.receiveMessages(3, Duration.ofMillis(50)).forEach(early::add);
    impatient.close();
    fx.emulator.faults().clear();
    // Taken on the closed link's credit, they stay locked until the lock ends, as on the service.
    fx.advance(Duration.ofSeconds(61));
    List<ServiceBusReceivedMessage> later =
        EmulatorFixture.receive(fx.receiver("orders"), 3 - early.size());

    List<String> ids = new ArrayList<>();
    early.forEach(m -> ids.add(m.getMessageId()));
    later.forEach(m -> ids.add(m.getMessageId()));
    assertThat(ids).containsExactlyInAnyOrder("id-0", "id-1", "id-2");
  }

  @Test
  void negativeDelay_isRefused() {
    assertThatThrownBy(() -> fx.emulator.faults().delayDeliveries(Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void delaysWithSpread_areDrawnForEachDeliveryAndAnswerAroundTheirMeans() {
    Faults faults = fx.emulator.faults();
    faults.delayDeliveries(Duration.ofMillis(10), 0.5);
    faults.delayDispositions(Duration.ofMillis(20), 0.25);

    long[] deliveries = new long[2_000];
    long[] answers = new long[2_000];
    for (int i = 0; i < deliveries.length; i++) {
      deliveries[i] = faults.nextDeliveryDelayNanos();
      answers[i] = faults.nextDispositionDelayNanos();
    }

    assertThat(java.util.Arrays.stream(deliveries).boxed())
        .allSatisfy(n -> assertThat(n).isBetween(5_000_000L, 15_000_000L));
    assertThat(java.util.Arrays.stream(answers).boxed())
        .allSatisfy(n -> assertThat(n).isBetween(15_000_000L, 25_000_000L));
    assertThat(java.util.Arrays.stream(deliveries).average().orElseThrow())
        .isCloseTo(10_000_000, org.assertj.core.data.Offset.offset(500_000.0));
    assertThat(java.util.Arrays.stream(deliveries).min().orElseThrow()).isLessThan(6_000_000);
    assertThat(java.util.Arrays.stream(deliveries).max().orElseThrow()).isGreaterThan(14_000_000);
    faults.clear();
    assertThat(faults.nextDeliveryDelayNanos()).isZero();
    assertThat(faults.nextDispositionDelayNanos()).isZero();
  }

  @Test
  void deliveryDelayWithSpread_holdsEachReceiveBackForItsOwnDrawWithinTheSpread() {
    ServiceBusSenderClient sender = fx.sender("orders");
    for (int i = 0; i < 8; i++) {
      sender.sendMessage(new ServiceBusMessage("m-" + i).setMessageId("id-" + i));
    }
    ServiceBusReceiverClient receiver = fx.receiver("orders");
    fx.emulator.faults().delayDeliveries(Duration.ofMillis(200), 0.5);

    List<Long> millis = new ArrayList<>();
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      long start = System.nanoTime();
      ServiceBusReceivedMessage received = EmulatorFixture.receive(receiver, 1).get(0);
      millis.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
      ids.add(received.getMessageId());
      receiver.complete(received);
    }

    assertThat(ids).hasSize(8).doesNotHaveDuplicates();
    // each at least its draw's lowest value (100 ms); the upper end leaves room for a slow machine
    assertThat(millis).allSatisfy(ms -> assertThat(ms).isBetween(100L, 2_000L));
    // eight draws from 100-300 ms all within 30 ms of each other: odds of about 1 in 80,000
    assertThat(
            millis.stream().mapToLong(Long::longValue).max().orElseThrow()
                - millis.stream().mapToLong(Long::longValue).min().orElseThrow())
        .isGreaterThan(30);
  }

  @Test
  void spreadOutsideZeroToOne_isRefused() {
    assertThatThrownBy(() -> fx.emulator.faults().delayDeliveries(Duration.ofMillis(1), 1.5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("spread");
    assertThatThrownBy(() -> fx.emulator.faults().delayDispositions(Duration.ofMillis(1), -0.5))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
