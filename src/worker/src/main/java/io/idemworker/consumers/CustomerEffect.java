package io.idemworker.consumers;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.core.DocumentPatch;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * What one consumer does with an accepted order: a relative change to one document of the
 * customer's partition, and the seed that document starts from when the customer's first event
 * arrives. Each implementation is one consumer's business; the protection around it (the inbox
 * marker in the same batch) is {@link OrderAcceptedDecoder}'s.
 *
 * <p>Implementations are stateless and thread-safe.
 */
sealed interface CustomerEffect {
  JsonNodeFactory JSON = JsonNodeFactory.instance;

  /**
   * The increment this event makes.
   *
   * @param event the event
   * @param at when the consumer accepted it
   * @return the patch of the target document
   */
  DocumentPatch patch(OrderAccepted event, Instant at);

  /**
   * The target document with its identity fields only: created when the target is missing.
   *
   * @param event the event
   * @return the seed, whose {@code id} is the patch's
   */
  ObjectNode seed(OrderAccepted event);

  /**
   * {@code loyalty}: one point per whole currency unit of the total (rounded down, whatever the
   * currency), on the customer document {@code id} = customerId.
   */
  record LoyaltyPoints() implements CustomerEffect {
    @Override
    public DocumentPatch patch(OrderAccepted event, Instant at) {
      return new DocumentPatch(
          CustomerDocumentIds.customer(event.customerId()),
          List.of(
              new DocumentPatch.Increment("loyaltyPoints", event.wholeUnits()),
              new DocumentPatch.Increment("loyaltyOrders", 1),
              new DocumentPatch.SetField("loyaltyUpdatedAt", JSON.textNode(at.toString()))),
          Optional.empty());
    }

    @Override
    public ObjectNode seed(OrderAccepted event) {
      ObjectNode seed = JSON.objectNode();
      seed.put("id", CustomerDocumentIds.customer(event.customerId()));
      seed.put(CustomerDocumentIds.PARTITION_KEY_FIELD, event.customerId());
      seed.put("type", "customer");
      return seed;
    }
  }

  /**
   * {@code customer-stats}: the count of orders and the spend in exact units of 0.0001, on one
   * document per customer and currency, {@code id} = {@code {customerId}:stats:{currency}}.
   */
  record CustomerStats() implements CustomerEffect {
    @Override
    public DocumentPatch patch(OrderAccepted event, Instant at) {
      return new DocumentPatch(
          CustomerDocumentIds.stats(event.customerId(), event.currency()),
          List.of(
              new DocumentPatch.Increment("orderCount", 1),
              new DocumentPatch.Increment("spentUnits", event.totalUnits()),
              new DocumentPatch.SetField("statsUpdatedAt", JSON.textNode(at.toString()))),
          Optional.empty());
    }

    @Override
    public ObjectNode seed(OrderAccepted event) {
      ObjectNode seed = JSON.objectNode();
      seed.put("id", CustomerDocumentIds.stats(event.customerId(), event.currency()));
      seed.put(CustomerDocumentIds.PARTITION_KEY_FIELD, event.customerId());
      seed.put("type", "customerStats");
      seed.put("currency", event.currency());
      return seed;
    }
  }
}
