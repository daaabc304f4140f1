package io.idemworker.servicebus.deadletter;

import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusReceiverClient;
import com.azure.messaging.servicebus.models.SubQueue;
import io.idemworker.servicebus.ServiceBusConnection;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Reads a queue's or a subscription's dead-letter queue by peeking: nothing is locked, settled or
 * changed, so it is safe while the worker runs and while another operator resubmits.
 *
 * <p>Peeking walks the dead-letter queue by sequence number from the start; it costs one management
 * round trip per 100 messages (the page size), so a look at a large dead-letter queue is bounded by
 * {@code max}. A message that arrives or leaves during the walk may or may not be seen.
 *
 * <p>Thread-safe: each call opens and closes its own receiver.
 */
public final class DeadLetterReader {
  private static final int PAGE = 100;

  private final ServiceBusConnection connection;

  /**
   * Creates the reader.
   *
   * @param connection the namespace
   */
  public DeadLetterReader(ServiceBusConnection connection) {
    this.connection = Objects.requireNonNull(connection, "connection");
  }

  /** A queue or a topic subscription, the two things that have a dead-letter queue. */
  public sealed interface Source {
    /**
     * The entity as operators write it: {@code inbound} or {@code events/audit}.
     *
     * @return the name
     */
    String label();

    /**
     * Parses {@code queue} or {@code topic/subscription}.
     *
     * @param text the name
     * @return the source
     * @throws IllegalArgumentException when a part is blank or there are more than two parts
     */
    static Source parse(String text) {
      Objects.requireNonNull(text, "text");
      String[] parts = text.strip().split("/", -1);
      if (parts.length == 1 && !parts[0].isBlank()) {
        return new Queue(parts[0]);
      }
      if (parts.length == 2 && !parts[0].isBlank() && !parts[1].isBlank()) {
        return new Subscription(parts[0], parts[1]);
      }
      throw new IllegalArgumentException(
          "an entity is a queue name or topic/subscription, was '" + text + "'");
    }
  }

  /**
   * A queue.
   *
   * @param name the queue's name
   */
  public record Queue(String name) implements Source {
    /** Requires a non-blank name. */
    public Queue {
      if (name == null || name.isBlank()) {
        throw new IllegalArgumentException("queue name must not be blank");
      }
    }

    @Override
    public String label() {
      return name;
    }
  }

  /**
   * A topic subscription.
   *
   * @param topic the topic
   * @param subscription the subscription
   */
  public record Subscription(String topic, String subscription) implements Source {
    /** Requires non-blank names. */
    public Subscription {
      if (topic == null || topic.isBlank() || subscription == null || subscription.isBlank()) {
        throw new IllegalArgumentException("topic and subscription names must not be blank");
      }
    }

    @Override
    public String label() {
      return topic + "/" + subscription;
    }
  }

  /**
   * One dead-lettered message, as peeked.
   *
   * @param source where it lies
   * @param sequenceNumber its sequence number in the dead-letter queue
   * @param messageId its MessageId (empty when the sender set none)
   * @param subject its Subject
   * @param correlationId its CorrelationId
   * @param reason its {@code DeadLetterReason} (empty string when absent)
   * @param description its {@code DeadLetterErrorDescription}
   * @param enqueuedAt when it was enqueued in the dead-letter queue
   * @param deliveryCount its delivery count
   * @param body the body's bytes; callers decide whether to show them
   */
  public record DeadLetter(
      Source source,
      long sequenceNumber,
      Optional<String> messageId,
      Optional<String> subject,
      Optional<String> correlationId,
      String reason,
      Optional<String> description,
      Instant enqueuedAt,
      long deliveryCount,
      byte[] body) {
    /** Requires every component. */
    public DeadLetter {
      Objects.requireNonNull(source, "source");
      Objects.requireNonNull(messageId, "messageId");
      Objects.requireNonNull(subject, "subject");
      Objects.requireNonNull(correlationId, "correlationId");
      Objects.requireNonNull(reason, "reason");
      Objects.requireNonNull(description, "description");
      Objects.requireNonNull(enqueuedAt, "enqueuedAt");
      body = Objects.requireNonNull(body, "body").clone();
    }

    /**
     * A copy of the body.
     *
     * @return the bytes
     */
    @Override
    public byte[] body() {
      return body.clone();
    }
  }

  /**
   * What a peek found.
   *
   * @param messages the messages, in sequence order
   * @param truncated whether {@code max} stopped the walk before the end
   */
  public record Peek(List<DeadLetter> messages, boolean truncated) {
    /** Copies the list. */
    public Peek {
      messages = List.copyOf(messages);
    }
  }

  /**
   * Peeks up to {@code max} messages of a dead-letter queue.
   *
   * @param source the queue or subscription
   * @param max the most messages to read, at least 1
   * @return the messages; an empty dead-letter queue gives an empty list
   * @throws IllegalArgumentException when max is below 1
   * @throws RuntimeException the SDK's exception when the entity does not exist or access is denied
   */
  public Peek peek(Source source, int max) {
    if (max < 1) {
      throw new IllegalArgumentException("max must be at least 1, was " + max);
    }
    List<DeadLetter> found = new ArrayList<>();
    try (ServiceBusReceiverClient receiver = receiver(source)) {
      long next = 0;
      while (found.size() < max) {
        List<ServiceBusReceivedMessage> page = new ArrayList<>();
        receiver.peekMessages(Math.min(PAGE, max - found.size()), next).forEach(page::add);
        if (page.isEmpty()) {
          return new Peek(found, false);
        }
        for (ServiceBusReceivedMessage message : page) {
          found.add(deadLetter(source, message));
          next = Math.max(next, message.getSequenceNumber() + 1);
        }
      }
      boolean more = receiver.peekMessages(1, next).iterator().hasNext();
      return new Peek(found, more);
    }
  }

  private ServiceBusReceiverClient receiver(Source source) {
    ServiceBusClientBuilder.ServiceBusReceiverClientBuilder builder =
        connection.builder().receiver().subQueue(SubQueue.DEAD_LETTER_QUEUE);
    if (source instanceof Subscription s) {
      builder.topicName(s.topic()).subscriptionName(s.subscription());
    } else {
      builder.queueName(((Queue) source).name());
    }
    return builder.buildClient();
  }

  private static DeadLetter deadLetter(Source source, ServiceBusReceivedMessage message) {
    return new DeadLetter(
        source,
        message.getSequenceNumber(),
        Optional.ofNullable(message.getMessageId()),
        Optional.ofNullable(message.getSubject()),
        Optional.ofNullable(message.getCorrelationId()),
        Optional.ofNullable(message.getDeadLetterReason()).orElse(""),
        Optional.ofNullable(message.getDeadLetterErrorDescription()),
        message.getEnqueuedTime().toInstant(),
        message.getDeliveryCount(),
        message.getBody().toBytes());
  }
}
