package io.idemworker.proof.chaos;

import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusProcessorClient;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Receives everything a topic subscription gets and counts the copies of each message id: the chaos
 * run's view of what the relay published. A processor client, because it reconnects after the
 * connection drops the run injects; a message is counted when it is received, before it is
 * completed, so a copy whose completion failed (a lost lock) comes again and counts twice, which
 * only the "at least once" check reads. (A synchronous receiver's complete on a dropped link blocks
 * for minutes per message.)
 *
 * <p>Thread-safe.
 */
final class EventTap implements AutoCloseable {
  private final Map<String, Integer> received = new ConcurrentHashMap<>();
  private final ServiceBusProcessorClient processor;

  EventTap(String connectionString, String topic, String subscription) {
    processor =
        new ServiceBusClientBuilder()
            .connectionString(connectionString)
            .processor()
            .topicName(topic)
            .subscriptionName(subscription)
            .maxConcurrentCalls(4)
            .prefetchCount(100)
            .processMessage(
                context -> received.merge(context.getMessage().getMessageId(), 1, Integer::sum))
            .processError(context -> {})
            .buildProcessorClient();
    processor.start();
  }

  /** How many of {@code expected} have not arrived yet. */
  long missing(Collection<String> expected) {
    return expected.stream().filter(id -> !received.containsKey(id)).count();
  }

  /** A copy of message id → copies received. */
  Map<String, Integer> received() {
    return Map.copyOf(received);
  }

  /** Stops receiving; idempotent. */
  void stop() {
    processor.close();
  }

  @Override
  public void close() {
    stop();
  }
}
