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
  private static final HexFormat HEX = HexFormat.of();
  private static final MessageDigest SHA256 = newSha256();

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
    // The canonical form of an object is its fields' canonical forms in key order, so each
    // field's form is written once and serves both its own digest and the whole one.
    Map<String, String> canonical = new TreeMap<>();
    Iterator<Map.Entry<String, JsonNode>> it = immutableFields.fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> field = it.next();
      canonical.put(field.getKey(), CanonicalJson.write(field.getValue()));
    }
    MessageDigest digest = sha256();
    Map<String, String> perField = new TreeMap<>();
    StringBuilder whole = new StringBuilder(256).append('{');
    for (Map.Entry<String, String> field : canonical.entrySet()) {
      if (whole.length() > 1) {
        whole.append(',');
      }
      CanonicalJson.appendString(field.getKey(), whole);
      whole.append(':').append(field.getValue());
      perField.put(field.getKey(), hex(digest, field.getValue(), 8));
    }
    whole.append('}');
    return new Fingerprint("sha256:" + hex(digest, whole.toString(), 32), perField);
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
    return hex(sha256(), text, 32);
  }

  /** The first {@code bytes} bytes of the SHA-256 of {@code text}'s UTF-8, in hex. */
  private static String hex(MessageDigest digest, String text, int bytes) {
    return HEX.formatHex(digest.digest(text.getBytes(StandardCharsets.UTF_8)), 0, bytes);
  }

  /**
   * A new SHA-256 digest, cloned from a prototype: a clone skips the provider look-up that {@link
   * MessageDigest#getInstance} makes on every call.
   */
  private static MessageDigest sha256() {
    try {
      return (MessageDigest) SHA256.clone();
    } catch (CloneNotSupportedException e) {
      return newSha256();
    }
  }

  private static MessageDigest newSha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }
}
