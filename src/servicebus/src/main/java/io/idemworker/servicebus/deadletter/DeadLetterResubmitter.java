package io.idemworker.servicebus.deadletter;

import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusReceiverClient;
import io.idemworker.servicebus.ServiceBusConnection;
import io.idemworker.servicebus.internal.DeadLetterCopies;
import io.idemworker.servicebus.sending.MessageIds;
import io.idemworker.servicebus.sending.Outgoing;
import io.idemworker.servicebus.sending.ProducerKit;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Moves messages from a queue's dead-letter queue back to the queue, unchanged: same MessageId,
 * body, content type, subject, correlation id and application properties, minus the dead-letter
 * reason and description. Because the MessageId is the idempotency key, resubmitting is safe: an
 * entity that was created meanwhile is completed as a duplicate, never created twice.
 *
 * <p>Each message is sent first and completed in the dead-letter queue only after the send
 * succeeded, so a crash in between leaves a copy in both places (which the worker absorbs), never
 * in neither. Mind the queue's duplicate-detection window: the broker silently drops a resubmission
 * of a message first sent less than that long ago.
 *
 * <p><b>One send per MessageId per run.</b> A resubmitted message that the worker refuses again (a
 * reused key, a target that still does not exist) is back in the dead-letter queue within
 * milliseconds, under the same MessageId, and would be received again by the same run. Sent a
 * second time inside the duplicate-detection window, the broker drops it without a word while the
 * dead-letter copy is completed: the message would be gone from both places. So a message whose
 * MessageId this run has already sent is skipped (left in the dead-letter queue and listed with
 * why); a later run may send it again.
 *
 * <p><b>Marker horizon.</b> A message type protected by an inbox marker is safe to resubmit only
 * while its marker can still exist: a copy that arrives after the marker expired would apply its
 * effect a second time. So such a message whose first enqueue is older than the marker TTL is
 * refused (left in the dead-letter queue and listed) unless forced. The first enqueue time travels
 * with every resubmission in the application property {@value #FIRST_ENQUEUED_PROPERTY}, so a
 * message resubmitted twice is judged by its first send, not its latest.
 *
 * <p><b>Through the producer kit.</b> Copies go out through {@link ProducerKit} under their own
 * MessageId ({@link MessageIds.Rule#ASSIGNED_ONCE}) and the producer's attempt they carried (1 when
 * unstamped); a message without MessageId or Subject is refused (left and listed): the worker would
 * dead-letter it again.
 *
 * <p>Not thread-safe; one resubmission at a time.
 */
public final class DeadLetterResubmitter {
  /** The application property carrying a message's first enqueue time across resubmissions. */
  public static final String FIRST_ENQUEUED_PROPERTY = DeadLetterCopies.FIRST_ENQUEUED_PROPERTY;

  private final ServiceBusConnection connection;
  private final String queue;
  private final MarkerHorizon horizon;

  /**
   * Creates a resubmitter for a queue without marker-protected message types.
   *
   * @param connection the namespace
   * @param queue the queue whose dead-letter queue is emptied into it
   */
  public DeadLetterResubmitter(ServiceBusConnection connection, String queue) {
    this(connection, queue, MarkerHorizon.NONE);
  }

  /**
   * Creates the resubmitter.
   *
   * @param connection the namespace
   * @param queue the queue whose dead-letter queue is emptied into it
   * @param horizon which messages a marker protects and how long markers live
   */
  public DeadLetterResubmitter(
      ServiceBusConnection connection, String queue, MarkerHorizon horizon) {
    this.connection = Objects.requireNonNull(connection, "connection");
    this.queue = Objects.requireNonNull(queue, "queue");
    this.horizon = Objects.requireNonNull(horizon, "horizon");
  }

  /**
   * Which messages are protected by an inbox marker, and how long markers live.
   *
   * @param markerProtected tells from a Subject whether the type is marker-protected
   * @param markerTtl the markers' TTL; empty = markers never expire
   * @param clock now, to age messages
   * @param force resubmit messages past the horizon anyway (with a warning)
   */
  public record MarkerHorizon(
      Predicate<String> markerProtected, Optional<Duration> markerTtl, Clock clock, boolean force) {
    /** No marker-protected types. */
    public static final MarkerHorizon NONE =
        new MarkerHorizon(subject -> false, Optional.empty(), Clock.systemUTC(), false);

    /** Requires every component. */
    public MarkerHorizon {
      Objects.requireNonNull(markerProtected, "markerProtected");
      Objects.requireNonNull(markerTtl, "markerTtl");
      Objects.requireNonNull(clock, "clock");
    }

    /** Empty when the message may go back; otherwise why its marker may be gone. */
    Optional<String> expired(ServiceBusReceivedMessage message) {
      if (markerTtl.isEmpty() || !markerProtected.test(message.getSubject())) {
        return Optional.empty();
      }
      Instant first = DeadLetterCopies.firstEnqueued(message);
      Duration age = Duration.between(first, clock.instant());
      if (age.compareTo(markerTtl.get()) <= 0) {
        return Optional.empty();
      }
      return Optional.of(
          "it was first enqueued "
              + first
              + ", "
              + age.toDays()
              + " days ago: older than the inbox marker TTL "
              + markerTtl.get()
              + ", so its marker may have expired and a copy could apply twice");
    }
  }

  /**
   * What happened to one dead-lettered message.
   *
   * @param messageId its MessageId
   * @param reason its dead-letter reason
   * @param resubmitted whether it was sent back (false when filtered out, refused or in a dry run)
   * @param refusal why a selected message was refused, or why a forced one was risky
   */
  public record Entry(
      String messageId, String reason, boolean resubmitted, Optional<String> refusal) {}

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
    List<ServiceBusReceivedMessage> skipped = new ArrayList<>();
    try (ServiceBusReceiverClient receiver = deadLetterReceiver();
        ProducerKit sender =
            new ProducerKit(connection.builder().sender().queueName(queue).buildClient())) {
      Set<String> sent = new HashSet<>();
      Set<Long> seen = new HashSet<>();
      while (entries.size() < max) {
        List<ServiceBusReceivedMessage> batch = new ArrayList<>();
        receiver.receiveMessages(Math.min(100, max - entries.size()), wait).forEach(batch::add);
        if (batch.isEmpty()) {
          break;
        }
        for (ServiceBusReceivedMessage message : batch) {
          if (!seen.add(message.getSequenceNumber())) {
            // A skipped message whose lock expired while the run went on: listed already.
            skipped.add(message);
            continue;
          }
          String reason = Optional.ofNullable(message.getDeadLetterReason()).orElse("");
          boolean selected = reasons.isEmpty() || reasons.contains(reason);
          Optional<String> refusal = selected ? horizon.expired(message) : Optional.<String>empty();
          Optional<Outgoing> copy = Optional.empty();
          if (selected) {
            try {
              copy = Optional.of(DeadLetterCopies.copyOf(message));
            } catch (IllegalArgumentException e) {
              refusal = Optional.of(e.getMessage() + "; the worker would dead-letter it again");
            }
          }
          boolean again = selected && sent.contains(message.getMessageId());
          if (again) {
            refusal =
                Optional.of(
                    "its MessageId was resubmitted earlier in this run (refused again, or a second"
                        + " copy): sent twice within the duplicate-detection window, the broker"
                        + " would drop it; left for a later run");
          }
          boolean send =
              selected
                  && !dryRun
                  && !again
                  && copy.isPresent()
                  && (refusal.isEmpty() || horizon.force());
          if (send) {
            sender.send(copy.get(), DeadLetterCopies.attempt(message));
            sent.add(message.getMessageId());
            receiver.complete(message);
          } else {
            skipped.add(message);
          }
          entries.add(new Entry(message.getMessageId(), reason, send, refusal));
        }
      }
    }
    abandonByLockToken(skipped);
    return entries;
  }

  private ServiceBusReceiverClient deadLetterReceiver() {
    return DeadLetterCopies.deadLetterReceiver(connection, queue);
  }

  /**
   * Gives the skipped messages back to the dead-letter queue, after the receive link is closed.
   * Abandoned while that link is open, a message could be delivered straight back to it (a
   * synchronous receiver's last, empty receive can leave credit on the link) and would then stay
   * locked for a whole LockDuration after the link closes, as locks outlive their link. So the link
   * is closed first, and a receiver that never receives (it has no link, so the SDK settles through
   * the management node by lock token) abandons them.
   */
  private void abandonByLockToken(List<ServiceBusReceivedMessage> skipped) {
    DeadLetterCopies.abandonByLockToken(connection, queue, skipped);
  }
}
