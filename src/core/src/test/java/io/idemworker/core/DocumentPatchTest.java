package io.idemworker.core;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class DocumentPatchTest {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  @Test
  void appendToArray_requiresTheArrayInThePatchCondition() {
    DocumentPatch patch =
        new DocumentPatch(
            "d-1", List.of(new DocumentPatch.AppendToArray("notes", JSON.textNode("x"))));

    assertThat(patch.condition()).contains(new DocumentPatch.HoldsArray("notes"));
  }

  @Test
  void appendToArray_joinsAnExistingCondition_once() {
    DocumentPatch.Condition currency =
        new DocumentPatch.FieldEquals("currency", JSON.textNode("EUR"));
    DocumentPatch patch =
        new DocumentPatch(
            "d-1",
            List.of(
                new DocumentPatch.AppendToArray("notes", JSON.textNode("x")),
                new DocumentPatch.AppendToArray("notes", JSON.textNode("y"))),
            Optional.of(currency));

    assertThat(patch.condition())
        .contains(
            new DocumentPatch.AllOf(List.of(currency, new DocumentPatch.HoldsArray("notes"))));
    assertThat(new DocumentPatch(patch.id(), patch.operations(), patch.condition()))
        .isEqualTo(patch);
  }

  @Test
  void patchWithoutAppend_keepsItsCondition() {
    DocumentPatch patch =
        new DocumentPatch("d-1", List.of(new DocumentPatch.Increment("count", 1)));

    assertThat(patch.condition()).isEmpty();
  }
}
