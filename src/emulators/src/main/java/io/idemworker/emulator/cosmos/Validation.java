package io.idemworker.emulator.cosmos;

import com.fasterxml.jackson.databind.JsonNode;

/** Checks of ids and names, with the service's 400 answers. */
final class Validation {
  private Validation() {}

  /** A database, container or item id: non-empty string, at most 255 chars, no / \ ? #. */
  static String resourceName(JsonNode id, String what) {
    if (id == null || id.isNull()) {
      throw CosmosError.badRequest(
          "The input content is invalid because the required properties - 'id; ' - are missing");
    }
    if (!id.isTextual()) {
      throw CosmosError.badRequest("The " + what + " id must be a string, got " + id);
    }
    return checkName(id.textValue(), what);
  }

  static String checkName(String name, String what) {
    if (name.isEmpty()
        || name.length() > Container.MAX_ID_LENGTH
        || name.chars().anyMatch(ch -> ch == '/' || ch == '\\' || ch == '?' || ch == '#')) {
      throw CosmosError.badRequest(
          "The input name '"
              + (name.length() > 64 ? name.substring(0, 64) + "…" : name)
              + "' of the "
              + what
              + " is invalid. Ensure to provide a unique non-empty string less than '"
              + Container.MAX_ID_LENGTH
              + "' characters without '/', '\\', '?' or '#'.");
    }
    return name;
  }
}
