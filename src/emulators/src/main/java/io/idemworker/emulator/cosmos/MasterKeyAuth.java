package io.idemworker.emulator.cosmos;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.Locale;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Verifies the master-key {@code Authorization} header: {@code type=master&ver=1.0&sig=…} where sig
 * is base64(HMAC-SHA256(key, verb\nresourceType\nresourceLink\ndate\n\n)). The date is not checked
 * for skew, so tests may move the injected clock freely.
 */
final class MasterKeyAuth {
  private final SecretKeySpec key;
  private final ThreadLocal<Mac> macs = ThreadLocal.withInitial(this::newMac);

  MasterKeyAuth(String base64Key) {
    byte[] raw;
    try {
      raw = Base64.getDecoder().decode(base64Key);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("key must be base64", e);
    }
    if (raw.length == 0) {
      throw new IllegalArgumentException("key must not be empty");
    }
    this.key = new SecretKeySpec(raw, "HmacSHA256");
  }

  /**
   * Throws a 401 {@link CosmosError} unless the header signs {@code verb resourceType link date}
   * for one of the candidate links.
   */
  void verify(
      String authorization, String verb, String date, String resourceType, String... links) {
    if (authorization == null || authorization.isEmpty()) {
      throw new CosmosError(
          401,
          "Required Header authorization is missing. Ensure a valid Authorization token is defined for the request.");
    }
    if (date == null || date.isEmpty()) {
      throw new CosmosError(401, "Required Header x-ms-date or date is missing.");
    }
    String decoded;
    try {
      decoded = URLDecoder.decode(authorization, StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw new CosmosError(
          401, "The authorization token is not valid: it is not a URL-encoded master-key token.");
    }
    String sig = null;
    String type = null;
    for (String part : decoded.split("&")) {
      int eq = part.indexOf('=');
      if (eq <= 0) {
        continue;
      }
      String name = part.substring(0, eq).trim();
      String value = part.substring(eq + 1).trim();
      if (name.equals("sig")) {
        sig = value;
      } else if (name.equals("type")) {
        type = value;
      }
    }
    if (sig == null || !"master".equals(type)) {
      throw new CosmosError(
          401, "The authorization token is not valid: only master-key tokens are supported.");
    }
    byte[] given;
    try {
      given = Base64.getDecoder().decode(sig);
    } catch (IllegalArgumentException e) {
      throw new CosmosError(401, "The authorization token is not valid: signature is not base64.");
    }
    String lowerDate = date.toLowerCase(Locale.ROOT);
    String lowerVerb = verb.toLowerCase(Locale.ROOT);
    String firstPayload = null;
    for (String link : links) {
      String payload = lowerVerb + "\n" + resourceType + "\n" + link + "\n" + lowerDate + "\n\n";
      if (firstPayload == null) {
        firstPayload = payload;
      }
      if (MessageDigest.isEqual(given, sign(payload))) {
        return;
      }
    }
    throw new CosmosError(
        401,
        "The input authorization token can't serve the request. The wrong key is being used or the"
            + " expected payload is not built as per the protocol. Server used the following payload"
            + " to sign: '"
            + firstPayload.replace("\n", "\\n")
            + "'");
  }

  private byte[] sign(String payload) {
    return macs.get().doFinal(payload.getBytes(StandardCharsets.UTF_8));
  }

  private Mac newMac() {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(key);
      return mac;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 unavailable", e);
    }
  }
}
