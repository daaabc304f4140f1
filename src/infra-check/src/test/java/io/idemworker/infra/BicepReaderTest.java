package io.idemworker.infra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class BicepReaderTest {

  @Test
  void readsNestedObjectsArraysAndConditionalResources() {
    String source =
        """
        @description('a // not a comment')
        param size int = 3
        var names = [
          'a'
          'b'
        ]
        resource r 'A.B/c@2024-01-01' = if (size > 1) {
          name: 'x' // trailing comment
          properties: {
            list: [
              {
                port: size
              }
            ]
            choice: size > 2 ? {
              big: true
            } : {}
            inline: { a: 1, b: 'two' }
          }
        }
        """;

    Bicep.Template t = Bicep.parse(source);
    Bicep.Obj body = t.body(t.find("resource", "r").orElseThrow());

    assertThat(t.find("resource", "r").orElseThrow().type()).isEqualTo("A.B/c@2024-01-01");
    assertThat(body.text("name")).contains("'x'");
    assertThat(body.at("properties.list")).get().isInstanceOf(Bicep.Arr.class);
    assertThat(body.text("properties.choice")).contains("size > 2 ? { big: true } : {}");
    assertThat(body.text("properties.inline.b")).contains("'two'");
    assertThat(BicepChecks.intValue(t, new Bicep.Expr("size"))).isEqualTo(3);
    assertThat(Bicep.text(t.resolve(new Bicep.Expr("names")))).isEqualTo("['a', 'b']");
  }

  @Test
  void unsupportedSyntax_failsLoudly() {
    assertThatThrownBy(() -> Bicep.parse("import * as x from 'y.bicep'\n"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unsupported");
  }
}
