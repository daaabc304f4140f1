package io.idemworker.azure;

import io.idemworker.core.IdempotencyKey;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.UUID;

/**
 * Deterministic event ids: every replay of one message yields the same id for the same event type,
 * so the topic's duplicate detection and idempotent consumers downstream drop a re-published copy.
 */
public final class EventIds {
  private EventIds() {}

  /**
   * The id of an event a message causes: a UUID (version 8, RFC 9562) made of the SHA-256 of the
   * event type and the causing message's idempotency key.
   *
   * @param eventType the event type
   * @param key the causing message's key
   * @return the event id
   */
  public static String of(String eventType, IdempotencyKey key) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256")
              .digest((eventType + "|" + key.value()).getBytes(StandardCharsets.UTF_8));
      digest[6] = (byte) ((digest[6] & 0x0f) | 0x80);
      digest[8] = (byte) ((digest[8] & 0x3f) | 0x80);
      ByteBuffer bytes = ByteBuffer.wrap(digest, 0, 16);
      return new UUID(bytes.getLong(), bytes.getLong()).toString();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }
}
