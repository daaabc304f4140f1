package io.idemworker.infra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BicepEvalTest {
  private static final Bicep.Template TEMPLATE =
      Bicep.parse(
          """
          param mode string = 'a'
          param size int = 3
          param name string
          var isA = mode == 'a'
          var big = size > 2 && !isA
          resource r 'A.B/c@2024-01-01' = {
            name: name
            properties: {
              choice: isA ? [
                {
                  kind: 'first'
                }
              ] : []
              big: big
              nothing: isA ? null : size
              label: 'x-${mode}-${size}'
              unknown: 'x-${r.id}'
              empty: empty(mode) || mode == ''
            }
          }
          output o string = isA ? '' : mode
          """);

  @Test
  void defaults_andGivenParameters_decideTheChoices() {
    BicepEval byDefault = new BicepEval(TEMPLATE, Map.of());
    BicepEval other = new BicepEval(TEMPLATE, Map.of("mode", "b", "size", 5L));

    assertThat(BicepEval.at(byDefault.resource("r"), "properties.choice"))
        .contains(List.of(Map.of("kind", "first")));
    assertThat(BicepEval.at(byDefault.resource("r"), "properties.nothing"))
        .contains(BicepEval.Null.NULL);
    assertThat(BicepEval.at(byDefault.resource("r"), "properties.label")).contains("x-a-3");
    assertThat(byDefault.output("o")).isEqualTo("");
    assertThat(BicepEval.at(other.resource("r"), "properties.choice")).contains(List.of());
    assertThat(BicepEval.at(other.resource("r"), "properties.big")).contains(true);
    assertThat(BicepEval.at(other.resource("r"), "properties.nothing")).contains(5L);
    assertThat(BicepEval.at(other.resource("r"), "properties.empty")).contains(false);
    assertThat(other.output("o")).isEqualTo("b");
  }

  @Test
  void valuesOnlyAzureKnows_stayOpaque_andCannotDecideAChoice() {
    BicepEval eval = new BicepEval(TEMPLATE, Map.of());
    Bicep.Template undecidable =
        Bicep.parse("param p string\noutput o string = p == 'x' ? 'y' : 'z'\n");

    assertThat(eval.resource("r").get("name")).isEqualTo(new BicepEval.Opaque("name"));
    assertThat(BicepEval.at(eval.resource("r"), "properties.unknown").orElseThrow())
        .isInstanceOf(BicepEval.Opaque.class);
    assertThatThrownBy(() -> new BicepEval(undecidable, Map.of()).output("o"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("cannot decide");
  }
}
