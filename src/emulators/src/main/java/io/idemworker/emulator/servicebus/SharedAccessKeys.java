package io.idemworker.emulator.servicebus;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Instant;
import java.util.Base64;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Checks shared access signatures as the service does, for the namespace's one key ({@link
 * ServiceBusEmulator.Builder#sharedAccessKey}): {@code SharedAccessSignature
 * sr=RESOURCE&sig=SIGNATURE&se=EXPIRY&skn=KEYNAME}, where the signature is the base64 HMAC-SHA256,
 * keyed with the key's UTF-8 bytes, of the URL-encoded resource as it appears in the token, a line
 * feed and the expiry in epoch seconds. A token covers the resource it names and everything under
 * it; host and scheme are not compared. Expiry is judged on the wall clock (the SDKs compute it
 * from theirs), not on the emulator's clock.
 *
 * <p>Immutable and thread-safe.
 */
final class SharedAccessKeys {
  private static final String PREFIX = "SharedAccessSignature ";

  private final String keyName;
  private final byte[] key;
  private final Clock wallClock;

  SharedAccessKeys(String keyName, String key, Clock wallClock) {
    if (keyName == null || keyName.isBlank()) {
      throw new IllegalArgumentException("shared access key name must not be blank");
    }
    if (key == null || key.isEmpty()) {
      throw new IllegalArgumentException("shared access key must not be empty");
    }
    this.keyName = keyName;
    this.key = key.getBytes(StandardCharsets.UTF_8);
    this.wallClock = Objects.requireNonNull(wallClock, "wallClock");
  }

  String keyName() {
    return keyName;
  }

  String key() {
    return new String(key, StandardCharsets.UTF_8);
  }

  /**
   * Why a token does not authorise access to {@code resourcePath}, as the service words the 401;
   * empty when it does.
   *
   * @param token the token as sent (the {@code Authorization} header or the put-token body)
   * @param resourcePath the path of the resource asked for, e.g. {@code orders} or {@code
   *     order-events/subscriptions/loyalty}; empty for the namespace
   */
  Optional<String> refusal(String token, String resourcePath) {
    if (token == null || token.isBlank()) {
      return Optional.of("MissingToken: The request has no authorization token.");
    }
    if (!token.regionMatches(true, 0, PREFIX, 0, PREFIX.length())) {
      return Optional.of(
          "InvalidToken: The token is not a shared access signature"
              + " (SharedAccessSignature sr=...&sig=...&se=...&skn=...).");
    }
    Map<String, String> fields = new HashMap<>();
    for (String part : token.substring(PREFIX.length()).trim().split("&")) {
      int eq = part.indexOf('=');
      if (eq > 0) {
        fields.put(part.substring(0, eq).trim().toLowerCase(Locale.ROOT), part.substring(eq + 1));
      }
    }
    String sr = fields.get("sr");
    String sig = fields.get("sig");
    String se = fields.get("se");
    String skn = fields.get("skn");
    if (sr == null || sig == null || se == null || skn == null) {
      return Optional.of(
          "InvalidToken: The shared access signature must have the fields sr, sig, se and skn.");
    }
    if (!keyName.equals(decode(skn))) {
      return Optional.of(
          "InvalidSignature: The token has an invalid signature (no shared access key named '"
              + decode(skn)
              + "').");
    }
    if (!MessageDigest.isEqual(
        sign(sr + "\n" + se).getBytes(StandardCharsets.US_ASCII),
        decode(sig).getBytes(StandardCharsets.US_ASCII))) {
      return Optional.of("InvalidSignature: The token has an invalid signature.");
    }
    long expiry;
    try {
      expiry = Long.parseLong(decode(se));
    } catch (NumberFormatException e) {
      return Optional.of("InvalidToken: The token's expiry (se) is not a number of seconds.");
    }
    Instant now = wallClock.instant();
    if (expiry <= now.getEpochSecond()) {
      return Optional.of(
          "ExpiredToken: The token is expired. Expiration time: '"
              + Instant.ofEpochSecond(expiry)
              + "', current time: '"
              + now
              + "'.");
    }
    String covered = Broker.normalise(decode(sr));
    if (!covers(covered, resourcePath)) {
      return Optional.of(
          "InvalidAudience: The token's audience '"
              + decode(sr)
              + "' does not cover the resource '"
              + resourcePath
              + "'.");
    }
    return Optional.empty();
  }

  /** Whether a token for {@code tokenPath} covers {@code resourcePath} (both normalised). */
  static boolean covers(String tokenPath, String resourcePath) {
    String resource = Broker.normalise(resourcePath);
    return tokenPath.isEmpty()
        || resource.equals(tokenPath)
        || resource.startsWith(tokenPath.endsWith("/") ? tokenPath : tokenPath + "/");
  }

  private String sign(String text) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      return Base64.getEncoder().encodeToString(mac.doFinal(text.getBytes(StandardCharsets.UTF_8)));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 unavailable", e);
    }
  }

  private static String decode(String value) {
    try {
      return URLDecoder.decode(value, StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      return value;
    }
  }
}
