package io.idemworker.webhooks;

import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The secret shared with the payment provider, which signs every webhook with it. Its {@link
 * #toString()} never shows it.
 *
 * @param value 16-255 visible ASCII characters (providers issue e.g. {@code whsec_...})
 */
public record WebhookSecret(String value) {
  /** What a secret must look like, for configuration messages. */
  public static final String ALLOWED = "16-255 visible ASCII characters, e.g. whsec_...";

  private static final Pattern SHAPE = Pattern.compile("[\\x21-\\x7E]{16,255}");

  /** Checks the shape without ever echoing the value. */
  public WebhookSecret {
    Objects.requireNonNull(value, "value");
    if (!isValid(value)) {
      throw new IllegalArgumentException("a webhook secret must be " + ALLOWED);
    }
  }

  /**
   * Whether a value may be a secret.
   *
   * @param value the candidate
   * @return true when it has the allowed shape
   */
  public static boolean isValid(String value) {
    return SHAPE.matcher(value).matches();
  }

  byte[] bytes() {
    return value.getBytes(StandardCharsets.US_ASCII);
  }

  @Override
  public String toString() {
    return "WebhookSecret[redacted]";
  }
}
