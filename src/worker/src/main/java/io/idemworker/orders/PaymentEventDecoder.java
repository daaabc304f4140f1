package io.idemworker.orders;

import com.fasterxml.jackson.databind.JsonNode;
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
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Decodes one payment provider webhook event type ({@code capture.succeeded}, {@code
 * capture.declined}, {@code capture.settled}). The key is the event's {@code id}; body {@code {id,
 * type, created, data: {captureId, orderId, idempotencyKey, amount, currency}}}, strictly: a field
 * outside the contract is a violation, named with its path ({@code data.orderId}).
 *
 * <p>Each event is a relative change to the order (a counter moves), so it is protected by an inbox
 * marker {@code webhook:{eventId}} in the order's partition, created in the same batch as the
 * order's patch and guarded by the order's currency. The event's own time ({@code created}) is what
 * {@code settledAt} records, so a redelivery days later could not move it even if it got through.
 *
 * <p>Thread-safe and stateless.
 */
final class PaymentEventDecoder implements MessageDecoder {
  static final String MARKER_PREFIX = "webhook:";
  private static final Set<String> CONTRACT_FIELDS = Set.of("id", "type", "created", "data");
  private static final Set<String> DATA_FIELDS =
      Set.of("captureId", "orderId", "idempotencyKey", "amount", "currency");
  private static final int MAX_KEY_LENGTH = 255;

  private final String type;
  private final Optional<Duration> markerTtl;

  PaymentEventDecoder(String type, Optional<Duration> markerTtl) {
    this.type = type;
    this.markerTtl = markerTtl;
  }

  @Override
  public Decoding decode(IncomingMessage message) {
    return BodyFields.decodeStrict(
        message,
        true,
        type,
        CONTRACT_FIELDS,
        (root, violations) -> {
          Optional<String> eventId = BodyFields.id(root, "id", violations);
          Optional<Instant> created = BodyFields.instant(root, "created", violations);
          if (!type.equals(root.path("type").asText())) {
            violations.add("type must be " + type);
          }
          List<String> dataViolations = new ArrayList<>();
          JsonNode data = root.get("data");
          Optional<String> captureId = Optional.empty();
          Optional<String> orderId = Optional.empty();
          Optional<String> idempotencyKey = Optional.empty();
          Optional<BigDecimal> amount = Optional.empty();
          Optional<String> currency = Optional.empty();
          if (data == null || !data.isObject()) {
            violations.add("data must be a JSON object");
          } else {
            captureId = BodyFields.id(data, "captureId", dataViolations);
            orderId = BodyFields.id(data, "orderId", dataViolations);
            idempotencyKey =
                BodyFields.text(data, "idempotencyKey", MAX_KEY_LENGTH, dataViolations);
            if (idempotencyKey.filter(String::isEmpty).isPresent()) {
              dataViolations.add("idempotencyKey must not be empty");
              idempotencyKey = Optional.empty();
            }
            amount = BodyFields.amount(data, "amount", dataViolations);
            currency = BodyFields.currency(data, dataViolations);
            data.fieldNames()
                .forEachRemaining(
                    name -> {
                      if (!DATA_FIELDS.contains(name)) {
                        dataViolations.add(name + " is not a field of " + type + " data");
                      }
                    });
          }
          dataViolations.forEach(violation -> violations.add("data." + violation));
          Optional<String> finalCaptureId = captureId;
          Optional<String> finalOrderId = orderId;
          Optional<String> finalKey = idempotencyKey;
          Optional<BigDecimal> finalAmount = amount;
          Optional<String> finalCurrency = currency;
          return new BodyFields.Candidate(
              orderId,
              eventId::get,
              "the event id must equal the body's id",
              () ->
                  new PaymentEvent(
                      type,
                      eventId.get(),
                      created.get(),
                      finalCaptureId.get(),
                      finalOrderId.get(),
                      finalKey.get(),
                      finalAmount.get(),
                      finalCurrency.get(),
                      markerTtl));
        });
  }

  /** A valid payment event. */
  record PaymentEvent(
      String type,
      String eventId,
      Instant created,
      String captureId,
      String orderId,
      String idempotencyKey,
      BigDecimal amount,
      String currency,
      Optional<Duration> markerTtl)
      implements ValidMessage {
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    @Override
    public String entityId() {
      return orderId;
    }

    @Override
    public ObjectNode immutableFields() {
      ObjectNode fields = JSON.objectNode();
      fields.put("id", eventId);
      fields.put("type", type);
      fields.put("created", created.toString());
      fields.put("captureId", captureId);
      fields.put("orderId", orderId);
      fields.put("idempotencyKey", idempotencyKey);
      fields.put("amount", amount);
      fields.put("currency", currency);
      return fields;
    }

    @Override
    public Change change(IdempotencyKey key, Fingerprint fingerprint, Instant acceptedAt) {
      ObjectNode marker = JSON.objectNode();
      marker.put("id", MARKER_PREFIX + key.value());
      marker.put("orderId", orderId);
      marker.put("type", "inbox");
      marker.put("consumer", PaymentWebhookEvents.CONSUMER);
      marker.put("key", key.value());
      marker.put("messageType", type);
      marker.put("captureId", captureId);
      marker.put("amount", amount);
      marker.put("currency", currency);
      marker.put("processedAt", acceptedAt.toString());
      marker.put("ttl", markerTtl.map(Duration::getSeconds).orElse(-1L));
      Optional<String> counter =
          switch (type) {
            case PaymentWebhookEvents.CAPTURE_SUCCEEDED -> Optional.of("confirmedCaptureUnits");
            case PaymentWebhookEvents.CAPTURE_SETTLED -> Optional.of("settledUnits");
            default -> Optional.empty();
          };
      DocumentPatch effect =
          new DocumentPatch(
              orderId,
              operations(),
              counter.isPresent()
                  ? OrderReasons.inCurrencyWithinExact(
                      currency, counter.get(), BodyFields.units(amount))
                  : OrderReasons.inCurrency(currency));
      return new Change.Anchored(
          WriteSet.of(orderId, fingerprint, marker, List.of(), List.of(effect)),
          Optional.of(
              counter.isPresent()
                  ? OrderReasons.orderInCurrencyWithin(
                      orderId,
                      type + " event",
                      currency,
                      new Change.Rejection(
                          OrderReasons.COUNTER_LIMIT_EXCEEDED,
                          counter.get()
                              + " of order "
                              + orderId
                              + " would pass 2^53 units, beyond what readers using doubles hold"
                              + " exactly"))
                  : OrderReasons.orderInCurrency(orderId, type + " event")));
    }

    private List<DocumentPatch.Operation> operations() {
      List<DocumentPatch.Operation> operations = new ArrayList<>();
      operations.add(new DocumentPatch.Increment("paymentEvents", 1));
      switch (type) {
        case PaymentWebhookEvents.CAPTURE_SUCCEEDED ->
            operations.add(
                new DocumentPatch.Increment("confirmedCaptureUnits", BodyFields.units(amount)));
        case PaymentWebhookEvents.CAPTURE_DECLINED ->
            operations.add(new DocumentPatch.Increment("declinedCaptures", 1));
        case PaymentWebhookEvents.CAPTURE_SETTLED -> {
          operations.add(new DocumentPatch.Increment("settledUnits", BodyFields.units(amount)));
          operations.add(
              new DocumentPatch.SetField("settledAt", JSON.textNode(created.toString())));
        }
        default -> throw new IllegalStateException("no effect for event type " + type);
      }
      return operations;
    }
  }
}
