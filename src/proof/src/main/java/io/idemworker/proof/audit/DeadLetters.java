package io.idemworker.proof.audit;

import io.idemworker.proof.emulators.EventTopic;
import io.idemworker.servicebus.ServiceBusConnection;
import io.idemworker.servicebus.deadletter.DeadLetterReader;
import io.idemworker.servicebus.deadletter.DeadLetterReader.DeadLetter;
import java.util.ArrayList;
import java.util.List;

/**
 * What {@link StateAudit} reads of the dead-letter queues: the orders queue's and the topic
 * consumers' subscriptions', peeked (left where they are). Immutable.
 *
 * @param queue the orders queue's dead-letters
 * @param subscriptions the consumers' subscriptions' dead-letters, which must be empty
 */
public record DeadLetters(List<DeadLetter> queue, List<DeadLetter> subscriptions) {
  /** Copies both. */
  public DeadLetters {
    queue = List.copyOf(queue);
    subscriptions = List.copyOf(subscriptions);
  }

  /**
   * Peeks the queue's dead-letters and those of the subscriptions of {@link EventTopic#NAME} named
   * in {@link EventTopic#CONSUMERS}.
   *
   * @param connectionString the namespace's
   * @param queue the orders queue
   * @param max how many to read from the queue's at most
   * @throws RuntimeException whatever the reader throws when the broker cannot be read
   */
  public static DeadLetters peek(String connectionString, String queue, int max) {
    DeadLetterReader reader =
        new DeadLetterReader(new ServiceBusConnection.ConnectionString(connectionString));
    List<DeadLetter> subscriptions = new ArrayList<>();
    for (String role : EventTopic.CONSUMERS) {
      subscriptions.addAll(
          reader
              .peek(new DeadLetterReader.Subscription(EventTopic.NAME, role), 100_000)
              .messages());
    }
    return new DeadLetters(
        reader.peek(new DeadLetterReader.Queue(queue), max).messages(), subscriptions);
  }
}
