package io.idemworker.orders;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.core.IdempotencyKey;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Inbox markers: the record that a consumer processed a message whose effect leaves no trace of its
 * own. {@code id} = {@code inbox:{consumer}:{key}}, in the partition of the document the effect
 * changed, committed in the same batch as the effect, with a {@code ttl} that must outlive every
 * way the message can come back (the worker checks that at start-up).
 *
 * @param consumer the consumer's name, part of every marker id so that consumers sharing a store
 *     each record their own completion
 * @param ttl how long a marker lives; empty = forever
 */
public record InboxMarkers(String consumer, Optional<Duration> ttl) {
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.\\-]{1,64}");

  /** The consumer name when none is configured. */
  public static final String DEFAULT_CONSUMER = "orders";

  /** Checks the name and the TTL. */
  public InboxMarkers {
    Objects.requireNonNull(consumer, "consumer");
    Objects.requireNonNull(ttl, "ttl");
    if (!NAME.matcher(consumer).matches()) {
      throw new IllegalArgumentException(
          "consumer name must be 1-64 letters, digits or -_. , was " + consumer);
    }
    ttl.ifPresent(
        t -> {
          if (t.getSeconds() < 1 || t.getSeconds() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(
                "marker TTL must be 1 second to " + Integer.MAX_VALUE + " seconds, was " + t);
          }
        });
  }

  /**
   * The marker id of a message.
   *
   * @param consumer the consumer
   * @param key the message's idempotency key
   * @return {@code inbox:{consumer}:{key}}
   */
  public static String id(String consumer, IdempotencyKey key) {
    return "inbox:" + consumer + ":" + key.value();
  }

  /**
   * The {@code ttl} a marker carries: seconds, or -1 (never expires; honoured only when the
   * container's TTL is on).
   *
   * @return the TTL field's value
   */
  public long ttlSeconds() {
    return ttl.map(Duration::getSeconds).orElse(-1L);
  }

  ObjectNode marker(String partitionKey, IdempotencyKey key, String messageType, Instant at) {
    ObjectNode marker = JsonNodeFactory.instance.objectNode();
    marker.put("id", id(consumer, key));
    marker.put("orderId", partitionKey);
    marker.put("type", "inbox");
    marker.put("consumer", consumer);
    marker.put("key", key.value());
    marker.put("messageType", messageType);
    marker.put("processedAt", at.toString());
    marker.put("ttl", ttlSeconds());
    return marker;
  }
}
