package io.idemworker.webhooks;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Verifies {@code Webhook-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>...]}: {@code v1} is the
 * lower-case hex HMAC-SHA256, keyed with the shared secret, of {@code t + "." + body} (the raw
 * bytes as received). Several {@code v1} entries are allowed so a provider can sign with an old and
 * a new secret while they are rotated; one match is enough. Unknown entries (other schemes) are
 * ignored.
 *
 * <p>The signature is compared in constant time, and only then the timestamp: a signature older or
 * newer than the tolerance (against the injected clock) is refused as a replay. Thread-safe.
 */
final class SignatureCheck {
  static final String HEADER = "Webhook-Signature";
  private static final Pattern TIMESTAMP = Pattern.compile("[0-9]{1,12}");
  private static final Pattern HEX_SHA256 = Pattern.compile("[0-9a-f]{64}");

  private final WebhookSecret secret;
  private final Clock clock;
  private final Duration tolerance;

  SignatureCheck(WebhookSecret secret, Clock clock, Duration tolerance) {
    this.secret = Objects.requireNonNull(secret, "secret");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.tolerance = Objects.requireNonNull(tolerance, "tolerance");
    if (tolerance.isNegative() || tolerance.isZero()) {
      throw new IllegalArgumentException("the tolerance must be positive, was " + tolerance);
    }
  }

  /**
   * Why a request's signature is refused; empty when it verifies.
   *
   * @param headers every {@value #HEADER} header value sent
   * @param body the raw body
   * @return the refusal, if any
   */
  Optional<Refusal> refusal(List<String> headers, byte[] body) {
    if (headers.size() != 1) {
      return Optional.of(
          new Refusal(
              400,
              "SignatureMissing",
              headers.isEmpty()
                  ? HEADER + " header is missing"
                  : "send exactly one " + HEADER + " header"));
    }
    Optional<String> timestamp = Optional.empty();
    List<byte[]> signatures = new ArrayList<>();
    for (String item : headers.get(0).split(",")) {
      int eq = item.indexOf('=');
      String name = eq < 0 ? item.strip() : item.substring(0, eq).strip();
      String value = eq < 0 ? "" : item.substring(eq + 1).strip();
      if (name.equals("t")) {
        if (timestamp.isPresent() || !TIMESTAMP.matcher(value).matches()) {
          return malformed();
        }
        timestamp = Optional.of(value);
      } else if (name.equals("v1")) {
        if (!HEX_SHA256.matcher(value).matches()) {
          return malformed();
        }
        signatures.add(HexFormat.of().parseHex(value));
      }
    }
    if (timestamp.isEmpty() || signatures.isEmpty()) {
      return malformed();
    }
    byte[] expected = sign(secret, timestamp.get(), body);
    if (signatures.stream().noneMatch(s -> MessageDigest.isEqual(s, expected))) {
      return Optional.of(
          new Refusal(
              401,
              "SignatureMismatch",
              "no v1 signature matches HMAC-SHA256(secret, t + \".\" + body)"));
    }
    Instant signedAt = Instant.ofEpochSecond(Long.parseLong(timestamp.get()));
    Duration age = Duration.between(signedAt, clock.instant()).abs();
    if (age.compareTo(tolerance) > 0) {
      return Optional.of(
          new Refusal(
              401,
              "SignatureExpired",
              "the signature's timestamp t is "
                  + age.getSeconds()
                  + " s away from this server's clock; at most "
                  + tolerance.getSeconds()
                  + " s is accepted"));
    }
    return Optional.empty();
  }

  private static Optional<Refusal> malformed() {
    return Optional.of(
        new Refusal(
            400,
            "SignatureMalformed",
            HEADER + " must be t=<unix seconds>,v1=<64 lower-case hex digits>"));
  }

  /** HMAC-SHA256 of {@code timestamp + "." + body}. */
  static byte[] sign(WebhookSecret secret, String timestamp, byte[] body) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret.bytes(), "HmacSHA256"));
      mac.update((timestamp + ".").getBytes(StandardCharsets.US_ASCII));
      return mac.doFinal(body);
    } catch (NoSuchAlgorithmException | InvalidKeyException e) {
      throw new IllegalStateException("every JDK has HmacSHA256", e);
    }
  }

  /**
   * A refused signature.
   *
   * @param status 400 (malformed or missing) or 401 (mismatch, expired)
   * @param code a stable code for the problem body
   * @param detail what is wrong; never a value
   */
  record Refusal(int status, String code, String detail) {}
}
