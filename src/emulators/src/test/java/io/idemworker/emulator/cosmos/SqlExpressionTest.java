package io.idemworker.emulator.cosmos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The SQL filter evaluator's Cosmos semantics, directly on JSON documents. */
class SqlExpressionTest {
  private static final JsonNode DOC =
      json(
          "{\"id\":\"1\",\"status\":\"Placed\",\"statusVersion\":2,\"price\":2.5,\"paid\":false,"
              + "\"note\":null,\"tags\":[\"a\",\"b\"],\"customer\":{\"name\":\"Ada\",\"odd key\":1},"
              + "\"lines\":[{\"sku\":\"x\"}]}");

  private static JsonNode json(String text) {
    try {
      return new ObjectMapper().readTree(text);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static boolean keeps(String where) {
    return SqlParser.parseFilter("FROM c WHERE " + where).matches(DOC, Map.of());
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "c.statusVersion < 3",
        "c.statusVersion = 2.0",
        "c.statusVersion <> 3 AND c.status != 'Paid'",
        "c.price >= 2.5 and c.price <= 2.5",
        "c.status = \"Placed\"",
        "c.status > 'A'",
        "c.paid = false",
        "c.note = null",
        "NOT c.paid",
        "c.customer.name = 'Ada'",
        "c[\"customer\"][\"odd key\"] = 1",
        "c.lines[0].sku = 'x'",
        "c.tags[1] = 'b'",
        "(c.statusVersion = 1 OR c.statusVersion = 2) AND c.status = 'Placed'",
        "IS_DEFINED(c.status) AND NOT IS_DEFINED(c.missing)",
        "STARTSWITH(c.status, 'Pla')",
        "startswith(c.status, 'pla', true)",
        "c.missing < 3 OR c.statusVersion = 2",
        "NOT (c.statusVersion > 5)",
        "c.statusVersion > -1",
        "c.status IN ('Paid', 'Placed')",
        "c.statusVersion IN (1, 2, 3)",
        "c.status NOT IN ('Paid')",
        "c.status LIKE 'Pl%'",
        "c.status LIKE '_lace_'",
        "c.status NOT LIKE '%x%'",
        "EXISTS(SELECT VALUE t FROM t IN c.tags WHERE t = 'b')",
        "ARRAY_LENGTH(ARRAY(SELECT VALUE t FROM t IN c.tags)) = 2",
        "(SELECT VALUE COUNT(1) FROM l IN c.lines) = 1",
        "c.statusVersion BETWEEN 2 AND 2",
        "c.statusVersion NOT BETWEEN 3 AND 9",
        "c.statusVersion + 1 = 3",
        "c.statusVersion * 2 - 1 = 3",
        "c.statusVersion % 2 = 0",
        "c.statusVersion / 4 = 0.5",
        "c.price * 2 = 5",
        "c.status || '!' = 'Placed!'",
        "(c.missing ?? 'x') = 'x'",
        "(c.note ?? 'x') = null",
        "ABS(c.statusVersion - 5) = 3",
        "LEFT(c.status, 3) = 'Pla'",
        "ARRAY_LENGTH(c.tags) = 2",
        "LOWER(c.status) = 'placed' AND UPPER(c.status) = 'PLACED'",
        "LENGTH(c.status) = 6",
        "c.statusVersion != null",
        "c.status != 2",
        "NOT (c.status = 2)",
      })
  void conditionsThatHold_keepTheDocument(String where) {
    assertThat(keeps(where)).as(where).isTrue();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "c.statusVersion < 2",
        "c.missing < 3",
        "NOT (c.missing < 3)",
        "c.missing = null",
        "c.status = 2",
        "c.statusVersion > 'a'",
        "c.paid < true",
        "c.status AND true",
        "c.missing < 3 AND true",
        "NOT c.status",
        "STARTSWITH(c.statusVersion, '2')",
        "c.note != null",
        "c.statusVersion",
        "c.status IN ('Paid')",
        "c.missing IN (1, 2)",
        "c.missing NOT IN (1, 2)",
        "c.statusVersion BETWEEN 3 AND 9",
        "c.status BETWEEN 1 AND 9",
        "c.status + 1 = 1",
        "c.statusVersion / 0 = 0",
        "c.status || 1 = 'Placed1'",
        "ARRAY_LENGTH(c.status) = 6",
        "LEFT(c.status, -1) = ''",
        "c.missing != null",
        "c.status < 2",
      })
  void undefinedOrFalseConditions_dropTheDocument(String where) {
    assertThat(keeps(where)).as(where).isFalse();
  }

  @Test
  void undefinedAndFalse_combineAsCosmosDoes() {
    JsonNode orValue =
        SqlParser.parseFilter("FROM c WHERE c.missing < 3 OR false").evaluate(DOC, Map.of());
    JsonNode andValue =
        SqlParser.parseFilter("FROM c WHERE c.missing < 3 AND false").evaluate(DOC, Map.of());

    assertThat(orValue.isMissingNode()).isTrue();
    assertThat(andValue.booleanValue()).isFalse();
  }

  @Test
  void parameters_areBoundAtEvaluation_andUnboundOnesAreUndefined() {
    SqlExpression e = SqlParser.parseFilter("FROM c WHERE c.status = @s AND c.statusVersion < @v");

    assertThat(e.matches(DOC, Map.of("@s", TextNode.valueOf("Placed"), "@v", IntNode.valueOf(3))))
        .isTrue();
    assertThat(e.matches(DOC, Map.of("@s", TextNode.valueOf("Placed")))).isFalse();
  }

  @Test
  void anotherAlias_isAccepted_butPathsMustStartAtIt() {
    assertThat(SqlParser.parseFilter("from o where o.status = 'Placed'").matches(DOC, Map.of()))
        .isTrue();
    assertThatThrownBy(() -> SqlParser.parseFilter("FROM o WHERE c.status = 'Placed'"))
        .isInstanceOfSatisfying(CosmosError.class, e -> assertThat(e.getMessage()).contains("'c'"));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "WHERE c.a = 1",
        "FROM c c.a = 1",
        "FROM c WHERE",
        "FROM c WHERE c.a = ",
        "FROM c WHERE (c.a = 1",
        "FROM c WHERE c.a = 'open",
        "FROM c WHERE c.a = 1 1",
        "FROM c WHERE c.a & 1 = 2",
        "FROM c WHERE c.a LIKE",
        "FROM c WHERE c.a IN (1, 2",
        "FROM c WHERE c.a BETWEEN 1 2",
        "FROM c WHERE SOUNDEX(c.a) = 'x'",
        "FROM c WHERE STARTSWITH(c.a)",
        "FROM c JOIN t IN c.tags WHERE t = 'a'",
        "FROM c WHERE c.a = #",
      })
  void malformedOrUnsupportedConditions_are400(String condition) {
    assertThatThrownBy(() -> SqlParser.parseFilter(condition))
        .isInstanceOfSatisfying(
            CosmosError.class,
            e -> {
              assertThat(e.status).isEqualTo(400);
              assertThat(e.getMessage()).isNotBlank();
            });
  }
}
