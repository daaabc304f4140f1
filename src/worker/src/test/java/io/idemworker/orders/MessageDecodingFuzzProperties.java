package io.idemworker.orders;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.core.Change;
import io.idemworker.core.Fingerprint;
import io.idemworker.core.IdempotencyKey;
import io.idemworker.core.IncomingMessage;
import io.idemworker.core.MessageDecoder;
import io.idemworker.core.WriteSet;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;

/**
 * Fuzzes message decoding: generated bodies (arbitrary JSON values, numbers at and beyond every
 * limit, odd Unicode, duplicate keys, deep nesting, trailing bytes) and application properties of
 * every AMQP type. Every input must decode to valid or invalid-with-a-reason, never throw, and a
 * valid one must reach Cosmos DB unchanged: its extra fields, written as the SDK writes them and
 * read back as the service (and the emulator) reads numbers, equal the fields sent.
 *
 * <p>Seeded; 1,000 tries by default ({@code jqwik.tries.default}); {@code -Pfuzz} runs more.
 */
class MessageDecodingFuzzProperties {
  private static final ObjectMapper SDK = new ObjectMapper();
  private static final ObjectMapper SERVICE = new ObjectMapper();
  private static final Comparator<JsonNode> NUMERIC =
      (a, b) -> {
        if (a.isNumber() && b.isNumber()) {
          return a.decimalValue().compareTo(b.decimalValue());
        }
        return a.equals(b) ? 0 : 1;
      };
  private final OrderDecoder decoder = new OrderDecoder(true);

  @Property(seed = "20261130")
  void everyBodyIsProcessedOrDeadLetteredWithAReason_andNothingChangesOnTheWay(
      @ForAll("bodies") String extras, @ForAll("properties") Map<String, Object> props)
      throws Exception {
    String body = Orders.body("ord-1", "cust-1").trim().replaceFirst("\\}$", "") + extras + "}";
    IncomingMessage message =
        new IncomingMessage(
            Optional.of("ord-1"),
            Optional.empty(),
            Optional.of("OrderPlaced"),
            Optional.of("application/json"),
            props,
            body.getBytes(StandardCharsets.UTF_8),
            0);

    MessageDecoder.Decoding decoding = decoder.decode(message);
    Statistics.collect(decoding instanceof MessageDecoder.Valid ? "valid" : "dead-lettered");
    Statistics.coverage(
        coverage -> {
          coverage.check("valid").percentage(p -> p > 20);
          coverage.check("dead-lettered").percentage(p -> p > 20);
        });

    if (decoding instanceof MessageDecoder.Invalid invalid) {
      assertThat(invalid.description()).isNotBlank();
      return;
    }
    MessageDecoder.ValidMessage valid = ((MessageDecoder.Valid) decoding).message();
    WriteSet writes =
        ((Change.Anchored)
                valid.change(
                    new IdempotencyKey("ord-1"),
                    Fingerprint.of(valid.immutableFields()),
                    Instant.parse("2026-11-30T10:00:00Z")))
            .writeSet();
    for (ObjectNode document : writes.documents()) {
      assertThat(SERVICE.readTree(SDK.writeValueAsBytes(document))).isNotNull();
    }
    ObjectNode anchor = writes.documents().get(0);
    JsonNode stored = SERVICE.readTree(SDK.writeValueAsBytes(anchor));
    JsonNode readBack = OrderPlacedReader.MAPPER.readTree(SERVICE.writeValueAsBytes(stored));
    JsonNode sent = OrderPlacedReader.MAPPER.readTree(body);
    ObjectNode sentExtras =
        ((ObjectNode) sent.deepCopy())
            .without(List.of("orderId", "customerId", "currency", "placedAt", "lines"));
    JsonNode keptExtras = readBack.path("extraFields");
    if (sentExtras.isEmpty()) {
      assertThat(keptExtras.isMissingNode()).isTrue();
    } else {
      assertThat(keptExtras.equals(NUMERIC, sentExtras))
          .as("extra fields reach the store unchanged: sent %s, stored %s", sentExtras, keptExtras)
          .isTrue();
    }
  }

  @Provide
  Arbitrary<String> bodies() {
    Arbitrary<String> member =
        Arbitraries.frequencyOf(
            Tuple.of(6, Arbitraries.lazy(() -> jsonValue(2)).map(v -> ",\"x\":" + v)),
            Tuple.of(
                3,
                Combinators.combine(key(), Arbitraries.lazy(() -> jsonValue(2)))
                    .as((k, v) -> "," + k + ":" + v)),
            Tuple.of(1, Arbitraries.of(",\"orderId\":\"ord-2\"", ",\"x\":1,\"x\":2")),
            Tuple.of(
                1,
                Arbitraries.integers().between(1, 1100).map(MessageDecodingFuzzProperties::nested)),
            Tuple.of(1, Arbitraries.of("} {", "}}", "]", ",", ",\"x\":", "} trailing")));
    return member.list().ofMaxSize(4).map(list -> String.join("", list));
  }

  private static String nested(int depth) {
    return ",\"deep\":" + "[".repeat(depth) + "1" + "]".repeat(depth);
  }

  private static Arbitrary<String> key() {
    // Names at the parser's 50,000-character limit are costly: rare, not absent.
    return Arbitraries.frequencyOf(
        Tuple.of(
            10, Arbitraries.of("\"a\"", "\"b\"", "\"\"", "\"\\u0000\"", "\"\\ud800\"", "\"é\"")),
        Tuple.of(10, strings()),
        Tuple.of(
            1,
            Arbitraries.integers().between(49_990, 50_010).map(n -> "\"" + "k".repeat(n) + "\"")));
  }

  private static Arbitrary<String> jsonValue(int depth) {
    List<Tuple.Tuple2<Integer, Arbitrary<String>>> choices = new ArrayList<>();
    choices.add(Tuple.of(5, numbers()));
    choices.add(Tuple.of(4, strings()));
    choices.add(Tuple.of(1, Arbitraries.of("true", "false", "null")));
    if (depth > 0) {
      choices.add(
          Tuple.of(
              2,
              jsonValue(depth - 1).list().ofMaxSize(4).map(l -> "[" + String.join(",", l) + "]")));
      choices.add(
          Tuple.of(
              2,
              Combinators.combine(key(), jsonValue(depth - 1))
                  .as((k, v) -> k + ":" + v)
                  .list()
                  .ofMaxSize(4)
                  .map(l -> "{" + String.join(",", l) + "}")));
    }
    return Arbitraries.frequencyOf(choices);
  }

  static Arbitrary<String> numbers() {
    return Arbitraries.oneOf(
        Arbitraries.of(
            "0",
            "-0",
            "0.0",
            "-0.0",
            "1e400",
            "-1e400",
            "1e-400",
            "4.9e-324",
            "2.5e-324",
            "1.7976931348623157e308",
            "1.7976931348623159e308",
            "9007199254740993",
            "9223372036854775807",
            "9223372036854775808",
            "-9223372036854775809",
            "18446744073709551616",
            "0.1",
            "0.10000000000000000001",
            "1e999999999",
            "1E-999999999",
            "123456789012345678901234567890",
            "1.5",
            "2e-5",
            "1E+2"),
        Arbitraries.integers().between(990, 1010).map(n -> "9".repeat(n)),
        Arbitraries.integers().between(990, 1010).map(n -> "0." + "1".repeat(n)),
        Arbitraries.longs().map(l -> Long.toString(l)),
        Arbitraries.doubles()
            .map(d -> Double.toString(d))
            .filter(s -> !s.contains("Infinity") && !s.equals("NaN")),
        Arbitraries.bigIntegers()
            .between(BigInteger.TEN.pow(30).negate(), BigInteger.TEN.pow(30))
            .map(BigInteger::toString),
        Arbitraries.bigDecimals()
            .between(BigDecimal.valueOf(-1e20), BigDecimal.valueOf(1e20))
            .ofScale(25)
            .map(BigDecimal::toString));
  }

  static Arbitrary<String> strings() {
    return Arbitraries.oneOf(
        Arbitraries.strings().all().ofMaxLength(20).map(MessageDecodingFuzzProperties::quote),
        Arbitraries.of(
            "\"\\ud83d\\ude00\"",
            "\"\\udc00\"",
            "\"\\ud800x\"",
            "\"\\u0000\"",
            "\"\\uffff\"",
            "\"\u202e\"",
            "\"\ufeff\"",
            "\"\\\"\"",
            "\"\\\\\""));
  }

  /** JSON string literal escaping every non-ASCII char, so unpaired surrogates survive as text. */
  private static String quote(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') {
        b.append('\\').append(c);
      } else if (c < 0x20 || c > 0x7e) {
        b.append(String.format("\\u%04x", (int) c));
      } else {
        b.append(c);
      }
    }
    return b.append('"').toString();
  }

  @Provide
  Arbitrary<Map<String, Object>> properties() {
    Arbitrary<Object> value =
        Arbitraries.oneOf(
            Arbitraries.strings().all().ofMaxLength(10).map(s -> (Object) s),
            Arbitraries.integers().map(i -> (Object) i),
            Arbitraries.longs().map(l -> (Object) l),
            Arbitraries.shorts().map(s -> (Object) s),
            Arbitraries.bytes().map(b -> (Object) b),
            Arbitraries.doubles().map(d -> (Object) d),
            Arbitraries.floats().map(f -> (Object) f),
            Arbitraries.chars().map(c -> (Object) c),
            Arbitraries.of(true, false).map(b -> (Object) b),
            Arbitraries.of(Double.NaN, Double.POSITIVE_INFINITY, -0.0).map(d -> (Object) d),
            Arbitraries.longs().map(l -> (Object) new Date(l)),
            Arbitraries.longs().map(l -> (Object) new UUID(l, ~l)),
            Arbitraries.bytes().array(byte[].class).ofMaxSize(8).map(b -> (Object) b),
            Arbitraries.just((Object) new BigDecimal("1e400")));
    return Arbitraries.maps(
            Arbitraries.oneOf(
                Arbitraries.of("correlationId", "traceparent", "source", "id", "type", ""),
                Arbitraries.strings().all().ofMaxLength(8)),
            value)
        .ofMaxSize(5)
        .map(HashMap::new);
  }
}
