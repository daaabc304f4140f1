package io.idemworker.emulator.servicebus;

import java.time.Clock;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The namespace: queues and topics by case-insensitive name. Queues and subscriptions each have a
 * dead-letter subqueue. Thread-safe; creation is serialised so that a queue and a topic never share
 * a name.
 */
final class Broker {
  static final String DEAD_LETTER_SUFFIX = "/$deadletterqueue";
  static final String TRANSFER_DEAD_LETTER_SUFFIX = "/$transfer/$deadletterqueue";
  static final String MANAGEMENT_SUFFIX = "/$management";
  static final String SUBSCRIPTIONS_SEGMENT = "/Subscriptions/";

  /**
   * A queue or subscription with its subqueues. The transfer dead-letter subqueue holds what
   * auto-forwarding fails to deliver; without auto-forwarding it stays empty, but it is served.
   */
  record Queue(EntityStore main, EntityStore deadLetter, EntityStore transferDeadLetter) {
    Queue(EntityStore main, EntityStore deadLetter) {
      this(
          main,
          deadLetter,
          new EntityStore(
              main.path() + TRANSFER_DEAD_LETTER_SUFFIX,
              main.settings().withRequiresSession(false),
              main.clock(),
              new AtomicLong(),
              null));
    }
  }

  private final Clock clock;
  private final Map<String, Queue> queues = new ConcurrentHashMap<>();
  private final Map<String, Topic> topics = new ConcurrentHashMap<>();

  /** Subscriptions by {@code topic/subscriptions/name}, lower case: a queue fed by its topic. */
  private final Map<String, Queue> subscriptions = new ConcurrentHashMap<>();

  Broker(Clock clock) {
    this.clock = clock;
  }

  Clock clock() {
    return clock;
  }

  /**
   * Creates a queue unless one of that name exists; returns whether it was created.
   *
   * @throws IllegalArgumentException when a topic or a subscription path has that name
   */
  synchronized boolean createQueue(QueueSettings settings) {
    String key = settings.name().toLowerCase(Locale.ROOT);
    if (queues.containsKey(key)) {
      return false;
    }
    if (topics.containsKey(key) || subscriptions.containsKey(key)) {
      throw new IllegalArgumentException(
          "cannot create queue " + settings.name() + ": a topic or subscription has that name");
    }
    AtomicLong sequence = new AtomicLong();
    // A dead-letter subqueue is never session-aware: any receiver reads it.
    EntityStore dlq =
        new EntityStore(
            settings.name() + DEAD_LETTER_SUFFIX,
            settings.withRequiresSession(false),
            clock,
            sequence,
            null);
    queues.put(
        key, new Queue(new EntityStore(settings.name(), settings, clock, sequence, dlq), dlq));
    return true;
  }

  /**
   * Creates a topic with its subscriptions unless one of that name exists; returns whether it was
   * created.
   *
   * @throws IllegalArgumentException when a queue has its name or the path of one of its
   *     subscriptions
   */
  synchronized boolean createTopic(TopicSettings settings) {
    String key = settings.name().toLowerCase(Locale.ROOT);
    if (topics.containsKey(key)) {
      return false;
    }
    if (queues.containsKey(key)) {
      throw new IllegalArgumentException(
          "cannot create topic " + settings.name() + ": a queue has that name");
    }
    Topic topic = new Topic(settings, clock);
    for (Topic.Subscription s : topic.subscriptions()) {
      if (queues.containsKey(s.main().path().toLowerCase(Locale.ROOT))) {
        throw new IllegalArgumentException(
            "cannot create topic " + settings.name() + ": a queue is named " + s.main().path());
      }
    }
    for (Topic.Subscription s : topic.subscriptions()) {
      subscriptions.put(
          s.main().path().toLowerCase(Locale.ROOT), new Queue(s.main(), s.deadLetter()));
    }
    topics.put(key, topic);
    return true;
  }

  /** The queue of that name (case-insensitive). */
  Optional<Queue> queue(String name) {
    return Optional.ofNullable(queues.get(name.toLowerCase(Locale.ROOT)));
  }

  /** The queues, in no particular order. */
  List<Queue> queues() {
    return List.copyOf(queues.values());
  }

  /** The topics, in no particular order. */
  List<Topic> topics() {
    return List.copyOf(topics.values());
  }

  /** The stores of a subscription ({@code topic/Subscriptions/name}), case-insensitive. */
  Optional<Queue> subscriptionStores(String path) {
    return Optional.ofNullable(subscriptions.get(normalise(path)));
  }

  /**
   * Removes a queue with its subqueues; returns whether there was one. Links attached to it keep
   * their stores until they end; new ones are refused.
   */
  synchronized Optional<Queue> deleteQueue(String name) {
    return Optional.ofNullable(queues.remove(name.toLowerCase(Locale.ROOT)));
  }

  /** Removes a topic with its subscriptions; returns it, or empty when there was none. */
  synchronized Optional<Topic> deleteTopic(String name) {
    Topic topic = topics.remove(name.toLowerCase(Locale.ROOT));
    if (topic != null) {
      for (Topic.Subscription s : topic.subscriptions()) {
        subscriptions.remove(s.main().path().toLowerCase(Locale.ROOT));
      }
    }
    return Optional.ofNullable(topic);
  }

  /**
   * Replaces a queue's settings, and its subqueues' likewise.
   *
   * @throws IllegalArgumentException when RequiresSession would change
   */
  synchronized void updateQueue(Queue queue, QueueSettings settings) {
    queue.main().updateSettings(settings);
    queue.deadLetter().updateSettings(settings.withRequiresSession(false));
    queue.transferDeadLetter().updateSettings(settings.withRequiresSession(false));
  }

  /**
   * Adds a subscription to a topic unless one of that name exists; returns whether it was added.
   *
   * @throws IllegalArgumentException when a queue has the subscription's path as its name
   */
  synchronized boolean createSubscription(Topic topic, SubscriptionSettings settings) {
    String path = topic.path() + SUBSCRIPTIONS_SEGMENT + settings.name();
    if (queues.containsKey(path.toLowerCase(Locale.ROOT))) {
      throw new IllegalArgumentException(
          "cannot create subscription " + settings.name() + ": a queue is named " + path);
    }
    Optional<Topic.Subscription> added = topic.addSubscription(settings);
    added.ifPresent(
        s ->
            subscriptions.put(
                s.main().path().toLowerCase(Locale.ROOT), new Queue(s.main(), s.deadLetter())));
    return added.isPresent();
  }

  /** Removes a subscription of a topic; returns whether there was one. */
  synchronized boolean deleteSubscription(Topic topic, String name) {
    Optional<Topic.Subscription> removed = topic.removeSubscription(name);
    removed.ifPresent(s -> subscriptions.remove(s.main().path().toLowerCase(Locale.ROOT)));
    return removed.isPresent();
  }

  /**
   * Resolves the target of a client's sender link: a queue or a topic (not a dead-letter subqueue
   * nor a subscription, which clients cannot send to).
   */
  Optional<MessageSink> resolveSink(String address) {
    if (address == null) {
      return Optional.empty();
    }
    String path = normalise(address);
    Queue q = queues.get(path);
    if (q != null) {
      return Optional.of(q.main);
    }
    return Optional.ofNullable(topics.get(path));
  }

  /**
   * Resolves the address of an entity that holds messages: a queue ({@code orders}), a subscription
   * ({@code topic/Subscriptions/name}) or the dead-letter subqueue of either ({@code
   * .../$deadletterqueue}), optionally with a scheme and host ({@code amqp://host/orders});
   * case-insensitive; {@code .../$Transfer/$DeadLetterQueue} is the transfer dead-letter subqueue.
   * A topic holds no messages and does not resolve here.
   */
  Optional<EntityStore> resolve(String address) {
    if (address == null) {
      return Optional.empty();
    }
    String path = normalise(address);
    if (path.endsWith(TRANSFER_DEAD_LETTER_SUFFIX)) {
      String owner = path.substring(0, path.length() - TRANSFER_DEAD_LETTER_SUFFIX.length());
      Queue q = queues.containsKey(owner) ? queues.get(owner) : subscriptions.get(owner);
      return q == null ? Optional.empty() : Optional.of(q.transferDeadLetter);
    }
    boolean dlq = false;
    if (path.endsWith(DEAD_LETTER_SUFFIX)) {
      dlq = true;
      path = path.substring(0, path.length() - DEAD_LETTER_SUFFIX.length());
    }
    Queue q = queues.get(path);
    if (q == null) {
      q = subscriptions.get(path);
    }
    if (q == null) {
      return Optional.empty();
    }
    return Optional.of(dlq ? q.deadLetter : q.main);
  }

  /** Resolves a topic by name ({@code order-events}), as its management node's address names it. */
  Optional<Topic> resolveTopic(String address) {
    return address == null ? Optional.empty() : Optional.ofNullable(topics.get(normalise(address)));
  }

  /**
   * The normalised path of a queue or subscription.
   *
   * @throws IllegalArgumentException when there is none by that name
   */
  String requireQueueOrSubscription(String entity) {
    String path = normalise(entity);
    if (!queues.containsKey(path) && !subscriptions.containsKey(path)) {
      throw new IllegalArgumentException("no such queue or subscription: " + entity);
    }
    return path;
  }

  static String normalise(String address) {
    String path = address.trim();
    int scheme = path.indexOf("://");
    if (scheme >= 0) {
      int slash = path.indexOf('/', scheme + 3);
      path = slash < 0 ? "" : path.substring(slash + 1);
    }
    while (path.startsWith("/")) {
      path = path.substring(1);
    }
    while (path.endsWith("/")) {
      path = path.substring(0, path.length() - 1);
    }
    return path.toLowerCase(Locale.ROOT);
  }

  /** Applies time to every entity. */
  void sweep() {
    for (Map<String, Queue> entities : List.of(queues, subscriptions)) {
      for (Queue q : entities.values()) {
        q.main.sweep();
        q.deadLetter.sweep();
        q.transferDeadLetter.sweep();
      }
    }
  }

  /**
   * Fault injection: every lock held on the queue or subscription ({@code
   * topic/Subscriptions/name}) and its dead-letter subqueue expires now.
   */
  int loseLocks(String entity) {
    String path = normalise(entity);
    Queue q = queues.containsKey(path) ? queues.get(path) : subscriptions.get(path);
    if (q == null) {
      throw new IllegalArgumentException("no such queue or subscription: " + entity);
    }
    return q.main.loseLocks() + q.deadLetter.loseLocks();
  }
}
