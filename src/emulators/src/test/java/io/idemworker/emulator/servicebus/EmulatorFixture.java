package io.idemworker.emulator.servicebus;

import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusException;
import com.azure.messaging.servicebus.ServiceBusFailureReason;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusReceiverClient;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import com.azure.messaging.servicebus.models.ServiceBusReceiveMode;
import com.azure.messaging.servicebus.models.SubQueue;
import io.idemworker.testing.MutableClock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/** One emulator on a mutable clock plus the SDK clients a test opened; closes them all. */
final class EmulatorFixture implements AutoCloseable {
  final MutableClock clock = new MutableClock();
  final ServiceBusEmulator emulator;
  private final Deque<AutoCloseable> opened = new ArrayDeque<>();

  EmulatorFixture(QueueSettings... queues) {
    this(List.of(), queues);
  }

  EmulatorFixture(List<TopicSettings> topics, QueueSettings... queues) {
    ServiceBusEmulator.Builder b = ServiceBusEmulator.builder().clock(clock);
    for (QueueSettings q : queues) {
      b.queue(q);
    }
    topics.forEach(b::topic);
    emulator = b.start();
  }

  ServiceBusSenderClient topicSender(String topic) {
    ServiceBusSenderClient c = Clients.builder(emulator).sender().topicName(topic).buildClient();
    opened.push(c);
    return c;
  }

  /** A peek-lock subscription receiver without automatic lock renewal. */
  ServiceBusReceiverClient subscriptionReceiver(String topic, String subscription) {
    return keep(subscriptionBuilder(topic, subscription).buildClient());
  }

  ServiceBusReceiverClient subscriptionDeadLetterReceiver(String topic, String subscription) {
    return keep(
        subscriptionBuilder(topic, subscription)
            .subQueue(SubQueue.DEAD_LETTER_QUEUE)
            .buildClient());
  }

  ServiceBusReceiverClient subscriptionReceiveAndDeleteReceiver(String topic, String subscription) {
    return keep(
        subscriptionBuilder(topic, subscription)
            .receiveMode(ServiceBusReceiveMode.RECEIVE_AND_DELETE)
            .buildClient());
  }

  private ServiceBusClientBuilder.ServiceBusReceiverClientBuilder subscriptionBuilder(
      String topic, String subscription) {
    return Clients.builder(emulator)
        .receiver()
        .topicName(topic)
        .subscriptionName(subscription)
        .disableAutoComplete()
        .maxAutoLockRenewDuration(Duration.ZERO);
  }

  private ServiceBusReceiverClient keep(ServiceBusReceiverClient c) {
    opened.push(c);
    return c;
  }

  ServiceBusSenderClient sender(String queue) {
    ServiceBusSenderClient c = Clients.builder(emulator).sender().queueName(queue).buildClient();
    opened.push(c);
    return c;
  }

  /** A peek-lock receiver without automatic lock renewal, so that locks expire when told. */
  ServiceBusReceiverClient receiver(String queue) {
    ServiceBusReceiverClient c =
        Clients.builder(emulator)
            .receiver()
            .queueName(queue)
            .disableAutoComplete()
            .maxAutoLockRenewDuration(Duration.ZERO)
            .buildClient();
    opened.push(c);
    return c;
  }

  ServiceBusReceiverClient receiveAndDeleteReceiver(String queue) {
    ServiceBusReceiverClient c =
        Clients.builder(emulator)
            .receiver()
            .queueName(queue)
            .receiveMode(ServiceBusReceiveMode.RECEIVE_AND_DELETE)
            .buildClient();
    opened.push(c);
    return c;
  }

  ServiceBusReceiverClient deadLetterReceiver(String queue) {
    return subQueueReceiver(queue, SubQueue.DEAD_LETTER_QUEUE);
  }

  /** A peek-lock receiver of one of the queue's subqueues, without automatic lock renewal. */
  ServiceBusReceiverClient subQueueReceiver(String queue, SubQueue subQueue) {
    ServiceBusReceiverClient c =
        Clients.builder(emulator)
            .receiver()
            .queueName(queue)
            .subQueue(subQueue)
            .disableAutoComplete()
            .maxAutoLockRenewDuration(Duration.ZERO)
            .buildClient();
    opened.push(c);
    return c;
  }

  /** Receives until {@code n} messages arrived or 20 s passed; returns what arrived. */
  static List<ServiceBusReceivedMessage> receive(ServiceBusReceiverClient r, int n) {
    List<ServiceBusReceivedMessage> out = new ArrayList<>();
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (out.size() < n && System.nanoTime() < deadline) {
      r.receiveMessages(n - out.size(), Duration.ofSeconds(5)).forEach(out::add);
    }
    return out;
  }

  /** The Service Bus failure reason in a throwable's cause chain, if any. */
  static ServiceBusFailureReason reason(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof ServiceBusException e) {
        return e.getReason();
      }
    }
    return null;
  }

  /** Moves the emulator's clock and applies the new time at once. */
  void advance(Duration d) {
    clock.advance(d);
    emulator.evaluateExpiries();
  }

  @Override
  public void close() {
    while (!opened.isEmpty()) {
      try {
        opened.pop().close();
      } catch (Exception e) {
        // closing a client whose connection was dropped may fail; the emulator closes anyway
      }
    }
    emulator.close();
  }
}
