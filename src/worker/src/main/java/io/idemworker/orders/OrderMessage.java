package io.idemworker.orders;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.core.Change;
import io.idemworker.core.Fingerprint;
import io.idemworker.core.IdempotencyKey;
import io.idemworker.core.MessageDecoder;
import io.idemworker.core.WriteSet;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A valid {@link OrderPlaced} and the documents it becomes, all in partition {@code orderId}:
 *
 * <ul>
 *   <li>the order ({@code id} = orderId, {@code type} = {@code order}): the anchor, whose creation
 *       is the duplicate check;
 *   <li>the lines, inside the order document only (each fact is written once: a line document per
 *       line would repeat them and cost a write each);
 *   <li>one {@code outbox} document holding the {@code OrderAccepted} event, whose {@code id}
 *       derives from the idempotency key alone, so a replay produces the same event id and
 *       downstream duplicate detection drops it.
 * </ul>
 */
final class OrderMessage implements MessageDecoder.ValidMessage {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  private final OrderPlaced order;
  private final Optional<String> messageId;
  private final Optional<String> correlationId;
  private final Optional<String> traceparent;
  private final Optional<String> owner;

  OrderMessage(
      OrderPlaced order,
      Optional<String> messageId,
      Optional<String> correlationId,
      Optional<String> traceparent,
      Optional<String> owner) {
    this.order = order;
    this.owner = owner;
    this.messageId = messageId;
    this.correlationId = correlationId;
    // A W3C traceparent (version 00); anything else is not carried into the event.
    this.traceparent = traceparent.filter(TraceContext::valid);
  }

  OrderPlaced order() {
    return order;
  }

  @Override
  public String entityId() {
    return order.orderId();
  }

  @Override
  public ObjectNode immutableFields() {
    ObjectNode fields = JSON.objectNode();
    fields.put("orderId", order.orderId());
    fields.put("customerId", order.customerId());
    fields.put("currency", order.currency());
    fields.put("placedAt", order.placedAt().toString());
    fields.set("lines", linesArray());
    return fields;
  }

  @Override
  public Change change(IdempotencyKey key, Fingerprint fingerprint, Instant acceptedAt) {
    BigDecimal total = order.total();
    ObjectNode anchor = JSON.objectNode();
    anchor.put("id", order.orderId());
    anchor.put("orderId", order.orderId());
    anchor.put("type", "order");
    anchor.put("customerId", order.customerId());
    anchor.put("currency", order.currency());
    anchor.put("placedAt", order.placedAt().toString());
    anchor.set("lines", linesArray());
    anchor.put("lineCount", order.lines().size());
    anchor.put("total", total);
    // Budgets that captures and credits count down, each under a condition, so no request can
    // take the order past its total (see OrderReasons).
    anchor.put(OrderReasons.CAPTURABLE_UNITS, BodyFields.units(total));
    anchor.put(OrderReasons.CREDITABLE_UNITS, BodyFields.units(total));
    anchor.put("idempotencyKey", key.value());
    messageId.ifPresent(id -> anchor.put("messageId", id));
    correlationId.ifPresent(id -> anchor.put("correlationId", id));
    anchor.put("acceptedAt", acceptedAt.toString());
    owner.ifPresent(o -> anchor.put(OrderDecoder.OWNER_FIELD, o));
    if (!order.extraFields().isEmpty()) {
      ObjectNode extras = anchor.putObject("extraFields");
      order.extraFields().forEach(extras::set);
    }

    List<ObjectNode> others = new ArrayList<>(1);
    ObjectNode event = JSON.objectNode();
    event.put("id", OrderDocumentIds.outboxEvent(key));
    event.put("orderId", order.orderId());
    event.put("type", "outbox");
    event.put("eventType", OrderDocumentIds.ORDER_ACCEPTED);
    event.put("ttl", OrderDocumentIds.OUTBOX_EVENT_TTL.toSeconds());
    event.put("causationId", key.value());
    correlationId.ifPresent(id -> event.put("correlationId", id));
    // The relay sends it on with the event, so consumers join the order's trace.
    traceparent.ifPresent(t -> event.put("traceparent", t));
    event.put("createdAt", acceptedAt.toString());
    ObjectNode payload = event.putObject("payload");
    payload.put("orderId", order.orderId());
    payload.put("customerId", order.customerId());
    payload.put("currency", order.currency());
    payload.put("total", total);
    payload.put("lineCount", order.lines().size());
    payload.put("placedAt", order.placedAt().toString());
    others.add(event);

    return new Change.Anchored(
        WriteSet.of(order.orderId(), fingerprint, anchor, others), Optional.empty());
  }

  private ArrayNode linesArray() {
    ArrayNode lines = JSON.arrayNode();
    for (OrderLine line : order.lines()) {
      ObjectNode node = lines.addObject();
      node.put("sku", line.sku());
      node.put("quantity", line.quantity());
      node.put("unitPrice", line.unitPrice());
    }
    return lines;
  }
}
