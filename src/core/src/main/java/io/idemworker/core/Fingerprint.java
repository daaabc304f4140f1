package io.idemworker.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The SHA-256 of the canonical JSON of a message's immutable business fields, plus a short digest
 * per top-level field so that a key reused for other content can be reported by field name without
 * storing or logging the values.
 *
 * @param value {@code sha256:} followed by 64 hex digits
 * @param fields top-level field name to the first 16 hex digits of its canonical SHA-256
 */
public record Fingerprint(String value, Map<String, String> fields) {

  /** Validates the form and copies the map, sorted by key. */
  public Fingerprint {
    Objects.requireNonNull(value, "value");
    if (!value.startsWith("sha256:") || value.length() != 71) {
      throw new IllegalArgumentException("fingerprint must be sha256: and 64 hex digits");
    }
    fields = Map.copyOf(new TreeMap<>(fields));
  }

  /**
   * Fingerprints the immutable business fields.
   *
   * @param immutableFields the fields that define the message's content; extra fields that are not
   *     part of the contract must not be included
   * @return the fingerprint
   */
  public static Fingerprint of(ObjectNode immutableFields) {
    Map<String, String> perField = new TreeMap<>();
    Iterator<Map.Entry<String, JsonNode>> it = immutableFields.fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> field = it.next();
      perField.put(field.getKey(), sha256(CanonicalJson.write(field.getValue())).substring(0, 16));
    }
    return new Fingerprint("sha256:" + sha256(CanonicalJson.write(immutableFields)), perField);
  }

  /**
   * Names the top-level fields whose content differs between two fingerprints, in name order.
   *
   * @param other the fingerprint to compare with
   * @return the differing field names; empty when the content is equal
   */
  public Set<String> differingFields(Fingerprint other) {
    Set<String> names = new TreeSet<>(fields.keySet());
    names.addAll(other.fields.keySet());
    names.removeIf(name -> Objects.equals(fields.get(name), other.fields.get(name)));
    if (names.isEmpty() && !value.equals(other.value)) {
      names.add("(whole message)");
    }
    return names;
  }

  static String sha256(String text) {
    try {
      MessageDigest digest = MessageDigest.getInstance("SHA-256");
      return HexFormat.of().formatHex(digest.digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }
}
