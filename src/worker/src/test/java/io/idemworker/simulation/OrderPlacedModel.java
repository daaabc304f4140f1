package io.idemworker.simulation;

import io.idemworker.core.IncomingMessage;
import io.idemworker.core.MessageDecoder;
import io.idemworker.orders.InboxMarkers;
import io.idemworker.orders.OrderMessageTypes;
import io.idemworker.orders.Orders;
import io.idemworker.orders.PaymentProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * {@code OrderPlaced}: the order document is the anchor; its create is the duplicate check.
 * Invariants: the order is written exactly once, and every copy ends completed.
 */
final class OrderPlacedModel implements Model {

  @Override
  public String name() {
    return "create (OrderPlaced)";
  }

  @Override
  public MessageDecoder decoder(PaymentProvider provider) {
    return OrderMessageTypes.decoder(true, new InboxMarkers("orders", Optional.empty()));
  }

  @Override
  public List<Message> messages(int copies) {
    List<Message> messages = new ArrayList<>();
    for (int i = 0; i < copies; i++) {
      messages.add(new Message(String.valueOf((char) ('A' + i)), Orders.order(Invariants.ORDER)));
    }
    return messages;
  }

  @Override
  public List<IncomingMessage> seed() {
    return List.of();
  }

  @Override
  public Optional<String> afterStep(World before, World after) {
    int writes = after.store().writes(Invariants.ORDER, Invariants.ORDER);
    if (writes > 1) {
      return Optional.of(
          "effect exactly once: order " + Invariants.ORDER + " was written " + writes + " times");
    }
    return Invariants.noDeadLetter(before, after);
  }

  @Override
  public Optional<String> whenQuiet(World world) {
    Optional<String> lost = Invariants.everySentCompleted(world);
    if (lost.isPresent()) {
      return lost;
    }
    if (Invariants.order(world).isEmpty()) {
      return Optional.of(
          "nothing lost: every sent copy is completed but order "
              + Invariants.ORDER
              + " is absent");
    }
    return Optional.empty();
  }
}
