package io.idemworker.orders;

import static org.assertj.core.api.Assertions.assertThat;

import io.idemworker.core.DeadLetterReason;
import io.idemworker.core.MessageDecoder;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Extra fields that Cosmos DB would not store as sent, and bodies past the parser's limits. */
class OrderDecoderHardeningTest {
  private final OrderDecoder decoder = new OrderDecoder(true);

  private static String withExtra(String member) {
    return Orders.body("ord-1", "cust-1").trim().replaceFirst("\\}$", "") + "," + member + "}";
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "beyond the double range|\"note\":1e400|note is a number that Cosmos DB cannot store exactly",
        "below the smallest double|\"note\":1e-400|note is a number",
        "more precision than a double|\"a\":{\"b\":[1,0.10000000000000000001]}|a.b[1] is a number",
        "integer past 2^53 that rounds|\"n\":9007199254740993|n is a number",
        "unpaired surrogate|\"s\":\"\\ud800\"|s is a string with an unpaired UTF-16 surrogate"
      })
  void extraFieldCosmosWouldAlter_isDeadLetteredNamingTheField(
      String what, String member, String expected) {
    MessageDecoder.Decoding decoding = decoder.decode(Orders.message("ord-1", withExtra(member)));

    assertThat(decoding).isInstanceOf(MessageDecoder.Invalid.class);
    MessageDecoder.Invalid invalid = (MessageDecoder.Invalid) decoding;
    assertThat(invalid.reason()).isEqualTo(DeadLetterReason.SCHEMA_VIOLATION);
    assertThat(invalid.description()).contains(expected);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "exact integer|\"n\":9007199254740992",
        "decimal a double reads back|\"p\":0.1",
        "big exact power of two|\"n\":18446744073709551616",
        "paired surrogates|\"s\":\"\\ud83d\\ude00\""
      })
  void extraFieldCosmosKeepsExactly_isAccepted(String what, String member) {
    assertThat(decoder.decode(Orders.message("ord-1", withExtra(member))))
        .isInstanceOf(MessageDecoder.Valid.class);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {"a 200,000-digit number|number|Number value length", "a 200 KB key|key|Name length"})
  void validJsonPastTheParserLimits_saysSo(String what, String kind, String limit) {
    String big = "9".repeat(200_000);
    String member = kind.equals("number") ? "\"n\":" + big : "\"" + "k".repeat(200_000) + "\":1";

    MessageDecoder.Invalid invalid =
        (MessageDecoder.Invalid) decoder.decode(Orders.message("ord-1", withExtra(member)));

    assertThat(invalid.reason()).isEqualTo(DeadLetterReason.UNREADABLE_BODY);
    assertThat(invalid.description())
        .startsWith("body is beyond the JSON parser's limits")
        .contains(limit)
        .doesNotContain("999")
        .doesNotContain("kkk");
  }
}
