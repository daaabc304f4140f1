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

  /** The platform's header with the caller's claims: base64 of {@code {auth_typ, claims[]}}. */
  static final String PRINCIPAL_HEADER = "X-MS-CLIENT-PRINCIPAL";

  /** The platform's header naming the identity provider that authenticated the caller. */
  static final String PRINCIPAL_IDP_HEADER = "X-MS-CLIENT-PRINCIPAL-IDP";

  private static final java.util.Set<String> OBJECT_ID_CLAIMS =
      java.util.Set.of("http://schemas.microsoft.com/identity/claims/objectidentifier", "oid");
  private static final java.util.Set<String> APP_ID_CLAIMS = java.util.Set.of("appid", "azp");
  private static final com.fasterxml.jackson.databind.ObjectMapper JSON =
      new com.fasterxml.jackson.databind.ObjectMapper();
  private static final java.util.regex.Pattern GUID =
      java.util.regex.Pattern.compile("[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}");

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
   * {@code entra}: Container Apps' built-in authentication validates the caller's token in front of
   * the app (with the authConfig's allowed applications) and passes who it is in three headers,
   * which the platform sets and strips from the client's request. The api checks that they agree
   * rather than trusting {@value #PRINCIPAL_ID_HEADER} alone: {@value #PRINCIPAL_IDP_HEADER} is
   * {@code aad}, {@value #PRINCIPAL_HEADER} decodes to claims whose object id equals {@value
   * #PRINCIPAL_ID_HEADER}, and the calling application ({@code appid} or {@code azp}) is one of
   * {@code allowedApplications} — the same list the authConfig enforces, checked twice so that a
   * platform configured without it still lets no other application in.
   *
   * <p>What a misconfiguration opens: the headers are not signed. If the platform's authentication
   * is off, or the container's port is reachable without passing through it (another ingress, a
   * sidecar, the environment's internal network), anyone who can reach the port can send all three
   * headers with an allowed application id and any object id, and act as that principal: read and
   * replay its orders and place orders in its name. The Bicep keeps ingress external only through
   * the authConfig; keep it so.
   *
   * @param allowedApplications the client application ids allowed to call; not empty
   * @return the check; principal {@code entra:{object id}}
   */
  public static ApiAuth entra(java.util.Set<String> allowedApplications) {
    java.util.Set<String> allowed =
        allowedApplications.stream()
            .map(id -> id.toLowerCase(java.util.Locale.ROOT))
            .collect(java.util.stream.Collectors.toUnmodifiableSet());
    if (allowed.isEmpty()) {
      throw new IllegalArgumentException("entra needs at least one allowed application");
    }
    return new ApiAuth(
        "Bearer",
        header -> {
          Optional<String> id =
              header
                  .apply(PRINCIPAL_ID_HEADER)
                  .map(String::strip)
                  .filter(v -> GUID.matcher(v).matches());
          Optional<String> idp = header.apply(PRINCIPAL_IDP_HEADER).map(String::strip);
          Optional<String> claims = header.apply(PRINCIPAL_HEADER).map(String::strip);
          if (id.isEmpty() || !idp.equals(Optional.of("aad")) || claims.isEmpty()) {
            return Optional.empty();
          }
          Optional<Claims> decoded = Claims.decode(claims.get());
          if (decoded.isEmpty()
              || !decoded.get().objectId().equalsIgnoreCase(id.get())
              || decoded.get().appId().isEmpty()
              || !allowed.contains(
                  decoded.get().appId().get().toLowerCase(java.util.Locale.ROOT))) {
            return Optional.empty();
          }
          return Optional.of("entra:" + id.get().toLowerCase(java.util.Locale.ROOT));
        });
  }

  /** What the api reads from the platform's claims: the object id and the calling application. */
  private record Claims(String objectId, Optional<String> appId) {
    static Optional<Claims> decode(String base64) {
      com.fasterxml.jackson.databind.JsonNode root;
      try {
        if (base64.length() > 16_384) {
          return Optional.empty();
        }
        root = JSON.readTree(java.util.Base64.getDecoder().decode(base64));
      } catch (IllegalArgumentException | java.io.IOException e) {
        return Optional.empty();
      }
      String objectId = null;
      String appId = null;
      for (com.fasterxml.jackson.databind.JsonNode claim : root.path("claims")) {
        String type = claim.path("typ").asText("");
        String value = claim.path("val").asText("");
        if (OBJECT_ID_CLAIMS.contains(type)) {
          objectId = value;
        } else if (APP_ID_CLAIMS.contains(type)) {
          appId = value;
        }
      }
      return objectId == null || !GUID.matcher(objectId).matches()
          ? Optional.empty()
          : Optional.of(new Claims(objectId, Optional.ofNullable(appId)));
    }
  }

  /**
   * Whether a principal sees and replays only the orders it placed: Entra ID callers, each its own
   * principal. {@code apikey} and {@code none} have one caller, who sees every order (the queue's
   * included).
   *
   * @param principal what {@link #principal} answered
   * @return true for an Entra ID principal
   */
  static boolean seesOnlyOwnOrders(String principal) {
    return principal.startsWith("entra:");
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
