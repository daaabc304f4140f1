package io.idemworker.core;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What a store found under an anchor id: the fingerprint of the message that created it, and the
 * delivery that wrote it when the anchor carries its stamp.
 *
 * @param fingerprint the stored fingerprint
 * @param writtenBy the writer's delivery ({@link DeliveryOrigin#FIELD})
 */
public record StoredAnchor(Fingerprint fingerprint, Optional<DeliveryOrigin.Written> writtenBy) {

  /** Requires both. */
  public StoredAnchor {
    java.util.Objects.requireNonNull(fingerprint, "fingerprint");
    java.util.Objects.requireNonNull(writtenBy, "writtenBy");
  }

  /**
   * An anchor with no writer's stamp.
   *
   * @param fingerprint the stored fingerprint
   */
  public StoredAnchor(Fingerprint fingerprint) {
    this(fingerprint, Optional.empty());
  }

  /**
   * Reads the fingerprint that {@link WriteSet#of} stamped on an anchor document.
   *
   * @param anchor the stored anchor document
   * @return the anchor, or empty when the document carries no valid fingerprint
   */
  public static Optional<StoredAnchor> fromDocument(JsonNode anchor) {
    String value = anchor.path(WriteSet.FINGERPRINT_FIELD).asText("");
    if (!value.startsWith("sha256:") || value.length() != 71) {
      return Optional.empty();
    }
    Map<String, String> fields = new TreeMap<>();
    anchor
        .path(WriteSet.FIELD_DIGESTS_FIELD)
        .properties()
        .forEach(field -> fields.put(field.getKey(), field.getValue().asText()));
    return Optional.of(
        new StoredAnchor(
            new Fingerprint(value, fields), DeliveryOrigin.read(anchor.get(DeliveryOrigin.FIELD))));
  }
}
