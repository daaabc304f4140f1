package io.idemworker.servicebus;

import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusReceiverClient;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import com.azure.messaging.servicebus.models.ServiceBusReceiveMode;
import com.azure.messaging.servicebus.models.SubQueue;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Moves messages from a queue's dead-letter queue back to the queue, unchanged: same MessageId,
 * body, content type, subject, correlation id and application properties, minus the dead-letter
 * reason and description. Because the MessageId is the idempotency key, resubmitting is safe: an
 * order that was created meanwhile is completed as a duplicate, never created twice.
 *
 * <p>Each message is sent first and completed in the dead-letter queue only after the send
 * succeeded, so a crash in between leaves a copy in both places (which the worker absorbs), never
 * in neither. Mind the queue's duplicate-detection window: the broker silently drops a resubmission
 * of a message first sent less than that long ago.
 *
 * <p>Not thread-safe; one resubmission at a time.
 */
public final class DeadLetterResubmitter {
  private static final Set<String> DEAD_LETTER_PROPERTIES =
      Set.of("DeadLetterReason", "DeadLetterErrorDescription");

  private final ServiceBusConnection connection;
  private final String queue;

  /**
   * Creates the resubmitter.
   *
   * @param connection the namespace
   * @param queue the queue whose dead-letter queue is emptied into it
   */
  public DeadLetterResubmitter(ServiceBusConnection connection, String queue) {
    this.connection = Objects.requireNonNull(connection, "connection");
    this.queue = Objects.requireNonNull(queue, "queue");
  }

  /**
   * What happened to one dead-lettered message.
   *
   * @param messageId its MessageId
   * @param reason its dead-letter reason
   * @param resubmitted whether it was sent back (false when filtered out or in a dry run)
   */
  public record Entry(String messageId, String reason, boolean resubmitted) {}

  /**
   * Resubmits up to {@code max} dead-lettered messages whose reason is in {@code reasons} (all
   * reasons when empty).
   *
   * @param reasons the reason codes to resubmit; empty for all
   * @param max the most messages to look at
   * @param dryRun when true, only lists what would be resubmitted, changing nothing
   * @param wait how long to wait for more messages before concluding the queue is drained
   * @return one entry per message looked at
   */
  public List<Entry> resubmit(Set<String> reasons, int max, boolean dryRun, Duration wait) {
    if (max < 1) {
      throw new IllegalArgumentException("max must be at least 1, was " + max);
    }
    List<Entry> entries = new ArrayList<>();
    try (ServiceBusReceiverClient receiver =
            connection
                .builder()
                .receiver()
                .queueName(queue)
                .subQueue(SubQueue.DEAD_LETTER_QUEUE)
                .receiveMode(ServiceBusReceiveMode.PEEK_LOCK)
                .disableAutoComplete()
                .buildClient();
        ServiceBusSenderClient sender =
            connection.builder().sender().queueName(queue).buildClient()) {
      List<ServiceBusReceivedMessage> skipped = new ArrayList<>();
      while (entries.size() < max) {
        List<ServiceBusReceivedMessage> batch = new ArrayList<>();
        receiver.receiveMessages(Math.min(100, max - entries.size()), wait).forEach(batch::add);
        if (batch.isEmpty()) {
          break;
        }
        for (ServiceBusReceivedMessage message : batch) {
          String reason = Optional.ofNullable(message.getDeadLetterReason()).orElse("");
          boolean selected = reasons.isEmpty() || reasons.contains(reason);
          if (selected && !dryRun) {
            sender.sendMessage(copyOf(message));
            receiver.complete(message);
          } else {
            skipped.add(message);
          }
          entries.add(new Entry(message.getMessageId(), reason, selected && !dryRun));
        }
      }
      // Held until the end so that a skipped message is not received again in this run.
      skipped.forEach(receiver::abandon);
    }
    return entries;
  }

  static ServiceBusMessage copyOf(ServiceBusReceivedMessage received) {
    ServiceBusMessage copy = new ServiceBusMessage(received.getBody());
    copy.setMessageId(received.getMessageId());
    copy.setContentType(received.getContentType());
    copy.setSubject(received.getSubject());
    copy.setCorrelationId(received.getCorrelationId());
    Map<String, Object> properties = new HashMap<>(received.getApplicationProperties());
    DEAD_LETTER_PROPERTIES.forEach(properties::remove);
    copy.getApplicationProperties().putAll(properties);
    return copy;
  }
}
