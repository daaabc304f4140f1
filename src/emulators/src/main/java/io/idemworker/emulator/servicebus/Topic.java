package io.idemworker.emulator.servicebus;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.qpid.proton.message.Message;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A topic: numbers each message, drops duplicates inside its window, and copies the message into
 * every subscription whose rules match. Each subscription is an {@link EntityStore} with its own
 * dead-letter subqueue, so copies are settled independently.
 *
 * <p>Thread-safe: {@link #send} holds this topic's monitor and then a subscription's, never the
 * other way round, so every subscription sees the topic's messages in one order and one copy of a
 * message has the same sequence number in every subscription, as in Service Bus.
 */
final class Topic implements MessageSink {
  private static final Logger LOG = LoggerFactory.getLogger(Topic.class);

  /** One subscription: its settings and its stores. */
  record Subscription(SubscriptionSettings settings, EntityStore main, EntityStore deadLetter) {
    boolean matches(Message m) {
      for (SubscriptionRule rule : settings.effectiveRules()) {
        if (matches(rule.filter(), m)) {
          return true;
        }
      }
      return false;
    }

    private static boolean matches(RuleFilter filter, Message m) {
      if (filter instanceof CorrelationFilter c) {
        return c.matches(m);
      }
      return ((SqlFilter) filter).matches(m);
    }
  }

  private final TopicSettings settings;
  private final Clock clock;
  private final AtomicLong sequence = new AtomicLong();
  private final DuplicateWindow seenIds;
  private final List<Subscription> subscriptions;

  Topic(TopicSettings settings, Clock clock) {
    this.settings = settings;
    this.clock = clock;
    this.seenIds = new DuplicateWindow(settings.duplicateDetectionHistoryTimeWindow());
    List<Subscription> subs = new ArrayList<>();
    for (SubscriptionSettings s : settings.subscriptions()) {
      QueueSettings asQueue = storeSettings(settings, s);
      // Sequence numbers come from the topic; the subscription's own counter is only used by a
      // schedule-message sent to the subscription, which Service Bus does not offer.
      AtomicLong own = new AtomicLong();
      EntityStore dlq =
          new EntityStore(
              asQueue.name() + Broker.DEAD_LETTER_SUFFIX,
              asQueue.withRequiresSession(false),
              clock,
              own,
              null);
      subs.add(new Subscription(s, new EntityStore(asQueue.name(), asQueue, clock, own, dlq), dlq));
    }
    this.subscriptions = List.copyOf(subs);
  }

  /** The queue behaviour of a subscription: its own lock, deliveries and expiry; no dedup. */
  private static QueueSettings storeSettings(TopicSettings topic, SubscriptionSettings s) {
    Duration ttl =
        topic.defaultMessageTimeToLive().compareTo(s.defaultMessageTimeToLive()) < 0
            ? topic.defaultMessageTimeToLive()
            : s.defaultMessageTimeToLive();
    return new QueueSettings(
        topic.subscriptionPath(s),
        s.lockDuration(),
        s.maxDeliveryCount(),
        false,
        topic.duplicateDetectionHistoryTimeWindow(),
        ttl,
        s.deadLetteringOnMessageExpiration(),
        s.requiresSession());
  }

  @Override
  public String path() {
    return settings.name();
  }

  TopicSettings settings() {
    return settings;
  }

  List<Subscription> subscriptions() {
    return subscriptions;
  }

  @Override
  public synchronized long[] send(List<Message> messages) {
    Instant now = clock.instant();
    long[] seqs = new long[messages.size()];
    int n = 0;
    for (Message m : messages) {
      MessageCodec.ensureMessageId(m);
      if (settings.requiresDuplicateDetection()
          && seenIds.isDuplicate(m.getMessageId().toString(), now)) {
        LOG.debug("{}: duplicate message-id {} dropped", settings.name(), m.getMessageId());
        continue;
      }
      long seq = sequence.incrementAndGet();
      seqs[n++] = seq;
      int copies = 0;
      for (Subscription s : subscriptions) {
        if (s.matches(m)) {
          s.main.enqueueFromTopic(MessageCodec.copy(m), seq);
          copies++;
        }
      }
      if (copies == 0) {
        LOG.debug(
            "{}: message-id {} matched no subscription and was dropped",
            settings.name(),
            m.getMessageId());
      }
    }
    return n == seqs.length ? seqs : Arrays.copyOf(seqs, n);
  }

  /**
   * Schedules messages sent to the topic's management node ({@code schedule-message}): each gets a
   * topic sequence number and is scheduled, by its {@code x-opt-scheduled-enqueue-time}, in every
   * subscription whose rules match. Duplicate detection does not apply, as for a queue's schedule.
   *
   * @return one sequence number per message, in order
   */
  synchronized long[] schedule(List<Message> messages) {
    long[] seqs = new long[messages.size()];
    for (int i = 0; i < messages.size(); i++) {
      Message m = messages.get(i);
      MessageCodec.ensureMessageId(m);
      seqs[i] = sequence.incrementAndGet();
      for (Subscription s : subscriptions) {
        if (s.matches(m)) {
          s.main.enqueueFromTopic(MessageCodec.copy(m), seqs[i]);
        }
      }
    }
    return seqs;
  }

  /**
   * Cancels scheduled messages by topic sequence number in every subscription; unknown or already
   * enqueued numbers are ignored.
   */
  synchronized void cancelScheduled(long[] sequenceNumbers) {
    for (Subscription s : subscriptions) {
      s.main.cancelScheduled(sequenceNumbers);
    }
  }
}
