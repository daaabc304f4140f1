package io.idemworker.servicebus.internal;

import com.azure.messaging.servicebus.ServiceBusException;
import com.azure.messaging.servicebus.ServiceBusFailureReason;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusReceiverClient;
import com.azure.messaging.servicebus.models.ServiceBusReceiveMode;
import com.azure.messaging.servicebus.models.SubQueue;
import io.idemworker.servicebus.ServiceBusConnection;
import io.idemworker.servicebus.sending.MessageIds;
import io.idemworker.servicebus.sending.Outgoing;
import io.idemworker.servicebus.sending.ProducerStamps;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * How a dead-lettered message is read and copied back, shared by the resubmitter and by the release
 * of a parked session: a peek-lock receiver of the dead-letter queue, the copy to send, and giving
 * skipped messages back by lock token.
 */
public final class DeadLetterCopies {
  private static final Set<String> DEAD_LETTER_PROPERTIES =
      Set.of("DeadLetterReason", "DeadLetterErrorDescription");

  /** The application property carrying a message's first enqueue time across resubmissions. */
  public static final String FIRST_ENQUEUED_PROPERTY = "idemworker-first-enqueued-at";

  private DeadLetterCopies() {}

  /** A peek-lock receiver of a queue's dead-letter queue, settling only when told. */
  public static ServiceBusReceiverClient deadLetterReceiver(
      ServiceBusConnection connection, String queue) {
    return connection
        .builder()
        .receiver()
        .queueName(queue)
        .subQueue(SubQueue.DEAD_LETTER_QUEUE)
        .receiveMode(ServiceBusReceiveMode.PEEK_LOCK)
        .disableAutoComplete()
        .buildClient();
  }

  /**
   * Abandons dead-lettered messages by lock token, once the link that received them is closed,
   * through a receiver that never receives (the SDK then settles through the management node); a
   * lock that ran out meanwhile is skipped (the message is back already). Shared with {@code
   * ParkedSessions}, whose release reads the dead-letter queue the same way.
   */
  public static void abandonByLockToken(
      ServiceBusConnection connection, String queue, List<ServiceBusReceivedMessage> messages) {
    if (messages.isEmpty()) {
      return;
    }
    try (ServiceBusReceiverClient settler = deadLetterReceiver(connection, queue)) {
      for (ServiceBusReceivedMessage message : messages) {
        try {
          settler.abandon(message);
        } catch (ServiceBusException e) {
          if (e.getReason() != ServiceBusFailureReason.MESSAGE_LOCK_LOST) {
            throw e;
          }
        }
      }
    }
  }

  /**
   * The copy to send: the received message's MessageId ({@link MessageIds.Rule#ASSIGNED_ONCE}: it
   * was enqueued with it), body, content type, subject, correlation id, session id and application
   * properties, less the dead-letter ones, plus {@value #FIRST_ENQUEUED_PROPERTY}.
   *
   * @throws IllegalArgumentException when it has no MessageId or no Subject, naming the field
   */
  public static Outgoing copyOf(ServiceBusReceivedMessage received) {
    Map<String, Object> properties = new HashMap<>(received.getApplicationProperties());
    DEAD_LETTER_PROPERTIES.forEach(properties::remove);
    properties.remove(ProducerStamps.SEND_ATTEMPT);
    properties.put(FIRST_ENQUEUED_PROPERTY, firstEnqueued(received).toString());
    return new Outgoing(
        MessageIds.Rule.ASSIGNED_ONCE,
        received.getMessageId(),
        received.getSubject(),
        Optional.ofNullable(received.getContentType()),
        received.getBody().toBytes(),
        Optional.ofNullable(received.getCorrelationId()),
        Optional.ofNullable(received.getSessionId()),
        properties);
  }

  /** The producer's attempt the copy keeps: as stamped on the original, 1 when unstamped. */
  public static int attempt(ServiceBusReceivedMessage received) {
    int stamped =
        Deliveries.producerAttempt(
            received.getApplicationProperties().get(ProducerStamps.SEND_ATTEMPT));
    return Math.max(1, stamped);
  }

  public static Instant firstEnqueued(ServiceBusReceivedMessage message) {
    Object stamped = message.getApplicationProperties().get(FIRST_ENQUEUED_PROPERTY);
    if (stamped != null) {
      try {
        return Instant.parse(stamped.toString());
      } catch (DateTimeParseException e) {
        // Not ours after all: fall back to the broker's time.
      }
    }
    return message.getEnqueuedTime().toInstant();
  }
}
