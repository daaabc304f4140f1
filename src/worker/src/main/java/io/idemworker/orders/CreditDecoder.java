package io.idemworker.orders;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.core.Change;
import io.idemworker.core.DocumentPatch;
import io.idemworker.core.Fingerprint;
import io.idemworker.core.IdempotencyKey;
import io.idemworker.core.IncomingMessage;
import io.idemworker.core.MessageDecoder;
import io.idemworker.core.WriteSet;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Decodes {@code OrderCredited}: a relative change (applied twice it loses money) that leaves no
 * trace of its own on the order, so it needs an inbox marker. {@code MessageId} = {@code creditId};
 * body {@code {orderId, creditId, amount, currency, reason}}.
 *
 * <p>One transactional batch in partition {@code orderId}: create the marker {@code
 * inbox:{consumer}:{key}} (the anchor, carrying the fingerprint and a {@code ttl}) and patch the
 * order, guarded by its currency: {@code creditedUnits} + amount in integer units of 0.0001 (exact;
 * adding decimal fractions as binary doubles would drift), {@code creditCount} + 1, {@code
 * lastCreditedAt}. The marker's create is the duplicate check.
 *
 * <p>Thread-safe and stateless.
 */
final class CreditDecoder implements MessageDecoder {
  static final String SUBJECT = "OrderCredited";
  static final int MAX_REASON_LENGTH = 200;
  private static final Set<String> CONTRACT_FIELDS =
      Set.of("orderId", "creditId", "amount", "currency", "reason");

  private final boolean messageIdMustMatchKey;
  private final InboxMarkers markers;

  CreditDecoder(boolean messageIdMustMatchKey, InboxMarkers markers) {
    this.messageIdMustMatchKey = messageIdMustMatchKey;
    this.markers = markers;
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
          Optional<String> creditId = BodyFields.id(root, "creditId", violations);
          Optional<BigDecimal> amount = BodyFields.amount(root, "amount", violations);
          Optional<String> currency = BodyFields.currency(root, violations);
          Optional<String> reason = BodyFields.text(root, "reason", MAX_REASON_LENGTH, violations);
          return new BodyFields.Candidate(
              orderId,
              creditId::get,
              "MessageId must equal the body's creditId",
              () ->
                  new Credit(
                      orderId.get(),
                      creditId.get(),
                      amount.get(),
                      currency.get(),
                      reason.get(),
                      markers));
        });
  }

  /** A valid credit. */
  record Credit(
      String orderId,
      String creditId,
      BigDecimal amount,
      String currency,
      String reason,
      InboxMarkers markers)
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
      fields.put("creditId", creditId);
      fields.put("amount", amount);
      fields.put("currency", currency);
      fields.put("reason", reason);
      return fields;
    }

    @Override
    public Change change(IdempotencyKey key, Fingerprint fingerprint, Instant acceptedAt) {
      ObjectNode marker = markers.marker(orderId, key, SUBJECT, acceptedAt);
      marker.put("creditId", creditId);
      marker.put("amount", amount);
      marker.put("currency", currency);
      long units = BodyFields.units(amount);
      DocumentPatch credit =
          new DocumentPatch(
              orderId,
              List.of(
                  new DocumentPatch.Increment("creditedUnits", units),
                  new DocumentPatch.Increment(OrderReasons.CREDITABLE_UNITS, -units),
                  new DocumentPatch.Increment("creditCount", 1),
                  new DocumentPatch.SetField(
                      "lastCreditedAt", JSON.textNode(acceptedAt.toString()))),
              OrderReasons.inCurrencyWithBudget(currency, OrderReasons.CREDITABLE_UNITS, units));
      return new Change.Anchored(
          WriteSet.of(orderId, fingerprint, marker, List.of(), List.of(credit)),
          Optional.of(
              OrderReasons.orderInCurrencyWithin(
                  orderId,
                  "credit",
                  currency,
                  new Change.Rejection(
                      OrderReasons.CREDIT_EXCEEDS_ORDER_TOTAL,
                      "amount must not take the credits of order "
                          + orderId
                          + " past its total (creditableUnits)"))));
    }
  }
}
