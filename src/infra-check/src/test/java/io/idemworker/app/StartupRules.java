package io.idemworker.app;

import java.util.Map;
import java.util.Optional;

/**
 * The api's start-up checks on its secrets, reachable from the infra tests, so the template's
 * generated values are held against the rules the process applies when it reads them.
 */
public final class StartupRules {
  private StartupRules() {}

  /**
   * What the api says at start-up about {@code apiKey} as {@code API_KEY} (with API_AUTH apikey),
   * or empty when it accepts it. Only problems naming {@code API_KEY} are reported.
   */
  public static Optional<String> apiKeyProblem(String apiKey) {
    try {
      ApiConfig.fromEnvironment(
          Map.of(
              "COSMOS_ENDPOINT", "https://cosmos-test.documents.azure.com:443/",
              "API_AUTH", "apikey",
              "API_KEY", apiKey));
      return Optional.empty();
    } catch (RuntimeException e) {
      String message = String.valueOf(e.getMessage());
      return message.contains("API_KEY") ? Optional.of(message) : Optional.empty();
    }
  }
}
