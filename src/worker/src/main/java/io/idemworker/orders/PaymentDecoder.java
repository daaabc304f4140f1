package io.idemworker.orders;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.core.Change;
import io.idemworker.core.DocumentPatch;
import io.idemworker.core.ExternalCall;
import io.idemworker.core.Fingerprint;
import io.idemworker.core.IdempotencyKey;
import io.idemworker.core.IncomingMessage;
import io.idemworker.core.MessageDecoder;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Decodes {@code PaymentCaptureRequested}: a capture at the payment provider, a side effect that
 * cannot join the Cosmos DB transaction, so it runs in two phases ({@link Change.TwoPhase}) around
 * a call that passes the idempotency key on. {@code MessageId} = {@code paymentRequestId}; body
 * {@code {orderId, paymentRequestId, amount, currency}}.
 *
 * <ul>
 *   <li>claim: the record {@code payment:{key}} in the order's partition, with a patch that counts
 *       the request on the order ({@code paymentRequests}) guarded by its currency, so nothing is
 *       charged for an order that is missing or in another currency;
 *   <li>call: {@code POST /v1/captures} with {@code Idempotency-Key: {key}};
 *   <li>complete: the record gets the answer; the order gets {@code amountPaidUnits} (+ amount in
 *       units of 0.0001, exact) and {@code paymentStatus}; a {@code PaymentCaptured} or {@code
 *       PaymentDeclined} outbox event is created. A decline (402) is a business answer: recorded
 *       and completed, never dead-lettered.
 * </ul>
 *
 * <p>Thread-safe when the provider is.
 */
final class PaymentDecoder implements MessageDecoder {
  static final String SUBJECT = "PaymentCaptureRequested";
  private static final Set<String> CONTRACT_FIELDS =
      Set.of("orderId", "paymentRequestId", "amount", "currency");

  private final boolean messageIdMustMatchKey;
  private final PaymentProvider provider;
  private final Duration lease;
  private final Duration callTimeout;

  PaymentDecoder(
      boolean messageIdMustMatchKey,
      PaymentProvider provider,
      Duration lease,
      Duration callTimeout) {
    this.messageIdMustMatchKey = messageIdMustMatchKey;
    this.provider = provider;
    this.lease = lease;
    this.callTimeout = callTimeout;
  }

  @Override
  public Decoding decode(IncomingMessage message) {
    return BodyFields.decodeStrict(
        message,
        messageIdMustMatchKey,
        SUBJECT,
        CONTRACT_FIELDS,
        (root, violations) -> {
          Optional<String> orderId = BodyFields.id(root, "orderId", violations);
          Optional<String> requestId = BodyFields.id(root, "paymentRequestId", violations);
          Optional<BigDecimal> amount = BodyFields.amount(root, "amount", violations);
          Optional<String> currency = BodyFields.currency(root, violations);
          return new BodyFields.Candidate(
              orderId,
              requestId::get,
              "MessageId must equal the body's paymentRequestId",
              () ->
                  new CaptureRequest(
                      orderId.get(),
                      requestId.get(),
                      amount.get(),
                      currency.get(),
                      message.correlationId(),
                      TraceContext.of(message),
                      provider,
                      lease,
                      callTimeout));
        });
  }

  /**
   * A valid capture request.
   *
   * @param orderId the order charged
   * @param paymentRequestId the request's id, the idempotency key's source
   * @param amount the amount
   * @param currency the order's currency
   * @param correlationId the request's CorrelationId, carried onto the completion event
   * @param trace the request's trace context, carried onto the completion event
   * @param provider the payment provider
   * @param lease the most a claim protects an attempt (cut at the delivery's lock end)
   * @param callTimeout the provider call's bound
   */
  record CaptureRequest(
      String orderId,
      String paymentRequestId,
      BigDecimal amount,
      String currency,
      Optional<String> correlationId,
      Optional<TraceContext> trace,
      PaymentProvider provider,
      Duration lease,
      Duration callTimeout)
      implements ValidMessage {
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    @Override
    public String entityId() {
      return orderId;
    }

    @Override
    public ObjectNode immutableFields() {
      ObjectNode fields = JSON.objectNode();
      fields.put("orderId", orderId);
      fields.put("paymentRequestId", paymentRequestId);
      fields.put("amount", amount);
      fields.put("currency", currency);
      return fields;
    }

    @Override
    public Change change(IdempotencyKey key, Fingerprint fingerprint, Instant acceptedAt) {
      ObjectNode record = JSON.objectNode();
      record.put("id", OrderDocumentIds.payment(key));
      record.put("orderId", orderId);
      record.put("type", "payment");
      record.put("key", key.value());
      record.put("paymentRequestId", paymentRequestId);
      record.put("amount", amount);
      record.put("currency", currency);
      record.put("claimedAt", acceptedAt.toString());
      long units = BodyFields.units(amount);
      // The claim reserves the amount from the order's budget before the provider is called: a
      // request for more than the order still has to capture never reaches the provider.
      DocumentPatch countRequest =
          new DocumentPatch(
              orderId,
              List.of(
                  new DocumentPatch.Increment("paymentRequests", 1),
                  new DocumentPatch.Increment(OrderReasons.CAPTURABLE_UNITS, -units)),
              OrderReasons.inCurrencyWithBudget(currency, OrderReasons.CAPTURABLE_UNITS, units));
      return new Change.TwoPhase(
          orderId,
          record,
          List.of(countRequest),
          OrderReasons.orderInCurrencyWithin(
              orderId,
              "payment",
              currency,
              new Change.Rejection(
                  OrderReasons.CAPTURE_EXCEEDS_OUTSTANDING,
                  "amount must not exceed what order "
                      + orderId
                      + " still has to capture: its total less the amounts of earlier capture"
                      + " requests (capturableUnits)")),
          () -> answer(provider.capture(key.value(), orderId, amount, currency)),
          (result, completedAt) -> completion(key, result, completedAt),
          lease,
          callTimeout);
    }

    private Change.CompletionPlan completion(
        IdempotencyKey key, ObjectNode result, Instant completedAt) {
      boolean captured = "captured".equals(result.path("result").asText());
      String eventType =
          captured ? OrderDocumentIds.PAYMENT_CAPTURED : OrderDocumentIds.PAYMENT_DECLINED;
      ObjectNode event = JSON.objectNode();
      event.put("id", OrderDocumentIds.paymentEvent(key));
      event.put("orderId", orderId);
      event.put("type", "outbox");
      event.put("eventType", eventType);
      event.put("ttl", OrderDocumentIds.OUTBOX_EVENT_TTL.toSeconds());
      event.put("causationId", key.value());
      correlationId.ifPresent(id -> event.put("correlationId", id));
      // The relay sends it on with the event, so consumers join the payment request's trace.
      trace.ifPresent(t -> t.writeTo(event));
      event.put("createdAt", completedAt.toString());
      ObjectNode payload = event.putObject("payload");
      payload.put("orderId", orderId);
      payload.put("paymentRequestId", paymentRequestId);
      payload.put("amount", amount);
      payload.put("currency", currency);
      payload.set("result", result.deepCopy());
      List<DocumentPatch.Operation> operations = new ArrayList<>();
      if (captured) {
        operations.add(new DocumentPatch.Increment("amountPaidUnits", BodyFields.units(amount)));
      } else {
        // A decline gives the reservation back: the order may be captured again.
        operations.add(
            new DocumentPatch.Increment(OrderReasons.CAPTURABLE_UNITS, BodyFields.units(amount)));
      }
      operations.add(
          new DocumentPatch.SetField(
              "paymentStatus", JSON.textNode(captured ? "captured" : "declined")));
      return new Change.CompletionPlan(
          event, List.of(new DocumentPatch(orderId, operations, Optional.empty())));
    }

    private static ExternalCall.Answer answer(CaptureAnswer answer) {
      if (answer instanceof CaptureAnswer.Captured captured) {
        ObjectNode result = JSON.objectNode();
        result.put("result", "captured");
        result.put("providerCaptureId", captured.captureId());
        return new ExternalCall.Done(result);
      }
      if (answer instanceof CaptureAnswer.Declined declined) {
        ObjectNode result = JSON.objectNode();
        result.put("result", "declined");
        result.put("declineCode", declined.declineCode());
        return new ExternalCall.Done(result);
      }
      if (answer instanceof CaptureAnswer.InFlight) {
        return new ExternalCall.Busy("the provider answered 409: this key is in flight");
      }
      if (answer instanceof CaptureAnswer.KeyConflict conflict) {
        return new ExternalCall.KeyReused(conflict.description());
      }
      if (answer instanceof CaptureAnswer.Ambiguous ambiguous) {
        return new ExternalCall.Unknown(ambiguous.description());
      }
      CaptureAnswer.Rejected rejected = (CaptureAnswer.Rejected) answer;
      return new ExternalCall.Refused(
          "status " + rejected.status() + ": " + rejected.description());
    }
  }
}
