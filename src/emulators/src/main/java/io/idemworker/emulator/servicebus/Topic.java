package io.idemworker.emulator.servicebus;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
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
 * message has the same sequence number in every subscription, as in Service Bus. Subscriptions,
 * their rules and the topic's settings change (administration API) under the same monitor, so a
 * message sees either the old or the new ones, never a mix.
 */
final class Topic implements MessageSink {
  private static final Logger LOG = LoggerFactory.getLogger(Topic.class);

  /** One rule of a subscription and when it was made. */
  record Rule(SubscriptionRule rule, Instant createdAt) {}

  /**
   * One subscription: its settings, its rules (the ones it was made with, or the {@code $Default}
   * true rule; an empty list matches nothing) and its stores.
   */
  static final class Subscription {
    private volatile SubscriptionSettings settings;
    private volatile List<Rule> rules;
    private final EntityStore main;
    private final EntityStore deadLetter;
    private final Instant createdAt;

    private Subscription(
        SubscriptionSettings settings, EntityStore main, EntityStore deadLetter, Instant now) {
      this.settings = settings;
      this.rules = settings.effectiveRules().stream().map(r -> new Rule(r, now)).toList();
      this.main = main;
      this.deadLetter = deadLetter;
      this.createdAt = now;
    }

    SubscriptionSettings settings() {
      return settings;
    }

    EntityStore main() {
      return main;
    }

    EntityStore deadLetter() {
      return deadLetter;
    }

    Instant createdAt() {
      return createdAt;
    }

    /** The rules in force, in the order they were added. */
    List<Rule> rules() {
      return rules;
    }

    boolean matches(Message m) {
      for (Rule rule : rules) {
        if (matches(rule.rule().filter(), m)) {
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

  private volatile TopicSettings settings;
  private final Clock clock;
  private final AtomicLong sequence = new AtomicLong();
  private final DuplicateWindow seenIds;
  private final List<Subscription> subscriptions = new CopyOnWriteArrayList<>();
  private final Instant createdAt;

  Topic(TopicSettings settings, Clock clock) {
    this.settings = settings;
    this.clock = clock;
    this.createdAt = clock.instant();
    this.seenIds = new DuplicateWindow(settings.duplicateDetectionHistoryTimeWindow());
    for (SubscriptionSettings s : settings.subscriptions()) {
      subscriptions.add(newSubscription(s));
    }
  }

  private Subscription newSubscription(SubscriptionSettings s) {
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
    return new Subscription(
        s, new EntityStore(asQueue.name(), asQueue, clock, own, dlq), dlq, clock.instant());
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

  Instant createdAt() {
    return createdAt;
  }

  /**
   * Adds a subscription unless one of that name exists (case-insensitive).
   *
   * @return the new subscription; empty when the name is taken
   */
  synchronized Optional<Subscription> addSubscription(SubscriptionSettings s) {
    if (subscription(s.name()).isPresent()) {
      return Optional.empty();
    }
    Subscription added = newSubscription(s);
    subscriptions.add(added);
    return Optional.of(added);
  }

  /** Removes a subscription; returns it, or empty when there is none of that name. */
  synchronized Optional<Subscription> removeSubscription(String name) {
    Optional<Subscription> found = subscription(name);
    found.ifPresent(subscriptions::remove);
    return found;
  }

  /** The subscription of that name, case-insensitive. */
  Optional<Subscription> subscription(String name) {
    for (Subscription s : subscriptions) {
      if (s.settings().name().equalsIgnoreCase(name)) {
        return Optional.of(s);
      }
    }
    return Optional.empty();
  }

  /**
   * Replaces a subscription's settings (its rules stay as they are).
   *
   * @throws IllegalArgumentException when RequiresSession would change
   */
  synchronized void updateSubscription(Subscription s, SubscriptionSettings updated) {
    if (updated.requiresSession() != s.settings().requiresSession()) {
      throw new IllegalArgumentException("RequiresSession of a subscription cannot be changed");
    }
    s.settings = updated;
    applyStoreSettings(s);
  }

  /** Replaces a subscription's rules. */
  synchronized void setRules(Subscription s, List<Rule> rules) {
    s.rules = List.copyOf(rules);
  }

  /**
   * Replaces the topic's own settings (its subscriptions stay as they are).
   *
   * @throws IllegalArgumentException when RequiresDuplicateDetection would change
   */
  synchronized void updateSettings(TopicSettings updated) {
    if (updated.requiresDuplicateDetection() != settings.requiresDuplicateDetection()) {
      throw new IllegalArgumentException("RequiresDuplicateDetection of a topic cannot be changed");
    }
    settings =
        new TopicSettings(
            settings.name(),
            updated.requiresDuplicateDetection(),
            updated.duplicateDetectionHistoryTimeWindow(),
            updated.defaultMessageTimeToLive(),
            List.of());
    seenIds.window(updated.duplicateDetectionHistoryTimeWindow());
    subscriptions.forEach(this::applyStoreSettings);
  }

  private void applyStoreSettings(Subscription s) {
    QueueSettings asQueue = storeSettings(settings, s.settings());
    s.main.updateSettings(asQueue);
    s.deadLetter.updateSettings(asQueue.withRequiresSession(false));
  }

  @Override
  public String path() {
    return settings.name();
  }

  TopicSettings settings() {
    return settings;
  }

  /** The subscriptions, in the order they were made; a snapshot. */
  List<Subscription> subscriptions() {
    return List.copyOf(subscriptions);
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
