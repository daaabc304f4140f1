package io.idemworker.orders;

import io.idemworker.core.DeadLetterReason;
import io.idemworker.core.MessageDecoder;
import io.idemworker.core.SubjectRouter;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * The message types of the {@code orders} queue: one registration per type ({@link #TYPES}), which
 * the flow routes by {@code Subject}, {@code resubmit} asks whether a type's marker expires, {@code
 * explain} asks which order fields a type writes, and a test holds against the README's table of
 * types. No other code of the worker keeps a list of the subjects; {@code explain}'s timeline
 * describes each type's fields in words of its own.
 */
public final class OrderMessageTypes {

  /** The protection a message type needs, as the README's table of types names it. */
  public enum Protection {
    /** The order's create is its own duplicate check; the order document never expires. */
    ANCHOR(false),
    /** A conditional patch that refuses versions not above the stored one; nothing expires. */
    VERSION_GUARD(false),
    /**
     * An inbox marker created in the effect's batch; it carries a TTL, so a copy that comes back
     * after the marker expired would apply again (what {@code resubmit} guards against).
     */
    INBOX_MARKER(true),
    /** A two-phase record around a call outside the store; the record never expires. */
    TWO_PHASE_RECORD(false);

    private final boolean markerExpires;

    Protection(boolean markerExpires) {
      this.markerExpires = markerExpires;
    }

    /**
     * Whether the document that catches this type's repeats expires.
     *
     * @return true when a late copy can outlive its marker
     */
    public boolean markerExpires() {
      return markerExpires;
    }
  }

  /**
   * What the decoders are built from.
   *
   * @param messageIdIsKey true when the MessageId is the idempotency key, so it must match the body
   *     (orderId, {@code {orderId}:status:{version}}, creditId, paymentRequestId)
   * @param markers how credits' inbox markers are named and how long they live
   * @param payments the payment provider and the claim lease; empty = payment requests are
   *     dead-lettered as {@code UnsupportedMessage} naming {@code PAYMENTS_BASE_URL}
   */
  public record Settings(
      boolean messageIdIsKey, InboxMarkers markers, Optional<Payments> payments) {
    /** Requires the markers and the payments option. */
    public Settings {
      Objects.requireNonNull(markers, "markers");
      Objects.requireNonNull(payments, "payments");
    }
  }

  /**
   * One message type.
   *
   * @param subject the {@code Subject} that routes to it
   * @param key what its {@code MessageId} carries, as the contract states it
   * @param protection how its repeats are caught
   * @param orderFields the order document's fields that this type writes (what {@code explain}
   *     shows of the order, beside the fields every order has)
   * @param decoder builds its decoder
   */
  public record MessageType(
      String subject,
      String key,
      Protection protection,
      List<String> orderFields,
      Function<Settings, MessageDecoder> decoder) {
    /** Requires every part and copies the fields. */
    public MessageType {
      Objects.requireNonNull(subject, "subject");
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(protection, "protection");
      Objects.requireNonNull(decoder, "decoder");
      orderFields = List.copyOf(orderFields);
    }
  }

  /** Every type of the queue, in contract order. */
  public static final List<MessageType> TYPES =
      List.of(
          new MessageType(
              OrderDecoder.SUBJECT,
              "orderId",
              Protection.ANCHOR,
              List.of("customerId", "currency", "total", "lineCount"),
              settings -> new OrderDecoder(settings.messageIdIsKey())),
          new MessageType(
              StatusChangeDecoder.SUBJECT,
              "{orderId}:status:{version}",
              Protection.VERSION_GUARD,
              List.of("status", "statusVersion", "statusChangedAt"),
              settings -> new StatusChangeDecoder(settings.messageIdIsKey())),
          new MessageType(
              CreditDecoder.SUBJECT,
              "creditId",
              Protection.INBOX_MARKER,
              List.of("creditedUnits", "creditCount", "lastCreditedAt"),
              settings -> new CreditDecoder(settings.messageIdIsKey(), settings.markers())),
          new MessageType(
              PaymentDecoder.SUBJECT,
              "paymentRequestId",
              Protection.TWO_PHASE_RECORD,
              List.of("amountPaidUnits", "paymentStatus"),
              OrderMessageTypes::paymentDecoder));

  /** The subjects handled, in contract order. */
  public static final List<String> SUBJECTS = TYPES.stream().map(MessageType::subject).toList();

  /** {@code PaymentCaptureRequested}. */
  public static final String PAYMENT_CAPTURE_REQUESTED = PaymentDecoder.SUBJECT;

  /** {@code OrderStatusChanged}. */
  public static final String ORDER_STATUS_CHANGED = StatusChangeDecoder.SUBJECT;

  /** {@code OrderCredited}. */
  public static final String ORDER_CREDITED = CreditDecoder.SUBJECT;

  private OrderMessageTypes() {}

  /**
   * The decoder for the queue: every type, routed by {@code Subject}.
   *
   * @param messageIdIsKey true when the MessageId is the idempotency key, so it must match the body
   *     (orderId, {@code {orderId}:status:{version}}, creditId)
   * @param markers how credits' inbox markers are named and how long they live
   * @return the decoder
   */
  public static MessageDecoder decoder(boolean messageIdIsKey, InboxMarkers markers) {
    return decoder(messageIdIsKey, markers, Optional.empty());
  }

  /**
   * The decoder for the queue: every registered type, routed by {@code Subject}, with payments when
   * a provider is configured.
   *
   * @param messageIdIsKey true when the MessageId is the idempotency key, so it must match the body
   *     (orderId, {@code {orderId}:status:{version}}, creditId, paymentRequestId)
   * @param markers how credits' inbox markers are named and how long they live
   * @param payments the payment provider and the claim lease; empty = payment requests are
   *     dead-lettered as {@code UnsupportedMessage} naming {@code PAYMENTS_BASE_URL}
   * @return the decoder
   */
  public static MessageDecoder decoder(
      boolean messageIdIsKey, InboxMarkers markers, Optional<Payments> payments) {
    Settings settings = new Settings(messageIdIsKey, markers, payments);
    Map<String, MessageDecoder> bySubject = new LinkedHashMap<>();
    for (MessageType type : TYPES) {
      bySubject.put(type.subject(), type.decoder().apply(settings));
    }
    return new SubjectRouter(bySubject);
  }

  /**
   * The registration of a subject.
   *
   * @param subject a message's {@code Subject}
   * @return its type, or empty for a subject the queue does not handle
   */
  public static Optional<MessageType> bySubject(String subject) {
    return TYPES.stream().filter(type -> type.subject().equals(subject)).findFirst();
  }

  private static MessageDecoder paymentDecoder(Settings settings) {
    return settings
        .payments()
        .<MessageDecoder>map(
            p ->
                new PaymentDecoder(
                    settings.messageIdIsKey(), p.provider(), p.lease(), p.callTimeout()))
        .orElse(
            message ->
                new MessageDecoder.Invalid(
                    DeadLetterReason.UNSUPPORTED_MESSAGE,
                    PaymentDecoder.SUBJECT
                        + " needs a payment provider, and none is configured"
                        + " (PAYMENTS_BASE_URL)",
                    Optional.empty()));
  }

  /**
   * The payment provider, the ceiling of the lease a claim holds around one call, and the call's
   * bound.
   *
   * @param provider the provider
   * @param lease the lease's ceiling ({@code PAYMENTS_LEASE}): a claim's lease ends at this or at
   *     its delivery's lock end, whichever is first; longer than the timeout plus {@link
   *     io.idemworker.core.Change.TwoPhase#CALL_MARGIN}
   * @param callTimeout the provider's request timeout ({@code PAYMENTS_TIMEOUT}): a capture starts
   *     only when lock and lease both have this plus the margin left
   */
  public record Payments(PaymentProvider provider, Duration lease, Duration callTimeout) {
    /** Requires every value. */
    public Payments {
      Objects.requireNonNull(provider, "provider");
      Objects.requireNonNull(lease, "lease");
      Objects.requireNonNull(callTimeout, "callTimeout");
    }

    /**
     * A provider whose calls do not block (an in-process double): a call needs only the margin.
     *
     * @param provider the provider
     * @param lease the lease's ceiling
     */
    public Payments(PaymentProvider provider, Duration lease) {
      this(provider, lease, Duration.ZERO);
    }
  }

  /**
   * Whether a message type is protected by a marker that expires, which bounds how late a copy may
   * come back (what {@code resubmit} checks). Read from the type's registration.
   *
   * @param subject the message's subject
   * @return true for types whose marker expires; false for every other type and unknown subjects
   */
  public static boolean isMarkerProtected(String subject) {
    return bySubject(subject).map(type -> type.protection().markerExpires()).orElse(false);
  }

  /**
   * The MessageId of a status change.
   *
   * @param orderId the order
   * @param version the version
   * @return {@code {orderId}:status:{version}}
   */
  public static String statusMessageId(String orderId, long version) {
    return StatusChangeDecoder.messageId(orderId, version);
  }
}
