package io.idemworker.servicebus.sending;

import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a producer may use as a {@code MessageId}: the worker's idempotency key and the broker's
 * duplicate-detection id, so it must be the same on every send of one business event. A MessageId
 * minted per send (a fresh UUID, a random token) makes every retry a new message that the broker
 * cannot drop and the worker cannot recognise.
 *
 * <p><b>Random-looking</b>, precisely (refused under {@link Rule#BUSINESS_KEY}):
 *
 * <ol>
 *   <li>it contains a UUID in text form (8-4-4-4-12 hexadecimal digits) whose version digit is not
 *       {@code 3}, {@code 5} or {@code 8}: versions 1, 2, 6 and 7 are minted from a clock, 4 from
 *       random bits, so a new one each call; 3, 5 and 8 are derived from a name (the relay's event
 *       ids are version 8 of a SHA-256) and stay the same for the same name;
 *   <li>or it contains a run of 16 or more hexadecimal digits holding at least one letter {@code
 *       a-f} and at least one decimal digit: 64 or more random bits (or a hash) printed in hex, a
 *       UUID without its dashes (a run of decimal digits only, such as a timestamp, is not
 *       counted);
 *   <li>or it contains a ULID: a token of exactly 26 characters of Crockford's base32 (digits and
 *       upper-case letters without I, L, O, U), first character {@code 0-7}, holding both letters
 *       and digits.
 * </ol>
 *
 * <p>A business key that is itself such an id, minted once when the entity was made and stored with
 * it (a business id that is a random UUID), is sent under {@link Rule#ASSIGNED_ONCE}: the producer
 * vouches that every retry reads it back rather than minting another.
 *
 * <p>Stateless and thread-safe.
 */
public final class MessageIds {
  /** Service Bus's longest MessageId. */
  public static final int MAX_LENGTH = 128;

  private static final Pattern UUID_TEXT =
      Pattern.compile(
          "(?<![0-9a-f])[0-9a-f]{8}-[0-9a-f]{4}-([0-9a-f])[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}(?![0-9a-f])",
          Pattern.CASE_INSENSITIVE);
  private static final Pattern HEX_RUN = Pattern.compile("[0-9a-f]{16,}", Pattern.CASE_INSENSITIVE);
  private static final Pattern ULID =
      Pattern.compile("(?<![0-9A-Za-z])[0-7][0-9A-HJKMNP-TV-Z]{25}(?![0-9A-Za-z])");

  private MessageIds() {}

  /** How the producer came by the id, which decides what the kit checks. */
  public enum Rule {
    /**
     * The business key itself ({@code shipmentId}, {@code scanId}, {@code
     * {shipmentId}:delivery:{v}}, an id derived from a name): not empty, at most {@value
     * MessageIds#MAX_LENGTH} characters, not random-looking.
     */
    BUSINESS_KEY,
    /**
     * CloudEvents {@code source} + {@code id} (MessageId {@code source|id}, the worker's
     * CloudEvents key): both present, the pair at most {@value MessageIds#MAX_LENGTH} characters.
     * The id may look random: CloudEvents has the producer assign it once per event, and a retry
     * reuses the event.
     */
    CLOUD_EVENTS,
    /**
     * An id minted once with the entity and stored with it (an outbox event's id, which the relay
     * reads back on every re-publish), or the MessageId of a message already enqueued (a
     * dead-letter resubmission copies it): not empty, at most {@value MessageIds#MAX_LENGTH}
     * characters; random-looking is allowed because the producer vouches for it.
     */
    ASSIGNED_ONCE
  }

  /**
   * What is wrong with a MessageId under a rule.
   *
   * @param rule how the producer came by it
   * @param messageId the id; may be null
   * @return empty when the id may be sent; otherwise why not, naming {@code MessageId}
   */
  public static Optional<String> problem(Rule rule, String messageId) {
    if (messageId == null || messageId.isBlank()) {
      return Optional.of("MessageId is empty: it must be the business key, the same on every send");
    }
    if (messageId.length() > MAX_LENGTH) {
      return Optional.of(
          "MessageId has "
              + messageId.length()
              + " characters; Service Bus allows at most "
              + MAX_LENGTH);
    }
    if (rule == Rule.BUSINESS_KEY) {
      return randomLooking(messageId)
          .map(
              what ->
                  "MessageId looks random ("
                      + what
                      + "): a MessageId minted per send makes every retry a new message; use the"
                      + " business key, or Rule.ASSIGNED_ONCE for an id stored with the entity");
    }
    return Optional.empty();
  }

  /**
   * Whether an id looks minted per call, by the three tests in the class documentation.
   *
   * @param id the id
   * @return empty when it does not; otherwise which test it met
   */
  public static Optional<String> randomLooking(String id) {
    Matcher uuid = UUID_TEXT.matcher(id);
    while (uuid.find()) {
      String version = uuid.group(1).toLowerCase(Locale.ROOT);
      if (!version.equals("3") && !version.equals("5") && !version.equals("8")) {
        return Optional.of("a version " + version + " UUID");
      }
    }
    Matcher hex = HEX_RUN.matcher(id);
    while (hex.find()) {
      String run = hex.group();
      if (run.chars().anyMatch(Character::isLetter) && run.chars().anyMatch(Character::isDigit)) {
        return Optional.of("a run of " + run.length() + " hexadecimal digits");
      }
    }
    Matcher ulid = ULID.matcher(id);
    while (ulid.find()) {
      String token = ulid.group();
      if (token.chars().anyMatch(Character::isLetter)
          && token.chars().anyMatch(Character::isDigit)) {
        return Optional.of("a ULID");
      }
    }
    return Optional.empty();
  }
}
