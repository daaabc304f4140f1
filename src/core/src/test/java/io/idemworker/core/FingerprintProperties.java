package io.idemworker.core;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.AlphaChars;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.constraints.StringLength;
import net.jqwik.api.constraints.UniqueElements;

class FingerprintProperties {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  /** Stored documents carry fingerprints: the value of a fixed message must never change. */
  @Example
  void aFixedMessageKeepsItsStoredFingerprint() {
    ObjectNode message = JSON.objectNode();
    message.put("orderId", "ord-1001");
    message.put("customerId", "cust-\"42\"\n\u00e9");
    message.put("currency", "EUR");
    message
        .putArray("lines")
        .addObject()
        .put("sku", "SKU-1")
        .put("quantity", 2)
        .put("unitPrice", new BigDecimal("9.990"));
    message.put("placedAt", "2026-11-30T10:00:00Z");

    Fingerprint fingerprint = Fingerprint.of(message);

    assertThat(fingerprint.value())
        .isEqualTo("sha256:5838d97fa2206e3d18f588496a119310050482495cf6e029336591789d932ca6");
    assertThat(fingerprint.fields())
        .containsOnly(
            Map.entry("currency", "87ef325635aa32dd"),
            Map.entry("orderId", "a66fbbcb0d4e5437"),
            Map.entry("lines", "6e3208d1e51270a6"),
            Map.entry("placedAt", "8a99179a3d83b1ac"),
            Map.entry("customerId", "9e4305487bc0f628"));
  }

  @Property
  void theFingerprintIsTheDigestOfTheWholeCanonicalFormAndOfEachField(
      @ForAll @Size(min = 1, max = 6) @UniqueElements List<@StringLength(max = 8) String> names,
      @ForAll @StringLength(max = 12) String text) {
    ObjectNode message = JSON.objectNode();
    for (int i = 0; i < names.size(); i++) {
      if (i % 2 == 0) {
        message.put(names.get(i), text + i);
      } else {
        message.putArray(names.get(i)).add(text).addObject().put(text, i);
      }
    }

    Fingerprint fingerprint = Fingerprint.of(message);

    assertThat(fingerprint.value())
        .isEqualTo("sha256:" + Fingerprint.sha256(CanonicalJson.write(message)));
    message
        .properties()
        .forEach(
            field ->
                assertThat(fingerprint.fields())
                    .containsEntry(
                        field.getKey(),
                        Fingerprint.sha256(CanonicalJson.write(field.getValue()))
                            .substring(0, 16)));
  }

  @Property
  void fieldOrderDoesNotChangeTheFingerprint(
      @ForAll @Size(min = 1, max = 8) @UniqueElements
          List<@AlphaChars @StringLength(min = 1, max = 8) String> names,
      @ForAll @IntRange(min = 0, max = 1000) int seed) {
    ObjectNode forward = JSON.objectNode();
    names.forEach(name -> forward.put(name, name.length() * seed));
    List<String> reversed = new ArrayList<>(names);
    Collections.reverse(reversed);
    ObjectNode backward = JSON.objectNode();
    reversed.forEach(name -> backward.put(name, name.length() * seed));

    assertThat(Fingerprint.of(backward)).isEqualTo(Fingerprint.of(forward));
  }

  @Property
  void trailingZerosDoNotChangeTheFingerprint(
      @ForAll @IntRange(min = 0, max = 1_000_000) int cents,
      @ForAll @IntRange(min = 0, max = 3) int zeros) {
    BigDecimal price = BigDecimal.valueOf(cents, 2);
    BigDecimal padded = price.setScale(2 + zeros);

    assertThat(Fingerprint.of(JSON.objectNode().put("p", padded)))
        .isEqualTo(Fingerprint.of(JSON.objectNode().put("p", price)));
  }

  @Property
  void differentValuesGiveDifferentFingerprintsAndNameTheField(
      @ForAll @StringLength(max = 20) String a, @ForAll @StringLength(max = 20) String b) {
    Fingerprint first = Fingerprint.of(JSON.objectNode().put("same", 1).put("field", a));
    Fingerprint second = Fingerprint.of(JSON.objectNode().put("same", 1).put("field", b));

    if (a.equals(b)) {
      assertThat(second).isEqualTo(first);
    } else {
      assertThat(second.value()).isNotEqualTo(first.value());
      assertThat(second.differingFields(first)).containsExactly("field");
    }
  }

  @Property
  void fingerprintSurvivesAStoreRoundTrip(@ForAll @StringLength(max = 30) String value) {
    Fingerprint fingerprint = Fingerprint.of(JSON.objectNode().put("v", value));
    WriteSet writeSet = WriteSet.of("pk", fingerprint, JSON.objectNode().put("id", "a"), List.of());

    assertThat(StoredAnchor.fromDocument(writeSet.anchor()))
        .contains(new StoredAnchor(fingerprint));
    assertThat(fingerprint.fields()).isEqualTo(Map.copyOf(fingerprint.fields()));
  }

  @Property
  void canonicalJsonIsValidJsonThatReadsBackToTheSameStrings(
      @ForAll @StringLength(max = 40) String key, @ForAll @StringLength(max = 40) String value)
      throws Exception {
    ObjectNode node = JSON.objectNode().put(key, value);

    String canonical = CanonicalJson.write(node);

    assertThat(new com.fasterxml.jackson.databind.ObjectMapper().readTree(canonical))
        .isEqualTo(node);
  }

  @Property
  void hugeExponentsStayShort(@ForAll @IntRange(min = 101, max = 999_999_999) int exponent) {
    ObjectNode node = JSON.objectNode().put("n", new BigDecimal("1E" + exponent));

    assertThat(CanonicalJson.write(node)).hasSizeLessThan(40);
  }
}
