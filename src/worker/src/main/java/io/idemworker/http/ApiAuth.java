package io.idemworker.http;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * Who may call the api ({@code API_AUTH}), answering with the caller's principal or refusing. The
 * principal scopes idempotency keys: two clients that pick the same key do not see each other's
 * answers.
 *
 * @param challenge the {@code WWW-Authenticate} value of a 401
 * @param check the request's single header values by name → the principal, or empty
 */
public record ApiAuth(
    String challenge, Function<Function<String, Optional<String>>, Optional<String>> check) {
  /** The header an API key arrives in. */
  static final String API_KEY_HEADER = "X-Api-Key";

  /** The header Container Apps' built-in authentication sets to the caller's object id. */
  static final String PRINCIPAL_ID_HEADER = "X-MS-CLIENT-PRINCIPAL-ID";

  /** Requires both. */
  public ApiAuth {
    Objects.requireNonNull(challenge, "challenge");
    Objects.requireNonNull(check, "check");
  }

  /**
   * Authenticates one request.
   *
   * @param header the request's single value of a header, by name
   * @return the principal, or empty for 401 with {@code WWW-Authenticate: }{@link #challenge}
   */
  Optional<String> principal(Function<String, Optional<String>> header) {
    return check.apply(header);
  }

  /**
   * {@code apikey}: the {@value #API_KEY_HEADER} header must equal the key. Both are hashed before
   * a constant-time comparison, so neither the content nor the length of the key leaks through
   * timing.
   *
   * @param key the configured key
   * @return the check; principal {@code apikey}
   */
  public static ApiAuth apiKey(String key) {
    byte[] expected = sha256(Objects.requireNonNull(key, "key"));
    return new ApiAuth(
        "ApiKey header=\"" + API_KEY_HEADER + "\"",
        header ->
            header
                .apply(API_KEY_HEADER)
                .filter(given -> MessageDigest.isEqual(expected, sha256(given)))
                .map(given -> "apikey"));
  }

  /**
   * {@code entra}: Container Apps' built-in authentication validates the token in front of the app
   * and passes the caller's object id in {@value #PRINCIPAL_ID_HEADER}; a request without it did
   * not pass that gate. Only sound when the platform's authentication is on and ingress reaches the
   * app through it (the Bicep sets both).
   *
   * @return the check; principal {@code entra:{object id}}
   */
  public static ApiAuth entra() {
    return new ApiAuth(
        "Bearer",
        header ->
            header
                .apply(PRINCIPAL_ID_HEADER)
                .map(String::strip)
                .filter(id -> id.matches("[A-Za-z0-9-]{1,64}"))
                .map(id -> "entra:" + id));
  }

  /**
   * {@code none}: everyone is {@code anonymous}. The configuration allows it only against a
   * loopback Cosmos DB endpoint (emulators).
   *
   * @return the check
   */
  public static ApiAuth none() {
    return new ApiAuth("None", header -> Optional.of("anonymous"));
  }

  private static byte[] sha256(String text) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }
}
