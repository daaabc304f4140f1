package io.idemworker.orders;

import static org.assertj.core.api.Assertions.assertThat;

import io.idemworker.core.Change;
import io.idemworker.core.DeadLetterReason;
import io.idemworker.core.Fingerprint;
import io.idemworker.core.IdempotencyKey;
import io.idemworker.core.IncomingMessage;
import io.idemworker.core.MessageDecoder;
import io.idemworker.core.WriteSet;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class OrderDecoderTest {
  private final OrderDecoder decoder = new OrderDecoder(true);

  private MessageDecoder.Invalid invalid(IncomingMessage message) {
    MessageDecoder.Decoding decoding = decoder.decode(message);
    assertThat(decoding).isInstanceOf(MessageDecoder.Invalid.class);
    return (MessageDecoder.Invalid) decoding;
  }

  @Test
  void validOrder_isDecoded() {
    assertThat(decoder.decode(Orders.order("ord-1"))).isInstanceOf(MessageDecoder.Valid.class);
  }

  @Test
  void unreadableJson_isUnreadableBodyWithAPositionButNoPayload() {
    MessageDecoder.Invalid invalid = invalid(Orders.message("ord-1", "{\"orderId\": secret"));

    assertThat(invalid.reason()).isEqualTo(DeadLetterReason.UNREADABLE_BODY);
    assertThat(invalid.description()).contains("line 1").doesNotContain("secret");
  }

  @Test
  void nonObjectJson_isUnreadableBody() {
    assertThat(invalid(Orders.message("ord-1", "[1,2]")).reason())
        .isEqualTo(DeadLetterReason.UNREADABLE_BODY);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "missing orderId|\"orderId\":\"ord-1\",|\"order\":\"ord-1\",|orderId is missing",
        "bad customerId|\"cust-42\"|\"cust 42 !\"|customerId must be",
        "unknown currency|\"EUR\"|\"EURO\"|currency must be an ISO 4217 code",
        "bad placedAt|\"2026-11-30T10:00:00Z\"|\"yesterday\"|placedAt must be",
        "negative quantity|\"quantity\":2|\"quantity\":-2|lines[0].quantity",
        "fractional quantity|\"quantity\":2|\"quantity\":2.5|lines[0].quantity",
        "negative price|\"unitPrice\":5}|\"unitPrice\":-5}|lines[1].unitPrice",
        "too many decimals|\"unitPrice\":9.99|\"unitPrice\":9.99999|lines[0].unitPrice",
        "empty sku|\"sku\":\"SKU-2\"|\"sku\":\"\"|lines[1].sku",
        "huge exponent|\"unitPrice\":9.99|\"unitPrice\":1e999999999|lines[0].unitPrice",
        "price over the maximum|\"unitPrice\":9.99|\"unitPrice\":1000000000.01|lines[0].unitPrice",
      })
  void schemaViolation_namesTheField(String name, String from, String to, String expected) {
    String body = Orders.body("ord-1", "cust-42").replace(from, to);

    MessageDecoder.Invalid invalid = invalid(Orders.message("ord-1", body));

    assertThat(invalid.reason()).isEqualTo(DeadLetterReason.SCHEMA_VIOLATION);
    assertThat(invalid.description()).contains(expected);
  }

  @Test
  void emptyLines_isASchemaViolation() {
    String body =
        "{\"orderId\":\"o\",\"customerId\":\"c\",\"currency\":\"EUR\","
            + "\"placedAt\":\"2026-11-30T10:00:00Z\",\"lines\":[]}";

    assertThat(invalid(Orders.message("o", body)).description()).contains("lines must be");
  }

  @Test
  void everyViolationIsReportedAtOnce() {
    String body = "{\"orderId\":\"o\",\"currency\":\"XXXX\",\"lines\":[{\"quantity\":0}]}";

    assertThat(invalid(Orders.message("o", body)).description())
        .contains("customerId is missing")
        .contains("currency")
        .contains("placedAt is missing")
        .contains("lines[0].sku")
        .contains("lines[0].quantity")
        .contains("lines[0].unitPrice");
  }

  @Test
  void messageIdDifferentFromOrderId_isAMismatch() {
    MessageDecoder.Invalid invalid = invalid(Orders.message("ord-2", Orders.body("ord-1", "c")));

    assertThat(invalid.reason()).isEqualTo(DeadLetterReason.MESSAGE_ID_MISMATCH);
    assertThat(invalid.entityId()).contains("ord-1");
  }

  @Test
  void withCloudEventsKeys_theMessageIdNeedNotMatch() {
    assertThat(new OrderDecoder(false).decode(Orders.message("x", Orders.body("ord-1", "c"))))
        .isInstanceOf(MessageDecoder.Valid.class);
  }

  @Test
  void wrongSubjectOrContentType_isUnsupported() {
    IncomingMessage wrongSubject =
        new IncomingMessage(
            Optional.of("o"),
            Optional.empty(),
            Optional.of("OrderCancelled"),
            Optional.empty(),
            Map.of(),
            Orders.body("o", "c").getBytes(StandardCharsets.UTF_8),
            0);
    IncomingMessage xml =
        new IncomingMessage(
            Optional.of("o"),
            Optional.empty(),
            Optional.empty(),
            Optional.of("application/xml"),
            Map.of(),
            Orders.body("o", "c").getBytes(StandardCharsets.UTF_8),
            0);

    assertThat(invalid(wrongSubject).reason()).isEqualTo(DeadLetterReason.UNSUPPORTED_MESSAGE);
    assertThat(invalid(xml).description()).contains("ContentType");
  }

  @Test
  void writeSet_holdsTheOrderWithItsLinesAndADeterministicOutboxEvent() {
    MessageDecoder.ValidMessage valid =
        ((MessageDecoder.Valid) decoder.decode(Orders.order("ord-1"))).message();
    Fingerprint fingerprint = Fingerprint.of(valid.immutableFields());
    IdempotencyKey key = new IdempotencyKey("ord-1");

    WriteSet first =
        writeSetOf(valid.change(key, fingerprint, Instant.parse("2026-11-30T12:00:00Z")));
    WriteSet replay =
        writeSetOf(valid.change(key, fingerprint, Instant.parse("2026-11-30T13:00:00Z")));

    assertThat(first.anchorId()).isEqualTo("ord-1");
    assertThat(first.documents()).hasSize(2);
    assertThat(first.anchor().path("lines")).hasSize(2);
    assertThat(first.documents())
        .allSatisfy(d -> assertThat(d.get("orderId").asText()).isEqualTo("ord-1"));
    assertThat(first.documents().get(1).get("id").asText())
        .isEqualTo(replay.documents().get(1).get("id").asText())
        .matches("[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
    assertThat(first.anchor().get("fingerprint").asText()).isEqualTo(fingerprint.value());
  }

  @Test
  void manyLines_liveInTheOrderDocument_soTheBatchHoldsTheOrderAndItsEventOnly() {
    String body = orderWithLines(500, "S");
    MessageDecoder.ValidMessage valid =
        ((MessageDecoder.Valid) decoder.decode(Orders.message("o", body))).message();

    WriteSet writeSet =
        writeSetOf(
            valid.change(
                new IdempotencyKey("o"), Fingerprint.of(valid.immutableFields()), Instant.EPOCH));

    assertThat(writeSet.anchor().path("lines")).hasSize(500);
    assertThat(writeSet.documents())
        .extracting(d -> d.path("type").asText())
        .containsExactly("order", "outbox");
  }

  @Test
  void anOrderTooLargeForItsDocument_isRefusedNamingLines_beforeAnyWrite() {
    String sku = "S".repeat(OrderPlaced.MAX_SKU_LENGTH - 6);
    int perLine = ("{\"sku\":\"" + sku + "000000\",\"quantity\":1,\"unitPrice\":1},").length();
    String body = orderWithLines(OrderPlaced.MAX_DOCUMENT_BYTES / perLine + 1, sku);

    String description = invalid(Orders.message("o", body)).description();

    assertThat(body.length()).isGreaterThan(OrderPlaced.MAX_DOCUMENT_BYTES - 4096);
    assertThat(description)
        .contains("lines make the order document larger than Cosmos DB's item limit");
  }

  private static String orderWithLines(int count, String skuPrefix) {
    StringBuilder lines = new StringBuilder();
    for (int i = 0; i < count; i++) {
      lines
          .append(i == 0 ? "" : ",")
          .append("{\"sku\":\"")
          .append(skuPrefix)
          .append(String.format("%06d", i))
          .append("\",\"quantity\":1,\"unitPrice\":1}");
    }
    return "{\"orderId\":\"o\",\"customerId\":\"c\",\"currency\":\"EUR\","
        + "\"placedAt\":\"2026-11-30T10:00:00Z\",\"lines\":["
        + lines
        + "]}";
  }

  @Test
  void manyViolations_areListedUpToTenSoTheDescriptionStaysShort() {
    StringBuilder lines = new StringBuilder();
    for (int i = 0; i < 98; i++) {
      lines.append(i == 0 ? "" : ",").append("{\"sku\":\"\",\"quantity\":0,\"unitPrice\":-1}");
    }
    String body =
        "{\"orderId\":\"o\",\"customerId\":\"c\",\"currency\":\"EUR\","
            + "\"placedAt\":\"2026-11-30T10:00:00Z\",\"lines\":["
            + lines
            + "]}";

    String description = invalid(Orders.message("o", body)).description();

    assertThat(description).endsWith("; and " + (3 * 98 - 10) + " more");
    assertThat(description.length()).isLessThan(1000);
  }

  private static WriteSet writeSetOf(Change change) {
    assertThat(change).isInstanceOf(Change.Anchored.class);
    return ((Change.Anchored) change).writeSet();
  }
}
