package io.idemworker.orders;

import io.idemworker.core.DeadLetterReason;
import io.idemworker.core.IdempotencyKey;
import io.idemworker.core.MessageDecoder;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The payment provider's webhook events this service applies to orders, and the protection they
 * share: an inbox marker {@code webhook:{eventId}} in the order's partition, committed in one batch
 * with the order's patch.
 *
 * <table>
 *   <caption>event types</caption>
 *   <tr><th>type</th><th>effect on the order (fields)</th></tr>
 *   <tr><td>{@code capture.succeeded}</td>
 *       <td>{@code confirmedCaptureUnits} + amount (units of 0.0001), {@code paymentEvents} + 1</td></tr>
 *   <tr><td>{@code capture.declined}</td>
 *       <td>{@code declinedCaptures} + 1, {@code paymentEvents} + 1</td></tr>
 *   <tr><td>{@code capture.settled}</td>
 *       <td>{@code settledUnits} + amount, {@code settledAt} = the event's {@code created},
 *       {@code paymentEvents} + 1</td></tr>
 * </table>
 *
 * <p>Every event is guarded by the order's currency ({@code CurrencyMismatch}) and needs the order
 * ({@code OrderNotFound}, retried while it may still arrive).
 */
public final class PaymentWebhookEvents {
  /** A capture was executed and the money taken. */
  public static final String CAPTURE_SUCCEEDED = "capture.succeeded";

  /** A capture was executed and the card declined it. */
  public static final String CAPTURE_DECLINED = "capture.declined";

  /** A captured amount reached the merchant's balance; sets the order's {@code settledAt}. */
  public static final String CAPTURE_SETTLED = "capture.settled";

  /** The event types handled, in contract order. */
  public static final List<String> TYPES =
      List.of(CAPTURE_SUCCEEDED, CAPTURE_DECLINED, CAPTURE_SETTLED);

  /** The consumer name the markers carry. */
  public static final String CONSUMER = "payments-webhook";

  private PaymentWebhookEvents() {}

  /**
   * The decoder for webhook events. The caller puts the event's {@code id} in {@code MessageId}
   * (the key) and its {@code type} in {@code Subject}; the decoder checks both against the body.
   *
   * @param markerTtl how long a marker lives: longer than the provider redelivers an event (days);
   *     empty = forever
   * @return the decoder; stateless and thread-safe
   */
  public static MessageDecoder decoder(Optional<Duration> markerTtl) {
    Map<String, MessageDecoder> byType = new LinkedHashMap<>();
    TYPES.forEach(type -> byType.put(type, new PaymentEventDecoder(type, markerTtl)));
    return message -> {
      Optional<String> type = message.subject().filter(s -> !s.isBlank());
      MessageDecoder decoder = type.map(byType::get).orElse(null);
      if (decoder == null) {
        return new MessageDecoder.Invalid(
            DeadLetterReason.UNSUPPORTED_MESSAGE,
            (type.isEmpty() ? "type is missing" : "type is not an event this endpoint handles")
                + "; it must be one of "
                + String.join(", ", TYPES),
            Optional.empty());
      }
      return decoder.decode(message);
    };
  }

  /**
   * The id of the marker that records an applied event.
   *
   * @param eventId the event's id
   * @return {@code webhook:{eventId}}
   */
  public static String markerId(String eventId) {
    return PaymentEventDecoder.MARKER_PREFIX + new IdempotencyKey(eventId).value();
  }
}
