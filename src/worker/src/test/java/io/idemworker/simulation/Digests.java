package io.idemworker.simulation;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

/**
 * 128-bit digests of canonical texts, so that hundreds of thousands of states fit in memory. A
 * collision would prune a state wrongly; among n states its chance is about n² / 2¹²⁹.
 */
final class Digests {
  private static final ThreadLocal<MessageDigest> SHA256 =
      ThreadLocal.withInitial(
          () -> {
            try {
              return MessageDigest.getInstance("SHA-256");
            } catch (NoSuchAlgorithmException e) {
              throw new IllegalStateException("every JVM has SHA-256", e);
            }
          });

  private Digests() {}

  /**
   * The first 128 bits of the text's SHA-256, as 22 characters.
   *
   * @param text the text
   * @return the digest
   */
  static String of(CharSequence text) {
    byte[] hash = SHA256.get().digest(text.toString().getBytes(StandardCharsets.UTF_8));
    return Base64.getEncoder().withoutPadding().encodeToString(java.util.Arrays.copyOf(hash, 16));
  }
}
