package io.idemworker.telemetry;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.idemworker.core.DeadLetterReason;
import io.idemworker.core.DeliveryObserver;
import io.idemworker.core.IdempotencyKey;
import io.idemworker.core.IncomingMessage;
import io.idemworker.core.Outcome;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import java.io.IOException;
import java.io.StringWriter;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * Writes one JSON line per delivery outcome to the logger {@value #LOGGER}, which the shipped
 * {@code logback.xml} sends to stdout as the bare line. Fields:
 *
 * <pre>{@code
 * {"event":"message","messageId":"s-1","idempotencyKey":"s-1","correlationId":"c-1",
 *  "entityId":"s-1","deliveryCount":0,"outcome":"processed","reason":"none",
 *  "duplicateSource":null,"producerAttempt":null,"description":null,
 *  "durationMs":12.5,"settled":true,"traceId":"4bf92f3577b34da6a3ce929d0e0e4736"}
 * }</pre>
 *
 * <p>{@code duplicateSource} says where a duplicate came from ({@code redelivery}, {@code resend},
 * {@code concurrent}, {@code resubmit}, {@code republish}, {@code unknown}); null for other
 * outcomes. {@code producerAttempt} is a duplicate's send attempt as its producer stamped it
 * ({@code idemworker-send-attempt}: a {@code resend} with attempt 2 is a producer's retry), null
 * when not stamped or not a duplicate. Absent values are JSON {@code null}, so every line has every
 * field. The line carries ids, never the body or a value from it other than the entity id (under
 * {@link TelemetryNames#entityLogField()}, {@code entityId} by default); {@code description} is the
 * dead-letter or retry description, which by the outcome's contract names fields, never values. Ids
 * are JSON-escaped, so a hostile message id cannot forge a line.
 *
 * <p>Levels: INFO for processed, duplicate and transient retries (they need nobody); WARN for
 * dead-lettered messages (someone should look at the dead-letter queue) and for a lost lock
 * (recurring ones mean the lock is too short or replicas stall); ERROR for {@code
 * IdempotencyConflict} (a key reused for other content: an alert) and for retries caused by the
 * worker's misconfiguration.
 *
 * <p>{@code traceId} is read from {@link Span#current()} at finish, so run this inside {@link
 * Telemetry#observer(DeliveryObserver)}; it is null when no valid span is current. Thread-safe;
 * never throws.
 */
public final class OutcomeLog implements DeliveryObserver {

  /** The logger name that the outcome lines go to. */
  static final String LOGGER = "idemworker.outcome";

  private static final JsonFactory JSON = new ObjectMapper().getFactory();

  private final Logger logger;
  private final String entityField;

  /** Logs to {@value #LOGGER}, the entity id under {@code entityId}. */
  public OutcomeLog() {
    this(TelemetryNames.defaults());
  }

  /**
   * Logs to {@value #LOGGER}, the entity id under the given names' log field.
   *
   * @param names what the entity a message changes is called
   */
  public OutcomeLog(TelemetryNames names) {
    this(LoggerFactory.getLogger(LOGGER), names);
  }

  /**
   * Logs to the given logger.
   *
   * @param logger where the lines go
   * @param names what the entity a message changes is called
   */
  OutcomeLog(Logger logger, TelemetryNames names) {
    this.logger = logger;
    this.entityField = names.entityLogField();
  }

  @Override
  public Observation start(IncomingMessage message) {
    return (outcome, elapsed, settled) -> {
      try {
        Level level = level(outcome);
        if (logger.isEnabledForLevel(level)) {
          logger.atLevel(level).log(line(message, outcome, elapsed, settled));
        }
      } catch (RuntimeException | IOException e) {
        LoggerFactory.getLogger(OutcomeLog.class).warn("writing an outcome line failed", e);
      }
    };
  }

  /**
   * The level of an outcome's line.
   *
   * @param outcome the outcome
   * @return INFO, WARN or ERROR as described in the class documentation
   */
  static Level level(Outcome outcome) {
    return outcome.fold(
        processed -> Level.INFO,
        duplicate -> Level.INFO,
        stale -> Level.INFO,
        deadLettered ->
            deadLettered.reason().equals(DeadLetterReason.IDEMPOTENCY_CONFLICT)
                ? Level.ERROR
                : Level.WARN,
        retry ->
            switch (retry.cause()) {
              case MISCONFIGURATION -> Level.ERROR;
              // A lost lock is the first sign of a lock too short for the handler, or of
              // stalling replicas: someone should look if they recur.
              case LOCK_LOST -> Level.WARN;
              case TRANSIENT, NOT_YET -> Level.INFO;
            });
  }

  /**
   * The line, streamed field by field: building a tree first and serialising it took as long again
   * as the writing itself, once per message.
   */
  private String line(IncomingMessage message, Outcome outcome, Duration elapsed, boolean settled)
      throws IOException {
    StringWriter text = new StringWriter(384);
    try (JsonGenerator line = JSON.createGenerator(text)) {
      line.writeStartObject();
      line.writeStringField("event", "message");
      line.writeStringField("messageId", message.messageId().orElse(null));
      line.writeStringField("messageType", Telemetry.messageType(message));
      line.writeStringField(
          "idempotencyKey", outcome.knownKey().map(IdempotencyKey::value).orElse(null));
      line.writeStringField("correlationId", message.correlationId().orElse(null));
      line.writeStringField(entityField, outcome.knownEntityId().orElse(null));
      line.writeNumberField("deliveryCount", message.deliveryCount());
      line.writeStringField("outcome", outcome.label());
      line.writeStringField("reason", Telemetry.reason(outcome));
      line.writeStringField(
          "duplicateSource",
          outcome instanceof Outcome.Duplicate duplicate ? duplicate.source().label() : null);
      line.writeFieldName("producerAttempt");
      if (outcome instanceof Outcome.Duplicate duplicate && duplicate.producerAttempt() > 0) {
        line.writeNumber(duplicate.producerAttempt());
      } else {
        line.writeNull();
      }
      line.writeStringField(
          "description",
          outcome
              .<Optional<String>>fold(
                  processed -> Optional.empty(),
                  duplicate -> Optional.empty(),
                  stale -> Optional.of(stale.description()),
                  deadLettered -> Optional.of(deadLettered.description()),
                  retry -> Optional.of(retry.description()))
              .orElse(null));
      line.writeNumberField(
          "durationMs",
          BigDecimal.valueOf(elapsed.toNanos()).movePointLeft(6).setScale(3, RoundingMode.HALF_UP));
      line.writeBooleanField("settled", settled);
      SpanContext span = Span.current().getSpanContext();
      line.writeStringField("traceId", span.isValid() ? span.getTraceId() : null);
      line.writeEndObject();
    }
    return text.toString();
  }
}
