package io.idemworker.simulation;

import io.idemworker.consumers.CustomerConsumers;
import io.idemworker.consumers.CustomerDocumentIds;
import io.idemworker.consumers.Events;
import io.idemworker.core.IdempotencyKey;
import io.idemworker.core.IncomingMessage;
import io.idemworker.core.MessageDecoder;
import io.idemworker.orders.InboxMarkers;
import io.idemworker.orders.OrderDocumentIds;
import io.idemworker.orders.PaymentProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One topic consumer ({@code loyalty}) behind the outbox relay: the copies are the relay's
 * publications of one {@code OrderAccepted} event, all with the MessageId derived from the causing
 * key (a re-publish after a relay crash, past the topic's duplicate-detection window, is one more
 * copy; {@link RelayExploration} shows the relay sends no other kind). Through the real consumer
 * decoder: an inbox marker {@code inbox:loyalty:{eventId}} in the customer's partition, in the same
 * batch as the points, and a seeded customer document on the first event.
 *
 * <p>Invariants: the customer's points and order count are applied at most once; no copy is
 * dead-lettered; once every copy is settled, each completed and the points applied exactly once.
 */
final class TopicConsumerModel implements Model {
  static final String CUSTOMER = "cust-1";

  /** 24.98 EUR: 24 whole units, the loyalty points per order. */
  private static final long POINTS = 24;

  private static final String EVENT_ID = OrderDocumentIds.outboxEvent(new IdempotencyKey("ord-1"));

  @Override
  public String name() {
    return "topic consumer (loyalty, OrderAccepted)";
  }

  @Override
  public MessageDecoder decoder(PaymentProvider provider) {
    return CustomerConsumers.decoder(
        CustomerConsumers.Role.LOYALTY, new InboxMarkers("loyalty", Optional.empty()));
  }

  @Override
  public List<Message> messages(int copies) {
    List<Message> messages = new ArrayList<>();
    for (int i = 0; i < copies; i++) {
      messages.add(
          new Message(
              String.valueOf((char) ('A' + i)),
              Events.message(EVENT_ID, Events.body("ord-1", CUSTOMER, "EUR", "24.98"))));
    }
    return messages;
  }

  @Override
  public List<IncomingMessage> seed() {
    return List.of();
  }

  @Override
  public Optional<String> afterStep(World before, World after) {
    long orders = field(after, "loyaltyOrders");
    if (orders > 1) {
      return Optional.of(
          "effect exactly once: event " + EVENT_ID + " earned loyalty points " + orders + " times");
    }
    if (field(after, "loyaltyPoints") != orders * POINTS) {
      return Optional.of("loyaltyPoints is not loyaltyOrders x " + POINTS);
    }
    return Invariants.noDeadLetter(before, after);
  }

  @Override
  public Optional<String> whenQuiet(World world) {
    Optional<String> settled = Invariants.everySentCompleted(world);
    if (settled.isPresent()) {
      return settled;
    }
    long orders = field(world, "loyaltyOrders");
    return orders == 1
        ? Optional.empty()
        : Optional.of(
            "effect exactly once: every copy is completed but the points were applied "
                + orders
                + " times");
  }

  private static long field(World world, String name) {
    return world
        .store()
        .number(CUSTOMER, CustomerDocumentIds.customer(CUSTOMER), name, world.now());
  }
}
