package io.idemworker.telemetry;

import io.idemworker.core.DeliveryObserver;
import io.idemworker.core.IncomingMessage;
import io.idemworker.core.Outcome;
import io.idemworker.cosmos.StoreCallListener;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.metrics.DoubleHistogram;
import io.opentelemetry.api.metrics.LongCounter;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.api.metrics.ObservableLongGauge;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.common.CompletableResultCode;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Metrics and traces for the worker, plus plain in-process counts.
 *
 * <p>Instruments (meter and tracer scope {@value #SCOPE}):
 *
 * <ul>
 *   <li>{@code idemworker.messages.received} — counter, one per delivery that arrived;
 *   <li>{@code idemworker.messages.outcomes} — counter with {@code outcome} ({@code processed},
 *       {@code duplicate}, {@code stale}, {@code dead_lettered}, {@code retried}), {@code reason}
 *       (the dead-letter reason code, {@code transient}, {@code not_yet} or {@code
 *       misconfiguration} for retries, {@code none} otherwise) and {@code message_type} (the
 *       Subject, or {@code none});
 *   <li>{@code idemworker.settlements.failed} — counter with {@code outcome};
 *   <li>{@code idemworker.message.duration} — histogram in seconds, arrival to settlement, with
 *       {@code outcome};
 *   <li>{@code idemworker.messages.unbalanced} — gauge, received minus outcomes: 0 when idle, the
 *       number in flight otherwise; a value that stays above 0 when idle means deliveries that
 *       never reached an outcome;
 *   <li>{@code idemworker.cosmos.calls} — counter with {@code operation} and {@code status_code};
 *   <li>{@code idemworker.cosmos.request_charge} — histogram of request units per call, with {@code
 *       operation}.
 * </ul>
 *
 * <p>The outbox relay's instruments are {@link RelayMetrics}; session mode's, {@link
 * SessionMetrics}.
 *
 * <p>Each delivery gets one CONSUMER span that continues the producer's trace from the message's
 * {@code traceparent}/{@code tracestate} application properties, or from {@code Diagnostic-Id}
 * (which Service Bus SDKs fill with a traceparent value), and starts a new trace without either.
 * The span is current on the processing thread between {@code start} and {@code finish}, so
 * whatever runs inside (SDK calls, the outcome log's trace id) joins it.
 *
 * <p>Thread-safe. Observers and listeners never throw. {@link #close()} closes what this instance
 * created; an {@link OpenTelemetry} passed in by the caller stays the caller's to shut down.
 */
public final class Telemetry implements AutoCloseable {

  /** The instrumentation scope name of every instrument and span. */
  static final String SCOPE = "io.idemworker";

  private static final Logger log = LoggerFactory.getLogger(Telemetry.class);

  private static final String NO_REASON = "none";
  private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(10);

  private static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("outcome");
  private static final AttributeKey<String> REASON = AttributeKey.stringKey("reason");
  private static final AttributeKey<String> MESSAGE_TYPE = AttributeKey.stringKey("message_type");
  private static final AttributeKey<String> DUPLICATE_SOURCE =
      AttributeKey.stringKey("duplicate_source");
  private static final AttributeKey<String> OPERATION = AttributeKey.stringKey("operation");
  private static final AttributeKey<String> STATUS_CODE = AttributeKey.stringKey("status_code");

  private static final AttributeKey<String> MESSAGING_SYSTEM =
      AttributeKey.stringKey("messaging.system");
  private static final AttributeKey<String> MESSAGING_OPERATION_TYPE =
      AttributeKey.stringKey("messaging.operation.type");
  private static final AttributeKey<String> MESSAGING_OPERATION_NAME =
      AttributeKey.stringKey("messaging.operation.name");
  private static final AttributeKey<String> MESSAGING_DESTINATION =
      AttributeKey.stringKey("messaging.destination.name");
  private static final AttributeKey<String> MESSAGING_MESSAGE_ID =
      AttributeKey.stringKey("messaging.message.id");
  private static final AttributeKey<String> MESSAGING_CONVERSATION_ID =
      AttributeKey.stringKey("messaging.message.conversation_id");
  private static final AttributeKey<Long> MESSAGING_DELIVERY_COUNT =
      AttributeKey.longKey("messaging.servicebus.message.delivery_count");
  private static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");
  private static final AttributeKey<String> SPAN_OUTCOME =
      AttributeKey.stringKey("idemworker.outcome");
  private static final AttributeKey<String> SPAN_REASON =
      AttributeKey.stringKey("idemworker.reason");
  private static final AttributeKey<String> SPAN_KEY =
      AttributeKey.stringKey("idemworker.idempotency_key");
  private static final AttributeKey<Boolean> SPAN_SETTLED =
      AttributeKey.booleanKey("idemworker.settled");

  private final TelemetryExport export;
  private final Optional<OpenTelemetrySdk> owned;
  private final String queueName;
  private final String spanName;
  private final TelemetryNames names;
  private final AttributeKey<String> spanEntityId;
  private final Tracer tracer;
  private final Meter meter;

  private final LongCounter receivedCounter;
  private final LongCounter outcomeCounter;
  private final LongCounter settlementFailureCounter;
  private final DoubleHistogram durationHistogram;
  private final LongCounter cosmosCallCounter;
  private final DoubleHistogram requestChargeHistogram;
  private final ObservableLongGauge unbalancedGauge;

  private final LongAdder received = new LongAdder();
  private final LongAdder processed = new LongAdder();
  private final LongAdder duplicates = new LongAdder();
  private final Map<String, LongAdder> duplicatesBySource = new ConcurrentHashMap<>();
  private final LongAdder stale = new LongAdder();
  private final Map<String, LongAdder> deadLettered = new ConcurrentHashMap<>();
  private final Map<String, LongAdder> retried = new ConcurrentHashMap<>();
  private final LongAdder settlementFailures = new LongAdder();
  private final Map<String, LongAdder> cosmosCalls = new ConcurrentHashMap<>();
  private final DoubleAdder requestCharge = new DoubleAdder();
  private final AtomicBoolean closed = new AtomicBoolean();

  /**
   * Telemetry on a caller-owned OpenTelemetry with the library's {@link TelemetryNames#defaults()}.
   *
   * @param openTelemetry where instruments and spans are created; {@link #close()} does not shut it
   *     down
   * @param queueName the queue the deliveries come from, for span names and attributes
   */
  Telemetry(OpenTelemetry openTelemetry, String queueName) {
    this(openTelemetry, queueName, TelemetryNames.defaults());
  }

  /**
   * Telemetry on a caller-owned OpenTelemetry, e.g. the application's own SDK or one with in-memory
   * readers in tests.
   *
   * @param openTelemetry where instruments and spans are created; {@link #close()} does not shut it
   *     down
   * @param queueName the queue or subscription the deliveries come from, for span names and
   *     attributes
   * @param names what spans, log lines and session metrics call the entity a message changes
   * @return the telemetry
   */
  public static Telemetry on(OpenTelemetry openTelemetry, String queueName, TelemetryNames names) {
    return new Telemetry(openTelemetry, queueName, names);
  }

  Telemetry(OpenTelemetry openTelemetry, String queueName, TelemetryNames names) {
    this(openTelemetry, queueName, names, new TelemetryExport.None(), Optional.empty());
  }

  private Telemetry(
      OpenTelemetry openTelemetry,
      String queueName,
      TelemetryNames names,
      TelemetryExport export,
      Optional<OpenTelemetrySdk> owned) {
    Objects.requireNonNull(openTelemetry, "openTelemetry");
    this.queueName = Objects.requireNonNull(queueName, "queueName");
    this.names = Objects.requireNonNull(names, "names");
    this.spanEntityId = AttributeKey.stringKey(names.entitySpanAttribute());
    this.export = export;
    this.owned = owned;
    this.spanName = "process " + queueName;
    this.tracer = openTelemetry.getTracer(SCOPE);
    this.meter = openTelemetry.getMeter(SCOPE);
    receivedCounter =
        meter
            .counterBuilder("idemworker.messages.received")
            .setDescription("Deliveries that arrived")
            .setUnit("{message}")
            .build();
    outcomeCounter =
        meter
            .counterBuilder("idemworker.messages.outcomes")
            .setDescription("Deliveries that reached an outcome, by outcome and reason")
            .setUnit("{message}")
            .build();
    settlementFailureCounter =
        meter
            .counterBuilder("idemworker.settlements.failed")
            .setDescription("Settlements that failed; the broker redelivers those messages")
            .setUnit("{message}")
            .build();
    durationHistogram =
        meter
            .histogramBuilder("idemworker.message.duration")
            .setDescription("Time from arrival to settlement")
            .setUnit("s")
            .setExplicitBucketBoundariesAdvice(
                List.of(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0))
            .build();
    cosmosCallCounter =
        meter
            .counterBuilder("idemworker.cosmos.calls")
            .setDescription("Cosmos DB round trips, by operation and status code")
            .setUnit("{call}")
            .build();
    requestChargeHistogram =
        meter
            .histogramBuilder("idemworker.cosmos.request_charge")
            .setDescription("Request units charged per Cosmos DB round trip")
            .setUnit("{RU}")
            .setExplicitBucketBoundariesAdvice(
                List.of(1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1000.0))
            .build();
    unbalancedGauge =
        meter
            .gaugeBuilder("idemworker.messages.unbalanced")
            .setDescription("Deliveries received minus deliveries that reached an outcome")
            .setUnit("{message}")
            .ofLongs()
            .buildWithCallback(measurement -> measurement.record(counts().unbalanced()));
  }

  /**
   * Telemetry exporting where the environment says (see {@link TelemetryExport#choose}); this
   * instance owns the SDK and {@link #close()} flushes and shuts it down.
   *
   * @param environment the OpenTelemetry and Azure Monitor variables (see {@link
   *     TelemetryExport#choose})
   * @param queueName the queue or subscription the deliveries come from, for span names and
   *     attributes
   * @param names what spans, log lines and session metrics call the entity a message changes
   * @return the telemetry
   * @throws IllegalArgumentException naming the variable when a value cannot be used
   */
  public static Telemetry fromEnvironment(
      Map<String, String> environment, String queueName, TelemetryNames names) {
    Map<String, String> copy = new HashMap<>(environment);
    TelemetryExport export = TelemetryExport.choose(copy);
    OpenTelemetrySdk sdk = export.openTelemetry(copy);
    return new Telemetry(sdk, queueName, names, export, Optional.of(sdk));
  }

  /**
   * The names this telemetry gives the entity a message changes.
   *
   * @return the names
   */
  public TelemetryNames names() {
    return names;
  }

  /**
   * Where this instance exports.
   *
   * @return the export; {@link TelemetryExport.None} for a caller-owned OpenTelemetry
   */
  public TelemetryExport export() {
    return export;
  }

  /**
   * The observer that counts deliveries and traces each in a span.
   *
   * @return the observer
   */
  public DeliveryObserver observer() {
    return observer(DeliveryObserver.none());
  }

  /**
   * The observer that counts deliveries and traces each in a span, and runs {@code inside} while
   * that span is current: its {@code start} after the span began, its {@code finish} before the
   * span ends. Use it for observers that read {@link Span#current()}, such as {@link OutcomeLog}.
   *
   * @param inside the observer to run inside the span
   * @return the observer
   */
  public DeliveryObserver observer(DeliveryObserver inside) {
    Objects.requireNonNull(inside, "inside");
    return message -> {
      received.increment();
      receivedCounter.add(1);
      Span span = startSpan(message);
      Scope scope = span.makeCurrent();
      Thread startThread = Thread.currentThread();
      DeliveryObserver.Observation insideObservation = startInside(inside, message);
      String messageType = messageType(message);
      return (outcome, elapsed, settled) -> {
        try {
          insideObservation.finish(outcome, elapsed, settled);
        } catch (RuntimeException e) {
          log.warn("an outcome observer failed; the outcome was still counted", e);
        } finally {
          try {
            record(outcome, messageType, elapsed, settled);
            endSpan(span, outcome, settled);
          } catch (RuntimeException e) {
            log.warn("recording an outcome failed", e);
          } finally {
            // Closing a scope on another thread would corrupt that thread's context; the worker
            // finishes on the thread that started.
            if (Thread.currentThread() == startThread) {
              scope.close();
            }
          }
        }
      };
    };
  }

  /**
   * The outbox relay's instruments, on this telemetry's meter.
   *
   * @return new instruments; close them with the relay
   */
  public RelayMetrics relayMetrics() {
    return new RelayMetrics(meter);
  }

  /**
   * Session mode's instruments, on this telemetry's meter.
   *
   * @return the listener to give {@link io.idemworker.servicebus.sessions.SessionEvents}
   */
  public SessionMetrics sessionMetrics() {
    return new SessionMetrics(meter, names.sessionEntities());
  }

  /**
   * The listener that counts Cosmos DB round trips and their request charge.
   *
   * @return the listener
   */
  public StoreCallListener storeListener() {
    return (operation, statusCode, charge, latency) -> {
      cosmosCalls.computeIfAbsent(operation, k -> new LongAdder()).increment();
      requestCharge.add(charge);
      cosmosCallCounter.add(
          1, Attributes.of(OPERATION, operation, STATUS_CODE, Integer.toString(statusCode)));
      requestChargeHistogram.record(charge, Attributes.of(OPERATION, operation));
    };
  }

  /**
   * The in-process counts now. Each count is read separately, so while deliveries are in flight the
   * snapshot may be off by those deliveries.
   *
   * @return the snapshot
   */
  public TelemetryCounts counts() {
    return new TelemetryCounts(
        received.sum(),
        processed.sum(),
        duplicates.sum(),
        stale.sum(),
        sums(deadLettered),
        sums(retried),
        settlementFailures.sum(),
        sums(cosmosCalls),
        requestCharge.sum(),
        sums(duplicatesBySource));
  }

  /**
   * Stops the unbalanced gauge and, when this instance owns the SDK, flushes what is buffered and
   * shuts the SDK down, waiting at most 10 seconds in all. Idempotent; never throws.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    unbalancedGauge.close();
    owned.ifPresent(
        sdk -> {
          long deadline = System.nanoTime() + CLOSE_TIMEOUT.toNanos();
          CompletableResultCode flushed = sdk.getSdkTracerProvider().forceFlush();
          flushed.join(remaining(deadline), TimeUnit.NANOSECONDS);
          CompletableResultCode metrics = sdk.getSdkMeterProvider().forceFlush();
          metrics.join(remaining(deadline), TimeUnit.NANOSECONDS);
          CompletableResultCode shutdown = sdk.shutdown();
          shutdown.join(remaining(deadline), TimeUnit.NANOSECONDS);
          if (!flushed.isSuccess() || !metrics.isSuccess() || !shutdown.isSuccess()) {
            log.info("telemetry did not flush completely before shutdown ({})", export.describe());
          }
        });
  }

  private Span startSpan(IncomingMessage message) {
    try {
      return buildSpan(message).startSpan();
    } catch (RuntimeException e) {
      log.warn("starting a message span failed; the message is counted but not traced", e);
      return Span.getInvalid();
    }
  }

  private SpanBuilder buildSpan(IncomingMessage message) {
    Context parent =
        W3CTraceContextPropagator.getInstance()
            .extract(Context.root(), message.applicationProperties(), PropertiesGetter.INSTANCE);
    SpanBuilder builder =
        tracer
            .spanBuilder(spanName)
            .setSpanKind(SpanKind.CONSUMER)
            .setParent(parent)
            .setAttribute(MESSAGING_SYSTEM, "servicebus")
            .setAttribute(MESSAGING_OPERATION_TYPE, "process")
            .setAttribute(MESSAGING_OPERATION_NAME, "process")
            .setAttribute(MESSAGING_DESTINATION, queueName)
            .setAttribute(MESSAGING_DELIVERY_COUNT, message.deliveryCount());
    message.messageId().ifPresent(id -> builder.setAttribute(MESSAGING_MESSAGE_ID, id));
    message.correlationId().ifPresent(id -> builder.setAttribute(MESSAGING_CONVERSATION_ID, id));
    return builder;
  }

  private static DeliveryObserver.Observation startInside(
      DeliveryObserver inside, IncomingMessage message) {
    try {
      return inside.start(message);
    } catch (RuntimeException e) {
      log.warn("an outcome observer failed to start", e);
      return (outcome, elapsed, settled) -> {};
    }
  }

  private void record(Outcome outcome, String messageType, Duration elapsed, boolean settled) {
    String label = outcome.label();
    String reason = reason(outcome);
    outcome.fold(
        p -> increment(processed),
        d -> increment(duplicates),
        st -> increment(stale),
        dl -> increment(deadLettered.computeIfAbsent(reason, k -> new LongAdder())),
        r -> increment(retried.computeIfAbsent(reason, k -> new LongAdder())));
    Attributes byOutcome = Attributes.of(OUTCOME, label);
    String source = duplicateSource(outcome);
    if (outcome instanceof Outcome.Duplicate) {
      increment(duplicatesBySource.computeIfAbsent(source, k -> new LongAdder()));
    }
    outcomeCounter.add(
        1,
        Attributes.of(
            OUTCOME, label, REASON, reason, MESSAGE_TYPE, messageType, DUPLICATE_SOURCE, source));
    durationHistogram.record(elapsed.toNanos() / 1e9, byOutcome);
    if (!settled) {
      settlementFailures.increment();
      settlementFailureCounter.add(1, byOutcome);
    }
  }

  private void endSpan(Span span, Outcome outcome, boolean settled) {
    String reason = reason(outcome);
    span.setAttribute(SPAN_OUTCOME, outcome.label());
    span.setAttribute(SPAN_REASON, reason);
    span.setAttribute(SPAN_SETTLED, settled);
    outcome.knownEntityId().ifPresent(id -> span.setAttribute(spanEntityId, id));
    outcome.knownKey().ifPresent(key -> span.setAttribute(SPAN_KEY, key.value()));
    boolean failed =
        outcome.fold(
            p -> false,
            d -> false,
            st -> false,
            dl -> true,
            r -> r.cause() == Outcome.RetryCause.MISCONFIGURATION);
    if (failed) {
      span.setAttribute(ERROR_TYPE, reason);
      span.setStatus(StatusCode.ERROR, reason);
    }
    span.end();
  }

  /**
   * Where a duplicate came from ({@link io.idemworker.core.DuplicateSource#label()}), {@code none}
   * for every other outcome.
   *
   * @param outcome the outcome
   * @return the label
   */
  static String duplicateSource(Outcome outcome) {
    return outcome instanceof Outcome.Duplicate duplicate ? duplicate.source().label() : NO_REASON;
  }

  /**
   * The reason label of an outcome: the dead-letter reason code, the retry cause in lower case, or
   * {@code none}.
   *
   * @param outcome the outcome
   * @return the label
   */
  static String reason(Outcome outcome) {
    return outcome.fold(
        p -> NO_REASON,
        d -> NO_REASON,
        st -> NO_REASON,
        dl -> dl.reason().code(),
        r -> r.cause().name().toLowerCase(Locale.ROOT));
  }

  /**
   * The message type label: the Subject when it is a plain word, else {@code other} (or {@code
   * none}), so a hostile subject cannot blow up the metric's cardinality with arbitrary text.
   */
  static String messageType(IncomingMessage message) {
    return message.subject().map(s -> isPlainWord(s) ? s : "other").orElse(NO_REASON);
  }

  /**
   * 1 to 64 of {@code [A-Za-z0-9_.-]}, checked by hand: it runs twice a message (metrics and the
   * outcome log), where a regular expression's matcher is the larger cost.
   */
  private static boolean isPlainWord(String subject) {
    if (subject.isEmpty() || subject.length() > 64) {
      return false;
    }
    for (int i = 0; i < subject.length(); i++) {
      char c = subject.charAt(i);
      boolean plain =
          (c >= 'A' && c <= 'Z')
              || (c >= 'a' && c <= 'z')
              || (c >= '0' && c <= '9')
              || c == '_'
              || c == '.'
              || c == '-';
      if (!plain) {
        return false;
      }
    }
    return true;
  }

  private static Void increment(LongAdder adder) {
    adder.increment();
    return null;
  }

  private static Map<String, Long> sums(Map<String, LongAdder> adders) {
    Map<String, Long> sums = new HashMap<>();
    adders.forEach((key, adder) -> sums.put(key, adder.sum()));
    return sums;
  }

  private static long remaining(long deadline) {
    return Math.max(0, deadline - System.nanoTime());
  }

  /**
   * Reads W3C trace context from application properties. {@code Diagnostic-Id} stands in for a
   * missing {@code traceparent}: Service Bus SDKs put a traceparent value there.
   */
  private enum PropertiesGetter implements TextMapGetter<Map<String, Object>> {
    INSTANCE;

    private static final String TRACEPARENT = "traceparent";
    private static final String DIAGNOSTIC_ID = "Diagnostic-Id";

    @Override
    public String get(Map<String, Object> carrier, String key) {
      if (carrier == null) {
        return null;
      }
      Object value = carrier.get(key);
      if (value == null && TRACEPARENT.equals(key)) {
        value = carrier.get(DIAGNOSTIC_ID);
      }
      return value == null ? null : value.toString();
    }
  }
}
