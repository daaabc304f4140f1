package io.idemworker.http;

import java.util.List;

/**
 * Reads the {@code Idempotency-Key} header. The IETF draft defines it as a Structured Field string
 * ({@code Idempotency-Key: "8e03978e-40d5-43e8-bc93-6894a57f9324"}); payment APIs take the bare
 * token ({@code Idempotency-Key: 8e03978e-…}). Both are accepted and mean the same key: 1 to
 * {@value OrderIntake#MAX_KEY_LENGTH} visible ASCII characters (inside quotes, spaces too, and
 * {@code \"} and {@code \\} as escapes).
 */
final class KeyHeader {
  private KeyHeader() {}

  /** The result of {@link #parse}. */
  sealed interface Result permits Key, Refused {}

  /**
   * A key.
   *
   * @param value the key, unquoted
   */
  record Key(String value) implements Result {}

  /**
   * No usable key.
   *
   * @param reason {@code IdempotencyKeyMissing} or {@code IdempotencyKeyInvalid}
   * @param description what is wrong
   */
  record Refused(String reason, String description) implements Result {}

  static Result parse(List<String> values) {
    if (values.isEmpty()) {
      return new Refused(
          "IdempotencyKeyMissing", "the Idempotency-Key header is required on POST /orders");
    }
    if (values.size() > 1) {
      return new Refused("IdempotencyKeyInvalid", "the Idempotency-Key header must appear once");
    }
    String raw = values.get(0).strip();
    String key = raw.startsWith("\"") ? unquote(raw) : bare(raw);
    if (key == null || key.isEmpty() || key.length() > OrderIntake.MAX_KEY_LENGTH) {
      return new Refused(
          "IdempotencyKeyInvalid",
          "Idempotency-Key must be 1-"
              + OrderIntake.MAX_KEY_LENGTH
              + " visible ASCII characters, bare or as a quoted string");
    }
    return new Key(key);
  }

  private static String bare(String raw) {
    for (int i = 0; i < raw.length(); i++) {
      char c = raw.charAt(i);
      if (c < 0x21 || c > 0x7E || c == '"' || c == ',') {
        return null;
      }
    }
    return raw;
  }

  private static String unquote(String raw) {
    if (raw.length() < 2 || !raw.endsWith("\"")) {
      return null;
    }
    StringBuilder key = new StringBuilder();
    for (int i = 1; i < raw.length() - 1; i++) {
      char c = raw.charAt(i);
      if (c == '\\') {
        if (i + 1 >= raw.length() - 1) {
          return null;
        }
        char next = raw.charAt(++i);
        if (next != '"' && next != '\\') {
          return null;
        }
        key.append(next);
      } else if (c == '"' || c < 0x20 || c > 0x7E) {
        return null;
      } else {
        key.append(c);
      }
    }
    return key.toString();
  }
}
