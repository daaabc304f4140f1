package io.idemworker.proof;

import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusReceiverClient;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Receives everything a topic subscription gets, on a thread of its own, and counts the copies of
 * each message id: the chaos run's view of what the relay published. A failed receive or complete
 * (a dropped connection, a lost lock) is retried with a new receiver; a message completed twice
 * because its lock was lost counts twice, which only the "at least once" check reads.
 *
 * <p>Thread-safe.
 */
final class EventTap implements AutoCloseable {
  private final Map<String, Integer> received = new ConcurrentHashMap<>();
  private final Thread thread;
  private volatile boolean stop;

  EventTap(String connectionString, String topic, String subscription) {
    thread =
        new Thread(
            () -> {
              while (!stop) {
                try (ServiceBusReceiverClient receiver =
                    new ServiceBusClientBuilder()
                        .connectionString(connectionString)
                        .receiver()
                        .topicName(topic)
                        .subscriptionName(subscription)
                        .buildClient()) {
                  while (!stop) {
                    for (ServiceBusReceivedMessage m :
                        receiver.receiveMessages(200, Duration.ofMillis(500))) {
                      receiver.complete(m);
                      received.merge(m.getMessageId(), 1, Integer::sum);
                    }
                  }
                } catch (RuntimeException e) {
                  // A dropped connection or lost lock; the next receiver carries on.
                }
              }
            },
            "chaos-event-tap");
    thread.setDaemon(true);
    thread.start();
  }

  /** How many of {@code expected} have not arrived yet. */
  long missing(Collection<String> expected) {
    return expected.stream().filter(id -> !received.containsKey(id)).count();
  }

  /** A copy of message id → copies received. */
  Map<String, Integer> received() {
    return Map.copyOf(received);
  }

  /** Stops receiving and waits for the thread to end; idempotent. */
  void stop() {
    stop = true;
    try {
      thread.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    stop();
  }
}
