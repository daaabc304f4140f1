package io.idemworker.emulator.cosmos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

class PartitionKeysTest {
  private final ObjectMapper mapper = new ObjectMapper();
  private final JsonNodeFactory f = JsonNodeFactory.instance;

  @Test
  void headerAndDocumentValues_compareByValue() {
    assertThat(PartitionKeys.fromHeader(mapper, "[\"a\"]", 1))
        .isEqualTo(PartitionKeys.canonical(List.of(f.textNode("a"))));
    assertThat(PartitionKeys.fromHeader(mapper, "[5.0]", 1))
        .isEqualTo(PartitionKeys.canonical(List.of(f.numberNode(5))));
    assertThat(PartitionKeys.fromHeader(mapper, "[{}]", 1))
        .isEqualTo(PartitionKeys.canonical(Collections.singletonList(null)));
  }

  @Test
  void stringAndNumber_areDifferentKeys() {
    assertThat(PartitionKeys.fromHeader(mapper, "[\"5\"]", 1))
        .isNotEqualTo(PartitionKeys.fromHeader(mapper, "[5]", 1));
  }

  @Test
  void missingMalformedOrWrongArity_isBadRequest() {
    for (String bad : new String[] {null, "", "nope", "{\"a\":1}", "[\"a\",\"b\"]"}) {
      assertThatThrownBy(() -> PartitionKeys.fromHeader(mapper, bad, 1))
          .isInstanceOfSatisfying(CosmosError.class, e -> assertThat(e.status).isEqualTo(400));
    }
  }
}
