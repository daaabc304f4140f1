package io.idemworker.emulator.servicebus;

import java.time.Clock;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The namespace: queues by case-insensitive name, each with its dead-letter subqueue. Thread-safe.
 */
final class Broker {
  static final String DEAD_LETTER_SUFFIX = "/$deadletterqueue";
  static final String MANAGEMENT_SUFFIX = "/$management";

  private record Queue(EntityStore main, EntityStore deadLetter) {}

  private final Clock clock;
  private final Map<String, Queue> queues = new ConcurrentHashMap<>();

  Broker(Clock clock) {
    this.clock = clock;
  }

  Clock clock() {
    return clock;
  }

  /** Creates a queue unless one of that name exists; returns whether it was created. */
  boolean createQueue(QueueSettings settings) {
    String key = settings.name().toLowerCase(Locale.ROOT);
    boolean[] created = {false};
    queues.computeIfAbsent(
        key,
        k -> {
          created[0] = true;
          AtomicLong sequence = new AtomicLong();
          EntityStore dlq =
              new EntityStore(
                  settings.name() + DEAD_LETTER_SUFFIX, settings, clock, sequence, null);
          return new Queue(new EntityStore(settings.name(), settings, clock, sequence, dlq), dlq);
        });
    return created[0];
  }

  /**
   * Resolves an entity address: {@code orders}, {@code orders/$deadletterqueue}, optionally with a
   * scheme and host ({@code amqp://host/orders}); case-insensitive.
   */
  Optional<EntityStore> resolve(String address) {
    if (address == null) {
      return Optional.empty();
    }
    String path = normalise(address);
    boolean dlq = false;
    if (path.endsWith(DEAD_LETTER_SUFFIX)) {
      dlq = true;
      path = path.substring(0, path.length() - DEAD_LETTER_SUFFIX.length());
    }
    Queue q = queues.get(path);
    if (q == null) {
      return Optional.empty();
    }
    return Optional.of(dlq ? q.deadLetter : q.main);
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
    for (Queue q : queues.values()) {
      q.main.sweep();
      q.deadLetter.sweep();
    }
  }

  /** Fault injection: every lock held on the queue and its dead-letter subqueue expires now. */
  int loseLocks(String queue) {
    Queue q = queues.get(normalise(queue));
    if (q == null) {
      throw new IllegalArgumentException("no such queue: " + queue);
    }
    return q.main.loseLocks() + q.deadLetter.loseLocks();
  }
}
