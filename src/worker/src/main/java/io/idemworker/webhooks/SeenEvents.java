package io.idemworker.webhooks;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The answers this receiver gave to verified events lately, by the SHA-256 of the body, so that a
 * copy of a body it has settled (a provider's redelivery, or a captured request replayed inside the
 * signature tolerance) is answered from memory: no store round trip, no INFO line. Only settled
 * answers are remembered for the whole tolerance (applied, a duplicate, refused for good); an event
 * for an order that has not arrived is remembered for a few seconds only, so it is applied soon
 * after its order. Memory is bounded: at most {@code capacity} bodies, expired ones dropped first;
 * when full of live ones, nothing more is remembered (every copy then takes the store's path, which
 * is correct, only slower). Thread-safe.
 */
final class SeenEvents {
  private record Seen(PaymentWebhookHandler.Reply reply, Instant until) {}

  private final Map<String, Seen> seen = new ConcurrentHashMap<>();
  private final Clock clock;
  private final Duration settledFor;
  private final Duration notYetFor;
  private final int capacity;

  /**
   * Creates an empty memory.
   *
   * @param clock decides expiry
   * @param settledFor how long a settled answer is remembered (the signature tolerance: an older
   *     signed copy is refused as expired before it gets here)
   * @param notYetFor how long an answer "the order has not arrived" is remembered
   * @param capacity the most bodies remembered
   */
  SeenEvents(Clock clock, Duration settledFor, Duration notYetFor, int capacity) {
    this.clock = Objects.requireNonNull(clock, "clock");
    this.settledFor = Objects.requireNonNull(settledFor, "settledFor");
    this.notYetFor = Objects.requireNonNull(notYetFor, "notYetFor");
    this.capacity = capacity;
  }

  /**
   * The answer remembered for this body, if any and not expired.
   *
   * @param body the verified body
   * @return the answer to give again
   */
  Optional<PaymentWebhookHandler.Reply> answerFor(byte[] body) {
    String key = digest(body);
    Seen entry = seen.get(key);
    if (entry == null) {
      return Optional.empty();
    }
    if (!clock.instant().isBefore(entry.until())) {
      seen.remove(key, entry);
      return Optional.empty();
    }
    return Optional.of(entry.reply());
  }

  /**
   * Remembers the answer a body got.
   *
   * @param body the verified body
   * @param reply what a later copy should get
   * @param settled true when the answer is final; false for "not yet" (remembered briefly)
   * @param retryAfter for "not yet", the {@code Retry-After} given: never remembered longer
   */
  void remember(
      byte[] body, PaymentWebhookHandler.Reply reply, boolean settled, Duration retryAfter) {
    Instant now = clock.instant();
    if (seen.size() >= capacity) {
      seen.values().removeIf(s -> !now.isBefore(s.until()));
      if (seen.size() >= capacity) {
        return;
      }
    }
    Duration keep =
        settled ? settledFor : (notYetFor.compareTo(retryAfter) < 0 ? notYetFor : retryAfter);
    seen.put(digest(body), new Seen(reply, now.plus(keep)));
  }

  private static String digest(byte[] body) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(body));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }
}
