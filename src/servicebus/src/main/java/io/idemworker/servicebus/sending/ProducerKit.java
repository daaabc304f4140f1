package io.idemworker.servicebus.sending;

import com.azure.core.util.BinaryData;
import com.azure.messaging.servicebus.ServiceBusException;
import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import io.idemworker.servicebus.deadletter.DeadLetterResubmitter;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * The producer's half of the contract: sends {@link Outgoing} messages with the MessageId their
 * rule vouched for (so the broker's duplicate detection and the worker's key both recognise a
 * retry), and stamps every send with its attempt in the application property {@value
 * ProducerStamps#SEND_ATTEMPT} (1 on the first send of a message), so a duplicate the worker
 * catches says which attempt it came from ({@code resend}, producer attempt 2).
 *
 * <p>{@link #send(Outgoing)} retries a send that failed transiently (a lost acknowledgement, a
 * dropped link) up to {@code maxAttempts} times with the same MessageId and the next attempt
 * number; the broker may then hold the earlier attempt too, which its duplicate detection drops
 * inside its window and the worker completes as a duplicate outside it. A producer that keeps its
 * own retry count (an outbox with an attempt column, a job that restarts) passes it to {@link
 * #send(Outgoing, int)}. Tries inside the SDK's own retry policy carry the same attempt: the kit
 * counts the sends it made, not the SDK's.
 *
 * <p>{@code send} (the proof command), {@code dlq resubmit} ({@link DeadLetterResubmitter}) and the
 * outbox relay send through it. Thread-safe when the sender client is (it is).
 */
public final class ProducerKit implements AutoCloseable {
  /** How many sends {@link #send(Outgoing)} makes at most, by default. */
  public static final int DEFAULT_MAX_ATTEMPTS = 3;

  private final ServiceBusSenderClient client;
  private final Transport transport;
  private final UnaryOperator<String> wireId;
  private final int maxAttempts;

  /** Where messages go; the sender client, or a test's wrapper around it. */
  interface Transport {
    void send(List<ServiceBusMessage> messages);
  }

  /**
   * A kit over a sender client, which it closes.
   *
   * @param client a sender for one queue or topic
   */
  public ProducerKit(ServiceBusSenderClient client) {
    this(client, DEFAULT_MAX_ATTEMPTS);
  }

  /**
   * A kit over a sender client, which it closes.
   *
   * @param client a sender for one queue or topic
   * @param maxAttempts sends {@link #send(Outgoing)} makes at most (1-10)
   */
  public ProducerKit(ServiceBusSenderClient client, int maxAttempts) {
    this(
        Objects.requireNonNull(client, "client"),
        messages -> {
          if (messages.size() == 1) {
            client.sendMessage(messages.get(0));
          } else {
            client.sendMessages(messages);
          }
        },
        UnaryOperator.identity(),
        maxAttempts);
  }

  /**
   * The seam tests use: another transport (a lost acknowledgement), or another MessageId on the
   * wire (the mutation test's random ids).
   */
  ProducerKit(
      ServiceBusSenderClient client,
      Transport transport,
      UnaryOperator<String> wireId,
      int maxAttempts) {
    if (maxAttempts < 1 || maxAttempts > 10) {
      throw new IllegalArgumentException("maxAttempts must be 1-10, was " + maxAttempts);
    }
    this.client = client;
    this.transport = Objects.requireNonNull(transport, "transport");
    this.wireId = Objects.requireNonNull(wireId, "wireId");
    this.maxAttempts = maxAttempts;
  }

  /**
   * Sends one message, retrying a transient failure with the next attempt number.
   *
   * @param message the message
   * @return the attempt whose send the broker acknowledged (1 when the first did)
   * @throws ServiceBusException when a send fails permanently, or transiently on the last attempt
   */
  public int send(Outgoing message) {
    for (int attempt = 1; ; attempt++) {
      try {
        send(message, attempt);
        return attempt;
      } catch (ServiceBusException e) {
        if (!e.isTransient() || attempt >= maxAttempts) {
          throw e;
        }
      }
    }
  }

  /**
   * Sends one message once, stamped with an attempt the producer counted itself.
   *
   * @param message the message
   * @param attempt the producer's attempt, at least 1
   * @throws ServiceBusException when the send fails (not retried)
   */
  public void send(Outgoing message, int attempt) {
    transport.send(List.of(message(message, attempt)));
  }

  /**
   * Sends messages in one batch send (they must fit one batch), each stamped with the same attempt.
   *
   * @param messages the messages
   * @param attempt the producer's attempt, at least 1
   * @throws ServiceBusException when the send fails (not retried)
   */
  public void sendAll(List<Outgoing> messages, int attempt) {
    List<ServiceBusMessage> batch = new ArrayList<>(messages.size());
    messages.forEach(m -> batch.add(message(m, attempt)));
    if (!batch.isEmpty()) {
      transport.send(batch);
    }
  }

  /**
   * The Service Bus message the kit sends, for a caller that batches by size itself (the relay).
   *
   * @param message the message
   * @param attempt the producer's attempt, at least 1
   * @return the message: MessageId, Subject, ContentType, CorrelationId and SessionId when given,
   *     the application properties and {@value ProducerStamps#SEND_ATTEMPT}
   */
  public ServiceBusMessage message(Outgoing message, int attempt) {
    if (attempt < 1) {
      throw new IllegalArgumentException("attempt must be at least 1, was " + attempt);
    }
    ServiceBusMessage wire = new ServiceBusMessage(BinaryData.fromBytes(message.body()));
    wire.setMessageId(wireId.apply(message.messageId()));
    wire.setSubject(message.subject());
    message.contentType().ifPresent(wire::setContentType);
    message.correlationId().ifPresent(wire::setCorrelationId);
    message.sessionId().ifPresent(wire::setSessionId);
    wire.getApplicationProperties().putAll(message.properties());
    wire.getApplicationProperties().put(ProducerStamps.SEND_ATTEMPT, attempt);
    return wire;
  }

  /** Closes the sender client. */
  @Override
  public void close() {
    if (client != null) {
      client.close();
    }
  }
}
