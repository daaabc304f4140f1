package io.idemworker.telemetry;

import static io.idemworker.telemetry.Deliveries.deadLettered;
import static io.idemworker.telemetry.Deliveries.duplicate;
import static io.idemworker.telemetry.Deliveries.order;
import static io.idemworker.telemetry.Deliveries.processed;
import static io.idemworker.telemetry.Deliveries.retried;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.idemworker.core.DeadLetterReason;
import io.idemworker.core.IdempotencyKey;
import io.idemworker.core.IncomingMessage;
import io.idemworker.core.Outcome;
import io.idemworker.core.Outcome.RetryCause;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class OutcomeLogTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Logger logger = (Logger) LoggerFactory.getLogger(OutcomeLog.LOGGER);
  private final ListAppender<ILoggingEvent> lines = new ListAppender<>();
  private Level previousLevel;
  private boolean previousAdditivity;

  @BeforeEach
  void capture() {
    previousLevel = logger.getLevel();
    previousAdditivity = logger.isAdditive();
    logger.setLevel(Level.INFO);
    logger.setAdditive(false);
    lines.start();
    logger.addAppender(lines);
  }

  @AfterEach
  void release() {
    logger.detachAppender(lines);
    logger.setLevel(previousLevel);
    logger.setAdditive(previousAdditivity);
  }

  @Test
  void processedLine_carriesTheIdsAndOutcome_asOneJsonObject() throws Exception {
    new OutcomeLog(io.idemworker.app.OrderTelemetry.NAMES)
        .start(order("ord-1"))
        .finish(processed("ord-1"), Duration.ofNanos(12_345_678), true);

    assertThat(lines.list).hasSize(1);
    ILoggingEvent event = lines.list.get(0);
    assertThat(event.getLevel()).isEqualTo(Level.INFO);
    assertThat(event.getFormattedMessage()).doesNotContain("\n");
    JsonNode line = JSON.readTree(event.getFormattedMessage());
    assertThat(line.get("event").asText()).isEqualTo("message");
    assertThat(line.get("messageId").asText()).isEqualTo("ord-1");
    assertThat(line.get("idempotencyKey").asText()).isEqualTo("ord-1");
    assertThat(line.get("correlationId").asText()).isEqualTo("corr-ord-1");
    assertThat(line.get("orderId").asText()).isEqualTo("ord-1");
    assertThat(line.get("deliveryCount").asLong()).isEqualTo(2);
    assertThat(line.get("outcome").asText()).isEqualTo("processed");
    assertThat(line.get("reason").asText()).isEqualTo("none");
    assertThat(line.get("duplicateSource").isNull()).isTrue();
    assertThat(line.get("description").isNull()).isTrue();
    assertThat(line.get("durationMs").asDouble()).isEqualTo(12.346);
    assertThat(line.get("settled").asBoolean()).isTrue();
    assertThat(line.get("traceId").isNull()).isTrue();
  }

  @Test
  void lines_neverCarryValuesFromTheBody() {
    IncomingMessage message = order("ord-1");
    OutcomeLog log = new OutcomeLog(io.idemworker.app.OrderTelemetry.NAMES);

    log.start(message).finish(processed("ord-1"), Duration.ZERO, true);
    log.start(message).finish(duplicate("ord-1"), Duration.ZERO, true);
    log.start(message)
        .finish(deadLettered("ord-1", DeadLetterReason.SCHEMA_VIOLATION), Duration.ZERO, true);
    log.start(message).finish(retried("ord-1", RetryCause.TRANSIENT), Duration.ZERO, false);

    assertThat(new String(message.body(), StandardCharsets.UTF_8))
        .contains(Deliveries.SECRET_CUSTOMER, "SKU-1");
    assertThat(lines.list).hasSize(4);
    assertThat(lines.list)
        .allSatisfy(
            event ->
                assertThat(event.getFormattedMessage())
                    .doesNotContain(Deliveries.SECRET_CUSTOMER)
                    .doesNotContain("SKU-1")
                    .doesNotContain("9.99"));
  }

  @Test
  void duplicateLine_saysWhereTheRepeatCameFrom() throws Exception {
    new OutcomeLog(io.idemworker.app.OrderTelemetry.NAMES)
        .start(order("ord-1"))
        .finish(
            new Outcome.Duplicate(
                new IdempotencyKey("ord-1"), "ord-1", io.idemworker.core.DuplicateSource.RESEND),
            Duration.ZERO,
            true);

    JsonNode line = JSON.readTree(lines.list.get(0).getFormattedMessage());
    assertThat(line.get("outcome").asText()).isEqualTo("duplicate");
    assertThat(line.get("duplicateSource").asText()).isEqualTo("resend");
    assertThat(line.get("producerAttempt").isNull()).as("not stamped").isTrue();
  }

  @Test
  void duplicateLine_namesTheProducersAttemptWhenStamped() throws Exception {
    Outcome.Duplicate duplicate =
        new Outcome.Duplicate(
            new IdempotencyKey("ord-1"), "ord-1", io.idemworker.core.DuplicateSource.RESEND, 2);

    new OutcomeLog(io.idemworker.app.OrderTelemetry.NAMES)
        .start(order("ord-1"))
        .finish(duplicate, Duration.ZERO, true);

    JsonNode line = JSON.readTree(lines.list.get(0).getFormattedMessage());
    assertThat(line.get("duplicateSource").asText()).isEqualTo("resend");
    assertThat(line.get("producerAttempt").asInt()).isEqualTo(2);
    assertThat(duplicate.provenance()).isEqualTo("resend (producer attempt 2)");
  }

  @Test
  void idempotencyConflict_isLoggedAtError() throws Exception {
    new OutcomeLog(io.idemworker.app.OrderTelemetry.NAMES)
        .start(order("ord-1"))
        .finish(deadLettered("ord-1", DeadLetterReason.IDEMPOTENCY_CONFLICT), Duration.ZERO, true);

    ILoggingEvent event = lines.list.get(0);
    assertThat(event.getLevel()).isEqualTo(Level.ERROR);
    JsonNode line = JSON.readTree(event.getFormattedMessage());
    assertThat(line.get("outcome").asText()).isEqualTo("dead_lettered");
    assertThat(line.get("reason").asText()).isEqualTo("IdempotencyConflict");
    assertThat(line.get("description").asText())
        .isEqualTo("field 'customerId' differs from the stored order");
  }

  @Test
  void levels_followWhetherAPersonIsNeeded() {
    OutcomeLog log = new OutcomeLog(io.idemworker.app.OrderTelemetry.NAMES);
    IncomingMessage message = order("ord-1");

    log.start(message).finish(duplicate("ord-1"), Duration.ZERO, true);
    log.start(message).finish(retried("ord-1", RetryCause.TRANSIENT), Duration.ZERO, true);
    log.start(message)
        .finish(deadLettered("ord-1", DeadLetterReason.UNREADABLE_BODY), Duration.ZERO, true);
    log.start(message).finish(retried("ord-1", RetryCause.MISCONFIGURATION), Duration.ZERO, true);

    assertThat(lines.list)
        .extracting(ILoggingEvent::getLevel)
        .containsExactly(Level.INFO, Level.INFO, Level.WARN, Level.ERROR);
  }

  @Test
  void messageWithoutIds_logsNulls_andEscapesHostileIds() throws Exception {
    IncomingMessage hostile =
        new IncomingMessage(
            Optional.empty(),
            Optional.of("corr\n{\"event\":\"forged\"}"),
            Optional.empty(),
            Optional.empty(),
            Map.of(),
            new byte[0],
            0);
    Outcome outcome =
        new Outcome.DeadLettered(
            Optional.empty(),
            Optional.empty(),
            DeadLetterReason.MISSING_MESSAGE_ID,
            "MessageId is missing");

    new OutcomeLog(io.idemworker.app.OrderTelemetry.NAMES)
        .start(hostile)
        .finish(outcome, Duration.ZERO, true);

    String text = lines.list.get(0).getFormattedMessage();
    assertThat(text).doesNotContain("\n");
    JsonNode line = JSON.readTree(text);
    assertThat(line.get("messageId").isNull()).isTrue();
    assertThat(line.get("idempotencyKey").isNull()).isTrue();
    assertThat(line.get("orderId").isNull()).isTrue();
    assertThat(line.get("correlationId").asText()).isEqualTo("corr\n{\"event\":\"forged\"}");
  }

  @Test
  void insideTelemetry_theLineCarriesTheSpansTraceId() throws Exception {
    InMemorySpanExporter spans = InMemorySpanExporter.create();
    try (OpenTelemetrySdk sdk =
            OpenTelemetrySdk.builder()
                .setTracerProvider(
                    SdkTracerProvider.builder()
                        .addSpanProcessor(SimpleSpanProcessor.create(spans))
                        .build())
                .build();
        Telemetry telemetry =
            new Telemetry(sdk, "orders", io.idemworker.app.OrderTelemetry.NAMES)) {

      telemetry
          .observer(new OutcomeLog(io.idemworker.app.OrderTelemetry.NAMES))
          .start(order("ord-1"))
          .finish(new Outcome.Duplicate(new IdempotencyKey("ord-1"), "ord-1"), Duration.ZERO, true);

      JsonNode line = JSON.readTree(lines.list.get(0).getFormattedMessage());
      assertThat(line.get("traceId").asText())
          .isEqualTo(spans.getFinishedSpanItems().get(0).getTraceId());
    }
  }
}
