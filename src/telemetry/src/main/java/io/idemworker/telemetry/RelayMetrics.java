package io.idemworker.telemetry;

import io.idemworker.relay.OutboxRelay;
import io.idemworker.relay.RelayListener;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.metrics.LongCounter;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.api.metrics.ObservableDoubleGauge;
import io.opentelemetry.api.metrics.ObservableLongGauge;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;

/**
 * The outbox relay's instruments (scope {@value Telemetry#SCOPE}):
 *
 * <ul>
 *   <li>{@code idemworker.relay.events.published} — counter with {@code event_type}: events the
 *       topic accepted, re-publishes included;
 *   <li>{@code idemworker.relay.events.republished} — counter with {@code event_type}: of those,
 *       events sent again because an earlier send was not followed by its mark (crash, mark
 *       failure, takeover); the topic or the consumers drop the copies;
 *   <li>{@code idemworker.relay.publish.failures} — counter with {@code reason} ({@code transient},
 *       {@code misconfiguration}, {@code unpublishable}), in events;
 *   <li>{@code idemworker.relay.lag} — gauge in seconds: the age of the oldest event the lease
 *       holder has read and not yet published; 0 when caught up; reported by the lease holder only;
 *   <li>{@code idemworker.relay.lease.held} — gauge, 1 on the replica that holds the lease, else 0.
 * </ul>
 *
 * <p>Thread-safe; the listener methods never throw.
 */
public final class RelayMetrics implements RelayListener, AutoCloseable {
  private static final AttributeKey<String> EVENT_TYPE = AttributeKey.stringKey("event_type");
  private static final AttributeKey<String> REASON = AttributeKey.stringKey("reason");
  private static final Pattern EVENT_TYPE_SHAPE = Pattern.compile("[A-Za-z0-9_.\\-]{1,64}");

  private final LongCounter published;
  private final LongCounter republished;
  private final LongCounter failures;
  private final ObservableDoubleGauge lag;
  private final ObservableLongGauge held;
  private final AtomicReference<OutboxRelay> relay = new AtomicReference<>();

  RelayMetrics(Meter meter) {
    Objects.requireNonNull(meter, "meter");
    published =
        meter
            .counterBuilder("idemworker.relay.events.published")
            .setDescription("Outbox events the topic accepted, re-publishes included")
            .setUnit("{event}")
            .build();
    republished =
        meter
            .counterBuilder("idemworker.relay.events.republished")
            .setDescription("Outbox events sent again after a send the checkpoint did not pass")
            .setUnit("{event}")
            .build();
    failures =
        meter
            .counterBuilder("idemworker.relay.publish.failures")
            .setDescription("Outbox events whose publish attempt failed, by reason")
            .setUnit("{event}")
            .build();
    lag =
        meter
            .gaugeBuilder("idemworker.relay.lag")
            .setDescription("Age of the oldest outbox event read and not yet published")
            .setUnit("s")
            .buildWithCallback(
                m ->
                    current()
                        .flatMap(OutboxRelay::lag)
                        .ifPresent(d -> m.record(d.toNanos() / 1e9)));
    held =
        meter
            .gaugeBuilder("idemworker.relay.lease.held")
            .setDescription("1 on the replica holding the relay lease, else 0")
            .setUnit("1")
            .ofLongs()
            .buildWithCallback(m -> current().ifPresent(r -> m.record(r.holdsLease() ? 1 : 0)));
  }

  /**
   * Observes this relay for the gauges.
   *
   * @param observed the relay
   */
  public void observe(OutboxRelay observed) {
    relay.set(Objects.requireNonNull(observed, "observed"));
  }

  private Optional<OutboxRelay> current() {
    return Optional.ofNullable(relay.get());
  }

  @Override
  public void published(String eventType, int count, int republishedCount) {
    Attributes attributes = Attributes.of(EVENT_TYPE, label(eventType));
    published.add(count, attributes);
    if (republishedCount > 0) {
      republished.add(republishedCount, attributes);
    }
  }

  @Override
  public void publishFailed(String reason, int count) {
    failures.add(count, Attributes.of(REASON, reason));
  }

  /** Stops the gauges. */
  @Override
  public void close() {
    lag.close();
    held.close();
  }

  private static String label(String eventType) {
    return EVENT_TYPE_SHAPE.matcher(eventType).matches() ? eventType : "other";
  }
}
