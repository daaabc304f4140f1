package io.idemworker.emulator.payments;

import java.net.URI;
import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Where and how the double delivers its webhook events.
 *
 * @param url the receiver, an http(s) URL
 * @param secret the shared signing secret: 16-255 visible ASCII characters
 * @param requestTimeout how long one delivery attempt may take before it counts as timed out
 * @param firstBackoff the wait before the second attempt; it doubles per attempt
 * @param maxBackoff the longest wait between attempts (also caps a receiver's {@code Retry-After})
 * @param maxAttempts attempts per copy of an event before the event is given up as failed
 * @param settleAfter how long after a successful capture its {@code capture.settled} event follows
 */
public record WebhookSettings(
    URI url,
    String secret,
    Duration requestTimeout,
    Duration firstBackoff,
    Duration maxBackoff,
    int maxAttempts,
    Duration settleAfter) {
  /** The signing secret used unless another is configured. */
  public static final String DEFAULT_SECRET = "whsec_test_idemworker_payments";

  private static final Pattern SECRET = Pattern.compile("[\\x21-\\x7E]{16,255}");

  /** Checks every value; the secret is never echoed. */
  public WebhookSettings {
    Objects.requireNonNull(url, "url");
    Objects.requireNonNull(secret, "secret");
    String scheme = url.getScheme() == null ? "" : url.getScheme().toLowerCase();
    if (!(scheme.equals("http") || scheme.equals("https")) || url.getHost() == null) {
      throw new IllegalArgumentException("the webhook url must be an http(s) URL, was " + url);
    }
    if (!SECRET.matcher(secret).matches()) {
      throw new IllegalArgumentException(
          "the webhook secret must be 16-255 visible ASCII characters");
    }
    positive(requestTimeout, "requestTimeout");
    positive(firstBackoff, "firstBackoff");
    positive(maxBackoff, "maxBackoff");
    Objects.requireNonNull(settleAfter, "settleAfter");
    if (settleAfter.isNegative()) {
      throw new IllegalArgumentException("settleAfter must not be negative");
    }
    if (maxBackoff.compareTo(firstBackoff) < 0) {
      throw new IllegalArgumentException("maxBackoff must be at least firstBackoff");
    }
    if (maxAttempts < 1 || maxAttempts > 100) {
      throw new IllegalArgumentException("maxAttempts must be in 1..100, was " + maxAttempts);
    }
  }

  /**
   * Deliveries to {@code url} signed with {@code secret}: 10 s per attempt, back-off from 1 s
   * doubling to 1 min, 10 attempts, settlement 2 s after the capture.
   *
   * @param url the receiver
   * @param secret the shared secret
   * @return the settings
   */
  public static WebhookSettings to(URI url, String secret) {
    return new WebhookSettings(
        url,
        secret,
        Duration.ofSeconds(10),
        Duration.ofSeconds(1),
        Duration.ofMinutes(1),
        10,
        Duration.ofSeconds(2));
  }

  /**
   * These settings with another retry schedule.
   *
   * @param requestTimeout per attempt
   * @param firstBackoff before the second attempt
   * @param maxBackoff the cap
   * @param maxAttempts per copy
   * @return the new settings
   */
  public WebhookSettings withRetries(
      Duration requestTimeout, Duration firstBackoff, Duration maxBackoff, int maxAttempts) {
    return new WebhookSettings(
        url, secret, requestTimeout, firstBackoff, maxBackoff, maxAttempts, settleAfter);
  }

  /**
   * These settings with another settlement delay.
   *
   * @param delay after the capture; zero settles at once
   * @return the new settings
   */
  public WebhookSettings withSettleAfter(Duration delay) {
    return new WebhookSettings(
        url, secret, requestTimeout, firstBackoff, maxBackoff, maxAttempts, delay);
  }

  private static void positive(Duration value, String name) {
    Objects.requireNonNull(value, name);
    if (value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(name + " must be positive, was " + value);
    }
  }

  @Override
  public String toString() {
    return "WebhookSettings["
        + url
        + ", secret redacted, timeout "
        + requestTimeout
        + ", back-off "
        + firstBackoff
        + ".."
        + maxBackoff
        + ", "
        + maxAttempts
        + " attempts, settle after "
        + settleAfter
        + "]";
  }
}
